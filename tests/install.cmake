# Test `install`: install the build into a temporary prefix, then build and run a host program
# against the installed files only, through pkg-config (shared, and static with --static) and
# through find_package(tephra) (tephra::tephra and tephra::tephra_static); then the same for
# examples/host, once through pkg-config and once through its own CMakeLists (find_package), each
# checked for its expected output.
#   cmake -DBUILD_DIR=<build> -DSOURCE=<host program> -DEXAMPLE=<examples/host> -DWORK=<scratch dir>
#         -P install.cmake
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/host/host_output.cmake")
set(prefix "${WORK}/prefix")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install: ${what} failed (${rc}):\n${out}")
  endif()
endfunction()

run("cmake --install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(f include/tephra/tephra.h lib/libtephra.a lib/pkgconfig/tephra.pc
          lib/cmake/tephra/tephraConfig.cmake bin/tephra share/man/man1/tephra.1)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "install: ${f} was not installed")
  endif()
endforeach()
file(GLOB soname "${prefix}/lib/libtephra.so.0")
if(NOT soname)
  message(FATAL_ERROR "install: no libtephra.so.0 (SONAME)")
endif()

# pkg-config, as a Makefile would use it.
find_program(PKG_CONFIG pkg-config REQUIRED)
find_program(CC NAMES cc gcc REQUIRED)
set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
foreach(kind shared static)
  set(static_flag "")
  set(link_mode "")
  if(kind STREQUAL "static")
    set(static_flag --static)
    set(link_mode -Wl,-Bstatic -ltephra -Wl,-Bdynamic)
  endif()
  execute_process(COMMAND "${PKG_CONFIG}" --cflags tephra OUTPUT_VARIABLE cflags
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND "${PKG_CONFIG}" ${static_flag} --libs tephra OUTPUT_VARIABLE libs
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  separate_arguments(cflags UNIX_COMMAND "${cflags}")
  separate_arguments(libs UNIX_COMMAND "${libs}")
  if(link_mode)
    list(REMOVE_ITEM libs -ltephra)
  endif()
  run("pkg-config ${kind} build" "${CC}" -o "${WORK}/pc_${kind}" "${SOURCE}" ${cflags}
      ${link_mode} ${libs} -ldl)
  run("pkg-config ${kind} program" env "LD_LIBRARY_PATH=${prefix}/lib" "${WORK}/pc_${kind}")
endforeach()

# find_package(tephra)
run("find_package configure" "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/install"
    -B "${WORK}/cmake" "-DCMAKE_PREFIX_PATH=${prefix}" "-DCONSUMER_SOURCE=${SOURCE}")
run("find_package build" "${CMAKE_COMMAND}" --build "${WORK}/cmake")
foreach(kind shared static)
  run("find_package ${kind} program" env "LD_LIBRARY_PATH=${prefix}/lib"
      "${WORK}/cmake/consumer_${kind}")
endforeach()

# examples/host as an embedder builds it: with pkg-config on a compiler's command line, and with
# its own CMakeLists.txt, which finds the installed package.
execute_process(COMMAND "${PKG_CONFIG}" --cflags --libs tephra OUTPUT_VARIABLE flags
                OUTPUT_STRIP_TRAILING_WHITESPACE)
separate_arguments(flags UNIX_COMMAND "${flags}")
run("examples/host pkg-config build" "${CC}" -o "${WORK}/host_pc" "${EXAMPLE}/host.c" ${flags})
check_host_output("examples/host through pkg-config" "${EXAMPLE}/expected.txt"
                  env "LD_LIBRARY_PATH=${prefix}/lib" "${WORK}/host_pc")
run("examples/host find_package configure" "${CMAKE_COMMAND}" -S "${EXAMPLE}" -B "${WORK}/host"
    "-DCMAKE_PREFIX_PATH=${prefix}")
run("examples/host find_package build" "${CMAKE_COMMAND}" --build "${WORK}/host")
check_host_output("examples/host through find_package" "${EXAMPLE}/expected.txt"
                  env "LD_LIBRARY_PATH=${prefix}/lib" "${WORK}/host/tephra_host")

message("install: pkg-config and find_package consumers (shared and static) built and ran, and "
        "examples/host through both")
