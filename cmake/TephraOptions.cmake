# Build options: warnings, sanitizers, OpenMP and the build profiles (Release, Debug, Perf).
option(TPH_WERROR "Treat warnings as errors (CI turns this on)" OFF)
option(TPH_SANITIZE "Build with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
# The session arena's bump allocation hides overflows and leaks inside its chunks from
# LeakSanitizer and valgrind; this sends every arena allocation through malloc instead (slower,
# more memory, same decisions). cmake/test.cmake turns it on with the sanitizers.
option(TPH_ARENA_MALLOC "Each session arena allocation a malloc block (for LSan, valgrind)" OFF)
option(TPH_OPENMP "Run filtering and scoring across nodes with OpenMP" ON)
option(TPH_BENCH "Build the google-benchmark harness (needs libbenchmark-dev and g++)" ON)

set(CMAKE_C_STANDARD 11)
set(CMAKE_C_STANDARD_REQUIRED ON)
set(CMAKE_C_EXTENSIONS OFF)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Release, Debug, RelWithDebInfo or Perf" FORCE)
endif()

# Perf: optimised like Release, with frame pointers and debug info so perf can unwind.
# project() has already made CMAKE_<LANG>_FLAGS_PERF empty cache entries when Perf is the
# build type, which a plain set(... CACHE) would keep: fill them in when empty.
set(TPH_PERF_FLAGS "-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -DNDEBUG")
foreach(lang C CXX)
  if(NOT CMAKE_${lang}_FLAGS_PERF)
    set(CMAKE_${lang}_FLAGS_PERF "${TPH_PERF_FLAGS}" CACHE STRING "${lang} flags for the Perf profile"
        FORCE)
  endif()
endforeach()
set(CMAKE_EXE_LINKER_FLAGS_PERF "" CACHE STRING "")
set(CMAKE_SHARED_LINKER_FLAGS_PERF "" CACHE STRING "")

# Warnings that pay for themselves; applied to our own targets only.
set(TPH_WARNINGS -Wall -Wextra -Wshadow -Wpointer-arith -Wcast-align -Wwrite-strings
    -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wformat=2 -Wundef -Wnull-dereference
    -Wdouble-promotion -Wno-unused-parameter
    # Descriptors and spec tables only ever gain fields at the end; existing initializers that
    # leave the new trailing fields zero must keep compiling.
    -Wno-missing-field-initializers)
set(TPH_CXX_WARNINGS -Wall -Wextra -Wshadow -Wno-unused-parameter -Wno-missing-field-initializers)
if(TPH_WERROR)
  list(APPEND TPH_WARNINGS -Werror)
  list(APPEND TPH_CXX_WARNINGS -Werror)
endif()

if(TPH_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  add_compile_definitions(TPH_SANITIZE=1)
endif()
if(TPH_ARENA_MALLOC)
  add_compile_definitions(TPH_ARENA_MALLOC=1)
endif()

# Apply our warning set to a target.
function(tph_warnings target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:${TPH_WARNINGS}>
                                           $<$<COMPILE_LANGUAGE:CXX>:${TPH_CXX_WARNINGS}>)
endfunction()
