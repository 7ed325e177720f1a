# A scenario without a conf, run without --conf, gets Volcano's default conf and says so: its
# `--format json` decisions, timing aside, are the bytes that --conf with that conf as a file
# gives, and only the run without --conf prints the note on stderr.
#   cmake -DTEPHRA=<tephra> -DSCENARIO=<no-conf.yaml> -DCONF=<volcano-default.conf>
#         -P default_conf.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var TEPHRA SCENARIO CONF)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "usage: cmake -DTEPHRA=... -DSCENARIO=... -DCONF=... -P ${CMAKE_CURRENT_LIST_FILE}")
  endif()
endforeach()

include("${CMAKE_CURRENT_LIST_DIR}/decisions.cmake")
tph_decisions(fallback "${SCENARIO}" --format json)
tph_decisions(explicit "${SCENARIO}" --format json "--conf=${CONF}")
set(note "tephra: no conf given: using Volcano's default conf\n")
if(NOT fallback_err STREQUAL note)
  message(FATAL_ERROR "without a conf, stderr is not the one note `${note}`:\n${fallback_err}")
endif()
if(NOT explicit_err STREQUAL "")
  message(FATAL_ERROR "with --conf, stderr is not empty:\n${explicit_err}")
endif()
if(NOT fallback MATCHES "\"binds\": \\[\n    {\"pod\"")
  message(FATAL_ERROR "no binds: the comparison would prove nothing:\n${fallback}")
endif()
if(NOT fallback STREQUAL explicit)
  message(FATAL_ERROR "decisions differ:\n--- no conf:\n${fallback}--- --conf ${CONF}:\n${explicit}")
endif()
message("Volcano's default conf without a conf: the same decisions as --conf ${CONF}")
