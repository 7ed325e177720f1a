# The example binpack (examples/plugins/binpack.c) against the built-in one on a generated
# cluster whose conf includes binpack: the `--format json` decisions, timing aside, must be the
# same bytes, and allocate must score as many nodes with either (the external plugin answers
# the score-locality contract, so the fast path stays on).
#   cmake -DTEPHRA=<tephra> -DPLUGIN=<binpack.so> -DWORK=<scratch dir> -P same_decisions.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var TEPHRA PLUGIN WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "usage: cmake -DTEPHRA=... -DPLUGIN=... -DWORK=... -P ${CMAKE_CURRENT_LIST_FILE}")
  endif()
endforeach()
file(MAKE_DIRECTORY "${WORK}")
set(scenario "${WORK}/1k-small-seed3.yaml")
execute_process(COMMAND "${TEPHRA}" gen 1k-small --seed 3 --quiet -o "${scenario}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tephra gen 1k-small failed (${rc})")
endif()

include("${CMAKE_CURRENT_LIST_DIR}/decisions.cmake")
tph_decisions(builtin "${scenario}" --format json)
tph_decisions(external "${scenario}" --format json --plugins "${PLUGIN}")
if(NOT external_err MATCHES "tephra: plugin binpack from [^\n]* overrides the built-in")
  message(FATAL_ERROR "no override warning: the external binpack may not have run:\n${external_err}")
endif()
if(NOT builtin MATCHES "\"binds\": \\[\n    {\"pod\"")
  message(FATAL_ERROR "no binds: the comparison would prove nothing")
endif()
if(NOT builtin STREQUAL external)
  file(WRITE "${WORK}/builtin.json" "${builtin}")
  file(WRITE "${WORK}/external.json" "${external}")
  message(FATAL_ERROR "decisions differ: diff ${WORK}/builtin.json ${WORK}/external.json")
endif()

# Calls and nodes evaluated of the scoring extension points (the profile's count columns).
function(scored name)
  tph_decisions(profile "${scenario}" --summary --profile ${ARGN})
  string(REGEX MATCHALL "\n  (NodeOrder|ScoreLocality) +[0-9]+ +[0-9]+" rows "${profile}")
  if(NOT rows)
    message(FATAL_ERROR "no NodeOrder row in the profile:\n${profile}")
  endif()
  list(TRANSFORM rows STRIP)
  string(REGEX REPLACE " +" " " rows "${rows}")
  list(JOIN rows ", " rows)
  set(${name} "${rows}" PARENT_SCOPE)
endfunction()
scored(builtin_rows)
scored(external_rows --plugins "${PLUGIN}")
if(NOT builtin_rows STREQUAL external_rows)
  message(FATAL_ERROR "the external binpack scores other nodes than the built-in (fast path off?):\n"
                      "built-in: ${builtin_rows}\nexternal: ${external_rows}")
endif()
message("same decisions and node evaluations with the built-in and the external binpack")
