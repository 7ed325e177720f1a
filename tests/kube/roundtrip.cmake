# Test `kube.roundtrip`: export then import gives the same decisions, on every fixture.
#   cmake -DTEPHRA=<tephra> -DSHARED=<fixture dir> | -DFIXTURES=<dir> -DWORK=<scratch dir>
#         -P roundtrip.cmake
# For each *.yaml under SHARED: `tephra run --format json` of the fixture and of
# `tephra import kube` of `tephra export kube` of it must print the same JSON once `timing` is
# removed. $TPH_SHARED_DIR (set at test time) names another shared/ directory; without the
# fixtures the test skips, unless $TPH_REQUIRE_SHARED is set (and not 0).
cmake_minimum_required(VERSION 3.25)

if(DEFINED FIXTURES) # tephra's own scenarios: always there
  set(SHARED "${FIXTURES}")
elseif(DEFINED ENV{TPH_SHARED_DIR} AND NOT "$ENV{TPH_SHARED_DIR}" STREQUAL "")
  set(SHARED "$ENV{TPH_SHARED_DIR}/conformance")
endif()
if(NOT IS_DIRECTORY "${SHARED}")
  if(DEFINED ENV{TPH_REQUIRE_SHARED} AND NOT "$ENV{TPH_REQUIRE_SHARED}" MATCHES "^0?$")
    message("kube.roundtrip: no fixture directory ${SHARED} (TPH_REQUIRE_SHARED is set)")
    message(FATAL_ERROR "kube.roundtrip: failed")
  endif()
  message("kube.roundtrip: skipped (no fixture directory ${SHARED})")
  return()
endif()

file(GLOB_RECURSE fixtures "${SHARED}/*.yaml")
list(SORT fixtures)
file(MAKE_DIRECTORY "${WORK}")

# The decisions of `tephra run --format json <args>`, without timing, into `out`.
function(decisions out)
  execute_process(COMMAND ${TEPHRA} run --format json ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE json ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    set(${out} "exit ${rc}: ${err}" PARENT_SCOPE)
    return()
  endif()
  string(JSON json ERROR_VARIABLE jerr REMOVE "${json}" timing)
  set(${out} "${json}${jerr}" PARENT_SCOPE)
endfunction()

set(failed 0)
list(LENGTH fixtures n)
foreach(f IN LISTS fixtures)
  get_filename_component(name "${f}" NAME_WE)
  set(kube "${WORK}/${name}.kube.yaml")
  set(back "${WORK}/${name}.yaml")
  execute_process(COMMAND ${TEPHRA} export kube "${f}" -o "${kube}" RESULT_VARIABLE rc1
                  ERROR_VARIABLE err1)
  execute_process(COMMAND ${TEPHRA} import kube "${kube}" -o "${back}" RESULT_VARIABLE rc2
                  ERROR_VARIABLE err2)
  if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0)
    message("FAIL ${f}: export exit ${rc1}, import exit ${rc2}\n${err1}${err2}")
    math(EXPR failed "${failed} + 1")
    continue()
  endif()
  decisions(want "${f}")
  decisions(got "${back}")
  if(NOT want STREQUAL got)
    message("FAIL ${f}: decisions differ after the round trip\n  before: ${want}\n  after:  ${got}")
    math(EXPR failed "${failed} + 1")
  endif()
endforeach()
message("kube.roundtrip: ${n} fixtures, ${failed} differ")
if(failed OR n EQUAL 0)
  message(FATAL_ERROR "kube.roundtrip: failed")
endif()
