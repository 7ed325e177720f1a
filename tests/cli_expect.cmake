# Run one command and check its exit code and what it printed. ctest's PASS_REGULAR_EXPRESSION
# cannot do both: with it set, ctest ignores the exit code.
#   cmake -DRC=<exit code> [-DMATCH=<regex>] [-DLINE=<text>] [-DSTDOUT=<file>]
#         -P cli_expect.cmake -- <command> [<arg>...]
# MATCH must match somewhere in stdout+stderr; LINE must equal one whole line of it (leading
# blanks aside), taken literally; STDOUT sends the command's stdout to that file (e.g.
# /dev/full) instead of capturing it.
cmake_minimum_required(VERSION 3.25)

set(cmd "")
set(after FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after)
    list(APPEND cmd "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(after TRUE)
  endif()
endforeach()
if(NOT DEFINED RC OR NOT cmd)
  message(FATAL_ERROR "usage: cmake -DRC=<code> [-DMATCH=<regex>] [-DLINE=<text>] "
                      "[-DSTDOUT=<file>] -P ${CMAKE_CURRENT_LIST_FILE} -- <command> [<arg>...]")
endif()

if(DEFINED STDOUT)
  execute_process(COMMAND ${cmd} OUTPUT_FILE "${STDOUT}" ERROR_VARIABLE out RESULT_VARIABLE rc)
else()
  execute_process(COMMAND ${cmd} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  string(APPEND out "${err}")
endif()

list(JOIN cmd " " shown)
set(problems "")
if(NOT "${rc}" STREQUAL "${RC}")
  string(APPEND problems "exit code ${rc}, expected ${RC}\n")
endif()
if(DEFINED MATCH AND NOT out MATCHES "${MATCH}")
  string(APPEND problems "no match for the regex: ${MATCH}\n")
endif()
if(DEFINED LINE)
  string(REGEX REPLACE "\n[ \t]+" "\n" lines "\n${out}\n")
  string(FIND "${lines}" "\n${LINE}\n" at)
  if(at LESS 0)
    string(APPEND problems "no line: ${LINE}\n")
  endif()
endif()
if(problems)
  message("$ ${shown}\n${out}")
  message(FATAL_ERROR "${problems}")
endif()
