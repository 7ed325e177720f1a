# Shared by go.cmake and python.cmake: skipping when a toolchain is absent (a failure under
# $TPH_REQUIRE_SHARED, as CI sets it), and running a step with its output shown on failure.
cmake_minimum_required(VERSION 3.25)

# Skip the test (`<name>: skipped (...)`, SKIP_REGULAR_EXPRESSION), or fail under CI.
function(bindings_skip name why)
  if(DEFINED ENV{TPH_REQUIRE_SHARED} AND NOT "$ENV{TPH_REQUIRE_SHARED}" MATCHES "^0?$")
    message("${name}: ${why} (TPH_REQUIRE_SHARED is set)")  # plain: FATAL_ERROR re-wraps
    message(FATAL_ERROR "${name}: failed")
  endif()
  message("${name}: skipped (${why})")
  if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.29)
    cmake_language(EXIT 77)
  endif()
endfunction()

# bindings_run(<name> <what> [DIR <dir>] [OUTPUT <var>] COMMAND <command>...): run, stop with its
# output on failure; OUTPUT receives stdout and stderr together.
function(bindings_run name what)
  cmake_parse_arguments(PARSE_ARGV 2 R "" "DIR;OUTPUT" "COMMAND")
  if(NOT R_DIR)
    set(R_DIR "${CMAKE_CURRENT_LIST_DIR}")
  endif()
  execute_process(COMMAND ${R_COMMAND} WORKING_DIRECTORY "${R_DIR}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message("${out}")
    message(FATAL_ERROR "${name}: ${what} failed (${rc})")
  endif()
  if(R_OUTPUT)
    set(${R_OUTPUT} "${out}" PARENT_SCOPE)
  endif()
endfunction()
