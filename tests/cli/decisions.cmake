# Included by the CLI test scripts: tph_decisions(<name> <tephra run arguments>...) runs
# `${TEPHRA} run <arguments>` and sets ${name} to its stdout without the `--format json` timing
# line (the only part that differs from run to run) and ${name}_err to its stderr. A non-zero
# exit fails the test.
function(tph_decisions name)
  execute_process(COMMAND "${TEPHRA}" run ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " args)
    message(FATAL_ERROR "tephra run ${args} failed (${rc}):\n${err}")
  endif()
  string(REGEX REPLACE "\n  \"timing\": [^\n]*" "" out "${out}")
  set(${name} "${out}" PARENT_SCOPE)
  set(${name}_err "${err}" PARENT_SCOPE)
endfunction()
