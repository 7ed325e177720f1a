# The README's test command, `cmake -P cmake/test.cmake` from the repository root: install what is
# missing, build build/ (Release, -Werror) and run ctest; quiet but for ctest's summary.
# `cmake -DSANITIZE=ON -P cmake/test.cmake` does the same in build-asan/ (Debug, ASan+UBSan),
# with the sanitizers set to fail the test on the first error and on any leak, and every session
# arena allocation a malloc block of its own.
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/deps.cmake")

if(SANITIZE)
  set(build "${TPH_SOURCE_DIR}/build-asan")
  # Benchmarks are programs, not tests: not worth a sanitized build. Arena allocations go
  # through malloc, so LeakSanitizer sees each one (kernel/src/base/arena.h).
  set(config -DCMAKE_BUILD_TYPE=Debug -DTPH_SANITIZE=ON -DTPH_ARENA_MALLOC=ON -DTPH_BENCH=OFF)
  # LeakSanitizer works in this container (checked: a leak aborts the process with a report).
  set(ENV{ASAN_OPTIONS} "detect_leaks=1:abort_on_error=1")
  set(ENV{UBSAN_OPTIONS} "print_stacktrace=1:halt_on_error=1")
else()
  set(build "${TPH_SOURCE_DIR}/build")
  set(config -DCMAKE_BUILD_TYPE=Release)
endif()

# TPH_REQUIRE_SHARED (tests/unit/shared_data.h): from the environment, as .ci/run exports it, or
# from -DTPH_REQUIRE_SHARED=1; ctest and every test it runs inherit it.
if(DEFINED TPH_REQUIRE_SHARED)
  set(ENV{TPH_REQUIRE_SHARED} "${TPH_REQUIRE_SHARED}")
endif()

tph_install_missing_packages("${build}/logs")
tph_configure_and_build("${build}" "" ${config} -DTPH_WERROR=ON -DBUILD_TESTING=ON)

get_filename_component(bindir "${CMAKE_COMMAND}" DIRECTORY)
set(log "${build}/logs/ctest.log")
execute_process(COMMAND "${bindir}/ctest" --test-dir "${build}" --output-on-failure --no-tests=error -j2
                OUTPUT_FILE "${log}" ERROR_FILE "${log}" RESULT_VARIABLE rc)
file(READ "${log}" out)
if(NOT rc EQUAL 0)
  message("${out}")
  message(FATAL_ERROR "tests failed (log: ${log})")
endif()
# ctest's closing lines: `100% tests passed, 0 tests failed out of N`, any skipped, the time.
string(FIND "${out}" "% tests passed" at)
if(at GREATER_EQUAL 0)
  string(SUBSTRING "${out}" 0 ${at} head)
  string(FIND "${head}" "\n" at REVERSE)
  math(EXPR at "${at} + 1")
  string(SUBSTRING "${out}" ${at} -1 out)
endif()
string(STRIP "${out}" out)
execute_process(COMMAND "${CMAKE_COMMAND}" -E echo "${out}")
