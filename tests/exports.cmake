# Test `exports`: the shared library exports the public API only — every defined dynamic symbol
# starts with tph_ (linker-defined markers aside).
#   cmake -DLIB=<libtephra.so> -P exports.cmake
cmake_minimum_required(VERSION 3.25)
find_program(NM nm REQUIRED)
execute_process(COMMAND "${NM}" -D --defined-only "${LIB}" OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exports: nm failed on ${LIB}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(bad "")
set(n 0)
foreach(l IN LISTS lines)
  if(l MATCHES "^[0-9a-fA-F]* +[A-Za-z] +([^ ]+)$")
    set(sym "${CMAKE_MATCH_1}")
    math(EXPR n "${n} + 1")
    # __odr_asan.<global>: AddressSanitizer's ODR indicator of each exported global (the
    # sanitizer build), which follows that global's name.
    if(NOT sym MATCHES "^(__odr_asan\\.)?tph_" AND
       NOT sym MATCHES "^(_init|_fini|_edata|_end|__bss_start)$")
      list(APPEND bad "${sym}")
    endif()
  endif()
endforeach()
if(bad)
  list(JOIN bad " " text)
  message(FATAL_ERROR "exports: ${LIB} exports symbols outside the API: ${text}")
endif()
if(n LESS 50)
  message(FATAL_ERROR "exports: only ${n} symbols: is the API exported at all?")
endif()
message("exports: ${n} symbols, all tph_*")
