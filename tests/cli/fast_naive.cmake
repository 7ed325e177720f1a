# The exact shortcuts against Volcano's literal algorithms: every scenario decides the same
# (`tephra run --format json`, timing aside, byte for byte) in the default mode at one and two
# threads as with --naive (allocate's classes, preempt's and reclaim's bounds, refusal memo and
# class memo all off). The scenarios: generated profiles (PROFILES, entries
# `profile:seed:extra tephra gen options` with commas for spaces) written under WORK, and every
# *.yaml under FIXTURES (a fixture tephra run refuses must be refused alike in every mode).
#   cmake -DTEPHRA=<tephra> -DWORK=<scratch dir> [-DPROFILES=...] [-DFIXTURES=<dir>] -P fast_naive.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var TEPHRA WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "usage: cmake -DTEPHRA=... -DWORK=... [-DPROFILES=...] [-DFIXTURES=...] -P ${CMAKE_CURRENT_LIST_FILE}")
  endif()
endforeach()
file(MAKE_DIRECTORY "${WORK}")

# ${name}: stdout without the timing line and without the job and queue readouts, then the exit
# code; no failure on a non-zero exit. The readouts explain, they do not decide: a job's reason
# comes from the searches that ran, and a shortcut that skips a search known to fail (the
# hypernode search's memo) may leave a job explained by its topology where the literal search,
# which got as far as its queue's share before giving up, blames the share.
function(run name file)
  execute_process(COMMAND "${TEPHRA}" run "${file}" --format json ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_QUIET)
  string(REGEX REPLACE "\n  \"timing\": [^\n]*" "" out "${out}")
  set(${name}_all "${out}" PARENT_SCOPE) # readouts too: the same at any thread count
  string(FIND "${out}" "\n  \"jobs\": [" readouts)
  if(readouts GREATER -1)
    string(SUBSTRING "${out}" 0 ${readouts} out)
  endif()
  set(${name} "${out}\nexit ${rc}" PARENT_SCOPE)
endfunction()

set(compared 0)
set(evicting 0)
function(compare file)
  run(naive "${file}" --threads 1 --naive)
  run(fast1 "${file}" --threads 1)
  run(fast2 "${file}" --threads 2)
  foreach(mode fast1 fast2)
    if(NOT naive STREQUAL ${mode})
      get_filename_component(base "${file}" NAME_WE)
      file(WRITE "${WORK}/${base}.naive.json" "${naive}")
      file(WRITE "${WORK}/${base}.${mode}.json" "${${mode}}")
      message(FATAL_ERROR "${file}: ${mode} decides otherwise than --naive: "
                          "diff ${WORK}/${base}.naive.json ${WORK}/${base}.${mode}.json")
    endif()
  endforeach()
  if(NOT fast1_all STREQUAL fast2_all)
    get_filename_component(base "${file}" NAME_WE)
    file(WRITE "${WORK}/${base}.fast1.json" "${fast1_all}")
    file(WRITE "${WORK}/${base}.fast2.json" "${fast2_all}")
    message(FATAL_ERROR "${file}: the readouts differ between 1 and 2 threads: "
                        "diff ${WORK}/${base}.fast1.json ${WORK}/${base}.fast2.json")
  endif()
  math(EXPR n "${compared} + 1")
  set(compared ${n} PARENT_SCOPE)
  if(naive MATCHES "\"evictions\": \\[\n")
    math(EXPR n "${evicting} + 1")
    set(evicting ${n} PARENT_SCOPE)
  endif()
endfunction()

foreach(entry IN LISTS PROFILES)
  string(REPLACE ":" ";" parts "${entry}")
  list(GET parts 0 profile)
  list(GET parts 1 seed)
  set(extra "")
  list(LENGTH parts np)
  if(np GREATER 2)
    list(GET parts 2 extra)
    string(REPLACE "," ";" extra "${extra}")
  endif()
  set(file "${WORK}/${profile}-${seed}.yaml")
  execute_process(COMMAND "${TEPHRA}" gen ${profile} --seed ${seed} ${extra} --quiet -o "${file}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tephra gen ${profile} --seed ${seed} ${extra} failed (${rc})")
  endif()
  compare("${file}")
endforeach()

if(DEFINED FIXTURES AND NOT IS_DIRECTORY "${FIXTURES}")
  if(DEFINED ENV{TPH_REQUIRE_SHARED} AND NOT "$ENV{TPH_REQUIRE_SHARED}" MATCHES "^0?$")
    message(FATAL_ERROR "fast_naive: no fixture directory ${FIXTURES} (TPH_REQUIRE_SHARED is set)")
  endif()
  message("fast_naive: skipped (no fixture directory ${FIXTURES})")
  return()
endif()
if(DEFINED FIXTURES)
  file(GLOB_RECURSE fixtures "${FIXTURES}/*.yaml")
  list(FILTER fixtures EXCLUDE REGEX "/\\.")
  foreach(file IN LISTS fixtures)
    compare("${file}")
  endforeach()
endif()
if(compared EQUAL 0)
  message(FATAL_ERROR "no scenario compared")
endif()
if(evicting EQUAL 0)
  message(FATAL_ERROR "no scenario evicts: the comparison would prove little")
endif()
message("${compared} scenarios (${evicting} with evictions) decide alike fast at 1 and 2 threads and naive")
