# One `tephra` command line as a test: run it, then check its exit code and what it printed.
#   cmake -DCMD=<program>|<arg>|... -DEXIT=<code> [-DOUT=<regex>] [-DERR=<regex>] [-DNEEDS=<path>]
#         -P run_cli.cmake
# Arguments are joined with '|' because ctest would split a ';' list. OUT and ERR must match
# stdout and stderr. NEEDS: the test is skipped (`cli: skipped (...)`, matched by the test's
# SKIP_REGULAR_EXPRESSION) when that path does not exist, as ../shared/conformance may not.
cmake_minimum_required(VERSION 3.25)

if(NOT DEFINED CMD OR NOT DEFINED EXIT)
  message(FATAL_ERROR "usage: cmake -DCMD=prog|arg|... -DEXIT=code [-DOUT=re] [-DERR=re] -P ${CMAKE_CURRENT_LIST_FILE}")
endif()
if(DEFINED NEEDS AND NOT EXISTS "${NEEDS}")
  message("cli: skipped (no ${NEEDS})")
  return()
endif()

string(REPLACE "|" ";" argv "${CMD}")
execute_process(COMMAND ${argv} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(problems "")
if(NOT rc STREQUAL EXIT)
  string(APPEND problems "  exit ${rc}, expected ${EXIT}\n")
endif()
if(DEFINED OUT AND NOT out MATCHES "${OUT}")
  string(APPEND problems "  stdout does not match: ${OUT}\n")
endif()
if(DEFINED ERR AND NOT err MATCHES "${ERR}")
  string(APPEND problems "  stderr does not match: ${ERR}\n")
endif()
if(problems)
  string(REPLACE ";" " " shown "${argv}")
  message(FATAL_ERROR "${shown}\n${problems}--- stdout:\n${out}--- stderr:\n${err}")
endif()
