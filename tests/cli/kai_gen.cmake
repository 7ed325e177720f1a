# The 10k-gpu profile (a KAI scenario) decides the same, byte for byte (`tephra run --format
# json`), at one and two threads, twice at one thread, and with --naive (allocate's literal
# loops: every node sorted per task, every queued job compared per pick). PROFILES: entries
# `seed:extra tephra gen options` (commas for spaces), written under WORK. The scenario runs KAI's
# default conf; while an action of it is not built (the run stops with "not built yet"), the
# default conf's built actions run instead, with its tiers, and the test says so. ACTIONS (a
# comma list), when given, is the conf's actions instead: in --naive mode the solver's reclaim
# and consolidation take minutes on the larger cuts (every scenario simulated, docs/kai.md), so
# ctest runs them there without those two, and the whole default conf on smaller cuts.
#   cmake -DTEPHRA=<tephra> -DWORK=<scratch dir> -DPROFILES=... [-DACTIONS=...] -P kai_gen.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var TEPHRA WORK PROFILES)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "usage: cmake -DTEPHRA=... -DWORK=... -DPROFILES=... -P ${CMAKE_CURRENT_LIST_FILE}")
  endif()
endforeach()
file(MAKE_DIRECTORY "${WORK}")

# ${name}: stdout, then the exit code.
function(run name file)
  execute_process(COMMAND "${TEPHRA}" run "${file}" --format json ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${name} "${out}\nexit ${rc}" PARENT_SCOPE)
  set(${name}_err "${err}" PARENT_SCOPE)
endfunction()

# The conf to run: none (the scenario's default) when every action is built, else a conf of
# the built ones.
set(conf_args "")
set(dropped "")
set(all_actions allocate consolidation reclaim preempt stalegangeviction)
if(DEFINED ACTIONS)
  string(REPLACE "," ";" all_actions "${ACTIONS}")
  string(REPLACE " " "" all_actions "${all_actions}")
  list(JOIN all_actions ", " actions)
  file(WRITE "${WORK}/built.conf" "actions: \"${actions}\"\n")
  set(conf_args --conf "${WORK}/built.conf")
  message(STATUS "kai_gen: actions ${actions}")
endif()
foreach(action ${all_actions})
  file(WRITE "${WORK}/trial.conf" "actions: \"${action}\"\n")
  file(WRITE "${WORK}/trial.yaml" "flavour: kai\nname: trial\n")
  execute_process(COMMAND "${TEPHRA}" run "${WORK}/trial.yaml" --conf "${WORK}/trial.conf"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(rc EQUAL 0)
    list(APPEND built "${action}")
  elseif(err MATCHES "not built yet")
    list(APPEND dropped "${action}")
  else()
    message(FATAL_ERROR "a trial run of ${action} failed: ${err}")
  endif()
endforeach()
if(dropped AND NOT DEFINED ACTIONS)
  list(JOIN built ", " actions)
  file(WRITE "${WORK}/built.conf" "actions: \"${actions}\"\n")
  set(conf_args --conf "${WORK}/built.conf")
  message(STATUS "kai_gen: KAI's default conf without ${dropped} (not built yet)")
endif()

foreach(entry IN LISTS PROFILES)
  string(REPLACE ":" ";" parts "${entry}")
  list(GET parts 0 seed)
  list(GET parts 1 extra)
  string(REPLACE "," ";" extra "${extra}")
  set(file "${WORK}/10k-gpu-${seed}.yaml")
  execute_process(COMMAND "${TEPHRA}" gen 10k-gpu --seed ${seed} ${extra} --quiet -o "${file}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tephra gen 10k-gpu --seed ${seed} ${extra} failed (${rc})")
  endif()
  run(one "${file}" ${conf_args} --threads 1)
  if(NOT one MATCHES "\"binds\": \\[\n    {\"pod\": " OR NOT one MATCHES "exit 0$")
    message(FATAL_ERROR "${file}: no binds, or the run failed: ${one}${one_err}")
  endif()
  foreach(mode again two naive)
    set(flags --threads 1)
    if(mode STREQUAL "two")
      set(flags --threads 2)
    elseif(mode STREQUAL "naive")
      set(flags --threads 1 --naive)
    endif()
    run(other "${file}" ${conf_args} ${flags})
    if(NOT one STREQUAL other)
      file(WRITE "${WORK}/${seed}.one.json" "${one}")
      file(WRITE "${WORK}/${seed}.${mode}.json" "${other}")
      message(FATAL_ERROR "${file}: ${flags} decides otherwise: "
                          "diff ${WORK}/${seed}.one.json ${WORK}/${seed}.${mode}.json")
    endif()
  endforeach()
endforeach()
list(LENGTH PROFILES n)
message(STATUS "kai_gen: ${n} generated 10k-gpu scenarios decide alike at 1 and 2 threads, twice, and with --naive")
