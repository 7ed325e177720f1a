# Dependencies, all from Debian packages: libyaml-dev, libjemalloc-dev, libcurl4-openssl-dev (the
# extender plugin's HTTP client), libpcre2-dev (hypernode member regexes), libcmocka-dev, libbenchmark-dev, and OpenMP from gcc. Nothing is vendored. `cmake -P cmake/main.cmake` and
# `cmake -P cmake/test.cmake` install whatever is missing (cmake/deps.cmake holds the list).
find_package(PkgConfig QUIET)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "pkg-config not found: apt-get install pkg-config "
                      "(or run `cmake -P cmake/test.cmake`, which installs what is missing)")
endif()

# pkg_check_modules with an error that names the Debian package to install.
macro(tph_pkg prefix module debian_package)
  pkg_check_modules(${prefix} QUIET IMPORTED_TARGET ${module})
  if(NOT ${prefix}_FOUND AND NOT "${ARGN}" STREQUAL "OPTIONAL")
    message(FATAL_ERROR "${module} not found: apt-get install ${debian_package} "
                        "(or run `cmake -P cmake/test.cmake`, which installs what is missing)")
  endif()
endmacro()

tph_pkg(YAML yaml-0.1 libyaml-dev)
tph_pkg(JEMALLOC jemalloc libjemalloc-dev)
tph_pkg(CURL libcurl libcurl4-openssl-dev)
# Hypernode member regexes: Go's RE2 syntax, matched under limits (kernel/src/base/regex_go.h).
tph_pkg(PCRE2 libpcre2-8 libpcre2-dev)

find_package(Threads REQUIRED)

if(TPH_OPENMP)
  find_package(OpenMP REQUIRED COMPONENTS C)
endif()

# tests/CMakeLists.txt stops with a message when cmocka is missing and testing is on.
if(BUILD_TESTING OR NOT DEFINED BUILD_TESTING)
  tph_pkg(CMOCKA cmocka libcmocka-dev OPTIONAL)
endif()

if(TPH_BENCH)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    message(STATUS "google benchmark not found (libbenchmark-dev): bench/ is not built")
    set(TPH_BENCH OFF)
  endif()
endif()
