# Helpers shared by the README's script commands (cmake/main.cmake, cmake/test.cmake), run in
# script mode (`cmake -P`): install the Debian packages the build needs, then configure and build
# quietly, with each step's output in <build>/logs/<step>.log and only its tail shown on failure.

get_filename_component(TPH_SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

# Everything the build and the tests need beyond gcc and cmake. `make` backs CMake's default
# generator; a cmake installed without recommends does not bring it.
set(TPH_DEBIAN_PACKAGES
    make g++ libc6-dev pkg-config libyaml-dev libjemalloc-dev libcurl4-openssl-dev libpcre2-dev libcmocka-dev
    libbenchmark-dev clang-format libxml2-utils)
# The Python binding's test (tests/bindings/python.cmake) runs Debian's python3, when there is
# one, with its venv, pytest, setuptools and wheel: `pip install bindings/python` offline.
set(TPH_DEBIAN_PYTHON_PACKAGES python3-venv python3-pytest python3-setuptools python3-wheel)

# The shared/ directory beside the repository (fixtures, datasets); TPH_SHARED_DIR overrides.
function(tph_shared_dir out)
  if(DEFINED ENV{TPH_SHARED_DIR} AND NOT "$ENV{TPH_SHARED_DIR}" STREQUAL "")
    get_filename_component(dir "$ENV{TPH_SHARED_DIR}" ABSOLUTE)
  else()
    get_filename_component(dir "${TPH_SOURCE_DIR}/../shared" ABSOLUTE)
  endif()
  set(${out} "${dir}" PARENT_SCOPE)
endfunction()

# Print the last lines of a log to stderr, then stop with `what` as the error.
function(tph_fail_with_log what log)
  execute_process(COMMAND tail -n 60 "${log}" OUTPUT_VARIABLE tail)
  message("${tail}")  # not in FATAL_ERROR, which would re-wrap the lines
  message(FATAL_ERROR "${what} (full log: ${log})")
endfunction()

# Run a command with its output going to <logdir>/<name>.log; stop and show the tail on failure.
function(tph_step name logdir)
  file(MAKE_DIRECTORY "${logdir}")
  set(log "${logdir}/${name}.log")
  execute_process(COMMAND ${ARGN} OUTPUT_FILE "${log}" ERROR_FILE "${log}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    tph_fail_with_log("${name} failed (${rc})" "${log}")
  endif()
endfunction()

# Install whichever of TPH_DEBIAN_PACKAGES are missing: nothing at all when every one is there,
# otherwise one `apt-get update` and one `apt-get install`. Needs root only when it has work to do.
function(tph_install_missing_packages logdir)
  find_program(DPKG_QUERY dpkg-query)
  if(NOT DPKG_QUERY)
    message(NOTICE "tephra: no dpkg-query (not Debian?): install the equivalents of "
                   "${TPH_DEBIAN_PACKAGES} yourself")
    return()
  endif()
  set(missing "")
  set(wanted ${TPH_DEBIAN_PACKAGES})
  if(EXISTS /usr/bin/python3)
    list(APPEND wanted ${TPH_DEBIAN_PYTHON_PACKAGES})
  endif()
  foreach(pkg IN LISTS wanted)
    execute_process(COMMAND "${DPKG_QUERY}" -W "--showformat=\${Status}" "${pkg}"
                    OUTPUT_VARIABLE status ERROR_QUIET)
    if(NOT status MATCHES "install ok installed")
      list(APPEND missing "${pkg}")
    endif()
  endforeach()
  if(NOT missing)
    return()
  endif()
  list(JOIN missing " " names)
  set(cmd "apt-get update && apt-get install -y --no-install-recommends ${names}")
  execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT uid STREQUAL "0")
    message(FATAL_ERROR "tephra: missing Debian packages: ${names}\n"
                        "Install them as root, then run this again:\n  sudo sh -c '${cmd}'")
  endif()
  message(NOTICE "tephra: installing missing Debian packages: ${names} (log: ${logdir}/apt.log)")
  set(ENV{DEBIAN_FRONTEND} noninteractive)
  file(MAKE_DIRECTORY "${logdir}")
  set(log "${logdir}/apt.log")
  execute_process(COMMAND sh -c "${cmd}" OUTPUT_FILE "${log}" ERROR_FILE "${log}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    tph_fail_with_log("tephra: could not install ${names}; by hand, as root: ${cmd}" "${log}")
  endif()
endfunction()

# Configure `build` from the source tree with the given cache arguments and build `target`
# (all targets when empty) on every core. Logs: <build>/logs/configure.log and build.log.
# No -G: a fresh tree gets the default generator, an existing one keeps the one it has.
function(tph_configure_and_build build target)
  cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
  tph_step(configure "${build}/logs" "${CMAKE_COMMAND}" -S "${TPH_SOURCE_DIR}" -B "${build}" ${ARGN})
  set(target_args "")
  if(target)
    set(target_args --target "${target}")
  endif()
  tph_step(build "${build}/logs" "${CMAKE_COMMAND}" --build "${build}" --parallel ${cores}
           ${target_args})
endfunction()
