# `tephra simulate` end to end (sim/README.md): a run writes JSON lines whose every line parses
# with the keys the README lists, and an HTML report that xmllint finds well-formed (as XML: the
# page is XHTML with inline SVG) with every plot present by id; a second run gives the same JSON
# lines once the timing keys are removed.
#   cmake -DTEPHRA=<tephra> -DWORK=<dir> -DNAME=<name> -DRUNS=<summaries> -DPLOTS=<ids>
#         [-DNOSKIP=1] [-DCAPACITY=1] [-DALIBABA=<trace dir> -DLIMIT=<pods>] [-DITP=<csv>]
#         -P simulate.cmake -- <simulate arguments>
# NOSKIP: a third run with --no-skip must decide the same. CAPACITY=<stop %>: no cycle lines
# expected, the curve reaches the stop with at least MIN_ARRIVALS arrivals.
# With ALIBABA, the first LIMIT pods of the trace are imported with their durations and the
# scenario is the first argument; a missing trace skips (`simulate: skipped (...)`), or fails
# when TPH_REQUIRE_SHARED is set.
cmake_minimum_required(VERSION 3.25)

set(args "")
set(after FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after)
    list(APPEND args "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(after TRUE)
  endif()
endforeach()
file(MAKE_DIRECTORY "${WORK}")
find_program(XMLLINT xmllint REQUIRED)

if(DEFINED ITP)  # a small ITP cluster file: its jobs carry elasticflow/duration
  execute_process(COMMAND "${TEPHRA}" import itp "${ITP}" --nodes 4 -o "${WORK}/${NAME}.yaml"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "import itp failed:\n${err}")
  endif()
  list(PREPEND args "${WORK}/${NAME}.yaml")
endif()
if(DEFINED ALIBABA)
  if(DEFINED ENV{TPH_SHARED_DIR} AND NOT "$ENV{TPH_SHARED_DIR}" STREQUAL "")
    set(ALIBABA "$ENV{TPH_SHARED_DIR}/datasets/alibaba-openb-gpu2023")  # as the other tests do
  endif()
  if(NOT EXISTS "${ALIBABA}/openb_pod_list_default.csv")
    if(DEFINED ENV{TPH_REQUIRE_SHARED} AND NOT "$ENV{TPH_REQUIRE_SHARED}" MATCHES "^(0|)$")
      message(FATAL_ERROR "${ALIBABA} is missing (TPH_REQUIRE_SHARED is set)")
    endif()
    message("simulate: skipped (${ALIBABA} is missing)")
    return()
  endif()
  execute_process(COMMAND "${TEPHRA}" import alibaba "${ALIBABA}" --durations --limit ${LIMIT}
                          -o "${WORK}/${NAME}.yaml" RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "import alibaba failed:\n${err}")
  endif()
  list(PREPEND args "${WORK}/${NAME}.yaml")
endif()

function(simulate tag)
  execute_process(COMMAND "${TEPHRA}" simulate ${args} ${ARGN} --jsonl "${WORK}/${NAME}-${tag}.jsonl"
                          --html "${WORK}/${NAME}-${tag}.html"
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tephra simulate ${args} exited ${rc}:\n${out}${err}")
  endif()
endfunction()
simulate(a --threads 1)
simulate(b --threads 2)

# Every line is an object with these keys; the last one per run is the summary.
set(cycle_keys run t cycles alloc.cpu alloc.memory alloc.gpu pending_tasks running_tasks pending_jobs
    running_jobs arrivals completions binds evictions pipelined frag queues session_ms)
set(job_keys run job queue pods min_member arrival start wait end)
set(summary_keys run cycles sessions binds evictions jobs_started jobs_done wait_s.p50 wait_s.p90
    wait_s.p99 mean_alloc.gpu mean_frag session_ms wall_ms)
file(STRINGS "${WORK}/${NAME}-a.jsonl" lines)
set(n_cycles 0)
set(n_summaries 0)
set(n_jobs 0)
set(binds 0)
foreach(line IN LISTS lines)
  string(JSON summary ERROR_VARIABLE e GET "${line}" summary)
  string(JSON job ERROR_VARIABLE no_job GET "${line}" job)
  if(NOT no_job)
    set(keys ${job_keys})
    math(EXPR n_jobs "${n_jobs} + 1")
  elseif(e)
    set(keys ${cycle_keys})
    math(EXPR n_cycles "${n_cycles} + 1")
  else()
    set(keys ${summary_keys})
    math(EXPR n_summaries "${n_summaries} + 1")
    string(JSON b GET "${line}" binds)
    math(EXPR binds "${binds} + ${b}")
    if(DESERVED)  # whose deserved the queue plot shows: the session's readout when it has one
      string(JSON src GET "${line}" deserved_source)
      if(NOT src STREQUAL DESERVED)
        message(FATAL_ERROR "${NAME}: deserved_source ${src}, expected ${DESERVED}")
      endif()
    endif()
    if(CAPACITY)  # the curve reaches the stop percentage, inflating the workload if it must
      string(JSON reached GET "${line}" capacity final_request_pct)
      string(JSON arrivals GET "${line}" capacity arrivals)
      if(reached LESS CAPACITY OR arrivals LESS MIN_ARRIVALS)
        message(FATAL_ERROR "capacity: ${arrivals} arrivals reached ${reached}%, not ${CAPACITY}%")
      endif()
    endif()
  endif()
  foreach(k IN LISTS keys)
    string(REPLACE "." ";" path "${k}")
    string(JSON v ERROR_VARIABLE e GET "${line}" ${path})
    if(e)
      message(FATAL_ERROR "${NAME}-a.jsonl: no key ${k} in: ${line}\n${e}")
    endif()
  endforeach()
endforeach()
if((n_cycles EQUAL 0 AND NOT CAPACITY) OR binds EQUAL 0 OR n_jobs EQUAL 0)
  message(FATAL_ERROR "${NAME}: ${n_cycles} cycle lines, ${n_jobs} job lines and ${binds} binds: "
                      "the run proves nothing")
endif()
if(NOT n_summaries EQUAL RUNS)
  message(FATAL_ERROR "${NAME}: ${n_summaries} summary lines, expected ${RUNS}")
endif()

# Same workload, same seed, 1 or 2 threads: same lines but for the timing keys.
function(untimed file out)
  file(READ "${file}" text)
  string(REGEX REPLACE "\"[a-z_]*_ms\":[-0-9.e+]+" "" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
untimed("${WORK}/${NAME}-a.jsonl" a)
untimed("${WORK}/${NAME}-b.jsonl" b)
if(NOT a STREQUAL b)
  message(FATAL_ERROR "${NAME}: two runs differ beyond timing: diff ${WORK}/${NAME}-a.jsonl ${WORK}/${NAME}-b.jsonl")
endif()

# Skipping idle cycles is exact: running every cycle decides the same (the summaries agree but
# for the sessions run and the timing).
if(NOSKIP)
  simulate(all --no-skip)
  function(summaries file out)
    file(STRINGS "${file}" s REGEX "\"summary\":true")
    string(REGEX REPLACE "\"([a-z_]*_ms|sessions)\":[-0-9.e+]+" "" s "${s}")
    set(${out} "${s}" PARENT_SCOPE)
  endfunction()
  summaries("${WORK}/${NAME}-a.jsonl" skipped)
  summaries("${WORK}/${NAME}-all.jsonl" every)
  if(NOT skipped STREQUAL every)
    message(FATAL_ERROR "${NAME}: --no-skip decides otherwise:\n${skipped}\n${every}")
  endif()
endif()

set(html "${WORK}/${NAME}-a.html")
execute_process(COMMAND "${XMLLINT}" --noout "${html}" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${html} is not well-formed:\n${err}")
endif()
file(READ "${html}" page)
if(page MATCHES "(src|href)=\"(https?:)?//")
  message(FATAL_ERROR "${html} fetches something from the network")
endif()
foreach(id IN LISTS PLOTS)
  execute_process(COMMAND "${XMLLINT}" --xpath
                          "count(//*[local-name()='svg' and @id='${id}']//*[local-name()='polyline'])"
                          "${html}" OUTPUT_VARIABLE count RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR count LESS 1)
    message(FATAL_ERROR "${html}: no plot with id ${id} (or it has no line)")
  endif()
  # Each plot on its own is a well-formed SVG document too.
  execute_process(COMMAND "${XMLLINT}" --xpath "//*[local-name()='svg' and @id='${id}']" "${html}"
                  OUTPUT_FILE "${WORK}/${NAME}-${id}.svg" RESULT_VARIABLE rc)
  execute_process(COMMAND "${XMLLINT}" --noout "${WORK}/${NAME}-${id}.svg" RESULT_VARIABLE rc
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${id}: not a well-formed SVG:\n${err}")
  endif()
endforeach()
message("${NAME}: ${n_cycles} cycles, ${binds} binds, same lines twice, report well-formed with ${PLOTS}")
