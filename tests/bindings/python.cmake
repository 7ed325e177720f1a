# Test `bindings.python`: the Python binding (bindings/python) as a user gets it: a venv under
# WORK, `pip install bindings/python` into it (no index, no build isolation: nothing is
# downloaded), then pytest on bindings/python/tests importing the installed package, with the
# library of this build ($TEPHRA_LIBRARY). The interpreter is $TPH_PYTHON, else Debian's
# /usr/bin/python3 (cmake/deps.cmake installs its pytest, venv and wheel), else python3.
#   cmake -DSOURCE_DIR=<root> -DLIB=<libtephra.so> -DTEPHRA=<tephra CLI> -DWORK=<scratch dir>
#         -P python.cmake
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")

if(DEFINED ENV{TPH_PYTHON} AND NOT "$ENV{TPH_PYTHON}" STREQUAL "")
  set(PYTHON "$ENV{TPH_PYTHON}")
elseif(EXISTS /usr/bin/python3)
  set(PYTHON /usr/bin/python3)
else()
  find_program(PYTHON python3)
endif()
if(NOT PYTHON)
  bindings_skip(bindings.python "no python3")
  return()
endif()

# What the steps below need of the interpreter, said at once rather than as a pip traceback.
execute_process(COMMAND "${PYTHON}" -c [[
import importlib.util as u
need = [m for m in ("venv", "ensurepip", "pytest", "setuptools", "wheel") if not u.find_spec(m)]
print(" ".join(need))
]] OUTPUT_VARIABLE missing OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT missing STREQUAL "")
  message("bindings.python: ${PYTHON} lacks: ${missing} (on Debian: apt-get install "
          "python3-venv python3-pytest python3-setuptools python3-wheel; "
          "`cmake -P cmake/test.cmake` does it; or set TPH_PYTHON to an interpreter that has them)")
  message(FATAL_ERROR "bindings.python: failed")
endif()

# The venv sees the interpreter's own packages (pytest, setuptools, wheel); it is kept between
# runs, the binding reinstalled every time from a copy of its tree (pip builds in the tree it is
# given, and the source tree stays clean).
set(venv "${WORK}/venv")
if(NOT EXISTS "${venv}/bin/python")
  bindings_run(bindings.python "python3 -m venv" COMMAND "${PYTHON}" -m venv --system-site-packages "${venv}")
endif()
file(REMOVE_RECURSE "${WORK}/src")
file(COPY "${SOURCE_DIR}/bindings/python/" DESTINATION "${WORK}/src"
     PATTERN "__pycache__" EXCLUDE PATTERN "*.egg-info" EXCLUDE)
set(ENV{PIP_CONFIG_FILE} /dev/null)
bindings_run(bindings.python "pip install bindings/python"
             COMMAND "${venv}/bin/python" -m pip install --no-index --no-build-isolation --no-deps
                     --force-reinstall --no-cache-dir --disable-pip-version-check --quiet "${WORK}/src")

set(ENV{TEPHRA_LIBRARY} "${LIB}")
set(ENV{TEPHRA_CLI} "${TEPHRA}")
set(ENV{TEPHRA_EXPECT_INSTALLED} 1)
set(ENV{PYTHONDONTWRITEBYTECODE} 1)
unset(ENV{PYTHONPATH})
bindings_run(bindings.python "pytest" DIR "${WORK}" OUTPUT out
             COMMAND "${venv}/bin/python" -m pytest -q -p no:cacheprovider
                     "${SOURCE_DIR}/bindings/python/tests")
message("${out}")
