# Test `kube.bad`: every kubectl dump in tests/bad/kube fails `tephra import kube` with exit 2
# and the located message its line in tests/bad/kube/EXPECTED.txt gives (`FILE<TAB>text`): the
# message must start `FILE:LINE:COL: ` and contain the text.
#   cmake -DTEPHRA=<tephra> -DDIR=<tests/bad/kube> -P bad.cmake
cmake_minimum_required(VERSION 3.25)

file(STRINGS "${DIR}/EXPECTED.txt" lines REGEX "^[^#]")
file(GLOB inputs RELATIVE "${DIR}" "${DIR}/*.yaml" "${DIR}/*.json")
set(failed 0)
set(listed "")
foreach(line IN LISTS lines)
  string(REGEX MATCH "^([^\t]+)\t(.*)$" m "${line}")
  set(file "${CMAKE_MATCH_1}")
  set(want "${CMAKE_MATCH_2}")
  list(APPEND listed "${file}")
  execute_process(COMMAND ${TEPHRA} import kube "${DIR}/${file}" -o - RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(FIND "${err}" "${want}" at)
  if(NOT rc EQUAL 2 OR at LESS 0 OR NOT err MATCHES "${file}:[0-9]+:[0-9]+: " OR NOT out STREQUAL "")
    message("FAIL ${file}: exit ${rc}, stderr: ${err}   want: ${want}")
    math(EXPR failed "${failed} + 1")
  endif()
endforeach()
foreach(f IN LISTS inputs)
  if(NOT f IN_LIST listed)
    message("FAIL ${f}: not in EXPECTED.txt")
    math(EXPR failed "${failed} + 1")
  endif()
endforeach()
list(LENGTH listed n)
message("kube.bad: ${n} bad inputs, ${failed} failed")
if(failed)
  message(FATAL_ERROR "kube.bad: failed")
endif()
