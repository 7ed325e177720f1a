# Test `kube.realistic.*`: `tephra run --kube FILE --format json` makes exactly the binds in
# BINDS (pod=node entries, any order) and no eviction.
#   cmake -DTEPHRA=<tephra> -DFILE=<kubectl dump> "-DBINDS=ns/p=n;..." -P binds.cmake
cmake_minimum_required(VERSION 3.25)

execute_process(COMMAND ${TEPHRA} run --kube "${FILE}" --format json RESULT_VARIABLE rc
                OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tephra run --kube ${FILE}: exit ${rc}\n${err}")
endif()
string(JSON n LENGTH "${json}" binds)
set(got "")
if(n GREATER 0)
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON pod GET "${json}" binds ${i} pod)
    string(JSON node GET "${json}" binds ${i} node)
    list(APPEND got "${pod}=${node}")
  endforeach()
endif()
list(SORT got)
set(want ${BINDS})
list(SORT want)
string(JSON evictions LENGTH "${json}" evictions)
if(NOT got STREQUAL want OR NOT evictions EQUAL 0)
  message(FATAL_ERROR "binds: ${got}\nwanted: ${want}\nevictions: ${evictions}")
endif()
message("kube: ${FILE}: ${n} binds as expected")
