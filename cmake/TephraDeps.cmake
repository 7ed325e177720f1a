# Dependencies, all from Debian packages: libyaml-dev, libjemalloc-dev, libcmocka-dev,
# libbenchmark-dev, and OpenMP from gcc. Nothing is vendored.
find_package(PkgConfig REQUIRED)
pkg_check_modules(YAML REQUIRED IMPORTED_TARGET yaml-0.1)
pkg_check_modules(JEMALLOC REQUIRED IMPORTED_TARGET jemalloc)

find_package(Threads REQUIRED)

if(TPH_OPENMP)
  find_package(OpenMP REQUIRED COMPONENTS C)
endif()

if(BUILD_TESTING OR NOT DEFINED BUILD_TESTING)
  pkg_check_modules(CMOCKA IMPORTED_TARGET cmocka)
endif()

if(TPH_BENCH)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    message(STATUS "google benchmark not found: bench/ is not built")
    set(TPH_BENCH OFF)
  endif()
endif()
