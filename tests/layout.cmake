# Test `layout`: the house's rules, checked on every quoted #include (README, "Layout").
#   cmake -DSOURCE_DIR=<repository root> -P layout.cmake
# - kernel/src folders depend downwards only: base <- cache <- load <- session (session/topo is
#   part of session); nothing in kernel/src includes from kernel/actions or plugins/.
# - kernel/ never includes a plugin's header.
# - plugins/ include public headers (tephra/...) and their own: a header beside the file, or one
#   of plugins/lib/ (the helpers plugins share).
# - No internal header shares a public header's name (SQLite's sqliteInt.h habit).
cmake_minimum_required(VERSION 3.25)

set(ranks base cache load session)
set(errors "")

function(includes_of file out)
  file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]+\"")
  set(result "")
  foreach(l IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*" "\\1" inc "${l}")
    list(APPEND result "${inc}")
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

file(GLOB public RELATIVE "${SOURCE_DIR}/kernel/include/tephra" "${SOURCE_DIR}/kernel/include/tephra/*.h")

# kernel/src
file(GLOB_RECURSE core RELATIVE "${SOURCE_DIR}/kernel/src" "${SOURCE_DIR}/kernel/src/*.c"
     "${SOURCE_DIR}/kernel/src/*.h")
foreach(f IN LISTS core)
  string(REGEX REPLACE "/.*" "" folder "${f}")
  list(FIND ranks "${folder}" mine)
  if(mine LESS 0)
    list(APPEND errors "kernel/src/${f}: not in a known folder (${ranks})")
    continue()
  endif()
  get_filename_component(dir "${SOURCE_DIR}/kernel/src/${f}" DIRECTORY)
  get_filename_component(name "${f}" NAME)
  if(name MATCHES "\\.h$" AND name IN_LIST public)
    list(APPEND errors "kernel/src/${f}: shares the name of tephra/${name}")
  endif()
  includes_of("${SOURCE_DIR}/kernel/src/${f}" incs)
  foreach(inc IN LISTS incs)
    if(inc MATCHES "^tephra/" OR EXISTS "${dir}/${inc}")
      continue()
    endif()
    string(REGEX REPLACE "/.*" "" top "${inc}")
    list(FIND ranks "${top}" theirs)
    if(theirs LESS 0)
      list(APPEND errors "kernel/src/${f}: includes \"${inc}\" from outside kernel/src")
    elseif(theirs GREATER mine)
      list(APPEND errors "kernel/src/${f}: ${folder}/ includes \"${inc}\" from a later folder")
    endif()
  endforeach()
endforeach()

# kernel/actions and kernel/cli: anything of the kernel, nothing of plugins/
file(GLOB_RECURSE upper RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/kernel/actions/*.[ch]"
     "${SOURCE_DIR}/kernel/cli/*.[ch]")
foreach(f IN LISTS upper)
  get_filename_component(name "${f}" NAME)
  if(name MATCHES "\\.h$" AND name IN_LIST public)
    list(APPEND errors "${f}: shares the name of tephra/${name}")
  endif()
  includes_of("${SOURCE_DIR}/${f}" incs)
  foreach(inc IN LISTS incs)
    if(inc MATCHES "plugins/" OR EXISTS "${SOURCE_DIR}/plugins/${inc}")
      list(APPEND errors "${f}: includes the plugin header \"${inc}\"")
    endif()
  endforeach()
endforeach()

# plugins/
file(GLOB_RECURSE plugin_files RELATIVE "${SOURCE_DIR}/plugins" "${SOURCE_DIR}/plugins/*.[ch]")
foreach(f IN LISTS plugin_files)
  get_filename_component(dir "${SOURCE_DIR}/plugins/${f}" DIRECTORY)
  includes_of("${SOURCE_DIR}/plugins/${f}" incs)
  foreach(inc IN LISTS incs)
    if(inc MATCHES "^tephra/" OR EXISTS "${dir}/${inc}"
       OR (inc MATCHES "^lib/[^/]+$" AND EXISTS "${SOURCE_DIR}/plugins/${inc}"))
      continue()
    endif()
    list(APPEND errors "plugins/${f}: includes \"${inc}\", which is neither public nor the plugin's own")
  endforeach()
endforeach()

if(errors)
  list(JOIN errors "\n  " text)
  message(FATAL_ERROR "layout:\n  ${text}")
endif()
message("layout: kernel/src folders, plugin includes and header names as README's Layout says")
