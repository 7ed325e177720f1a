# Test `format`: every C/C++ source in kernel/ plugins/ tests/ bench/ datasets/ examples/ bindings/
# must be as clang-format (.clang-format at the top) writes it. Skipped when clang-format is not
# installed, unless $TPH_REQUIRE_SHARED is set (and not 0).
#   cmake -DSOURCE_DIR=<repository root> -P format.cmake
cmake_minimum_required(VERSION 3.25)

find_program(CLANG_FORMAT clang-format)
if(NOT CLANG_FORMAT)
  # CI sets TPH_REQUIRE_SHARED: there every test must run, this one too.
  if(DEFINED ENV{TPH_REQUIRE_SHARED} AND NOT "$ENV{TPH_REQUIRE_SHARED}" MATCHES "^0?$")
    # Plain message(): FATAL_ERROR would re-wrap the line.
    message("format: clang-format not installed (TPH_REQUIRE_SHARED is set)")
    message(FATAL_ERROR "format: failed")
  endif()
  # CMake before 3.29 cannot exit with 77, so the test also carries SKIP_REGULAR_EXPRESSION.
  message("format: skipped (clang-format not installed)")
  if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.29)
    cmake_language(EXIT 77)
  endif()
  return()
endif()

set(globs "")
foreach(dir kernel plugins tests bench datasets examples bindings)
  foreach(ext c h cc cpp cxx hh hpp)
    list(APPEND globs "${SOURCE_DIR}/${dir}/*.${ext}")
  endforeach()
endforeach()
file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE "${SOURCE_DIR}" ${globs})
if(NOT files)
  message("format: no sources")
  return()
endif()
list(SORT files)

execute_process(COMMAND "${CLANG_FORMAT}" --dry-run --Werror ${files} WORKING_DIRECTORY "${SOURCE_DIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
list(LENGTH files n)
if(rc EQUAL 0)
  message("format: ${n} files clean")
  return()
endif()

# clang-format reports `file:line:col: error: code should be clang-formatted`; name each file once.
string(REGEX MATCHALL "[^\n]+:[0-9]+:[0-9]+: error: code should be clang-formatted" hits "${out}")
set(bad "")
foreach(hit IN LISTS hits)
  string(REGEX REPLACE ":[0-9]+:[0-9]+: error:.*" "" f "${hit}")
  list(APPEND bad "${f}")
endforeach()
list(REMOVE_DUPLICATES bad)
if(NOT bad)
  message("${out}")
  message(FATAL_ERROR "format: clang-format failed (${rc})")
endif()
list(LENGTH bad nbad)
list(JOIN bad "\n  " shown)
list(JOIN bad " " args)
message("format: ${nbad} of ${n} files are not clang-formatted:\n  ${shown}\n"
        "Fix with: clang-format -i ${args}")
message(FATAL_ERROR "format: ${nbad} files need clang-format")
