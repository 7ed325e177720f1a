# The check of examples/host: the program exits 0, prints exactly examples/host/expected.txt (its
# decisions are deterministic) and nothing on stderr (no warning went unseen). Test `example_host`
# runs it on the in-tree build; install.cmake includes it for the builds against installed files.
#   cmake "-DCMD=<program>[;args...]" -DEXPECTED=<expected.txt> -P host_output.cmake
cmake_minimum_required(VERSION 3.25)

function(check_host_output what expected)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(READ "${expected}" want)
  if(NOT rc EQUAL 0 OR NOT err STREQUAL "" OR NOT out STREQUAL want)
    message(FATAL_ERROR "${what}: exit ${rc}\n--- stderr:\n${err}--- stdout:\n${out}"
                        "--- expected (${expected}):\n${want}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  check_host_output("examples/host" "${EXPECTED}" ${CMD})
  message("examples/host: the expected decisions, no warning")
endif()
