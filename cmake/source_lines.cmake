# What the checks that read the project's sources line by line
# (check_layering.cmake, check_function_length.cmake) share: the root they
# were given, the files they read, and a file's text as a CMake list.

# The repository root a check was given (-DSOURCE_DIR), absolute and without
# a trailing slash; without one, `check` stops saying how to call it.
function(wb_source_root check out)
  if(NOT SOURCE_DIR)
    message(FATAL_ERROR "${check}: pass the repository root, "
                        "cmake -DSOURCE_DIR=/path/to/wirebench -P cmake/${check}")
  endif()
  cmake_path(ABSOLUTE_PATH SOURCE_DIR NORMALIZE OUTPUT_VARIABLE root)
  string(REGEX REPLACE "/$" "" root "${root}")
  set(${out} "${root}" PARENT_SCOPE)
endfunction()

# Every file under the project's own folders (not tests/), relative to
# `root`, sorted.
function(wb_source_files root out)
  file(GLOB_RECURSE files RELATIVE "${root}"
       "${root}/common/*" "${root}/rpc/*" "${root}/codecs/*" "${root}/nullregion/*"
       "${root}/regions/*" "${root}/transports/*" "${root}/hdr/*" "${root}/ycsb/*"
       "${root}/bench/*")
  list(SORT files)
  set(${out} "${files}" PARENT_SCOPE)
endfunction()

# A file's text as a list, one element a line, line numbers kept: what a
# CMake list treats specially is replaced first by a mark (`;` by
# <semicolon>, `[` by <lbracket>, `]` by <rbracket>, `\` by <backslash>),
# and carriage returns are dropped. wb_restore_line puts the characters back
# in one line.
set(_wb_marks semicolon lbracket rbracket backslash)
set(_wb_mark_semicolon ";")
set(_wb_mark_lbracket "[")
set(_wb_mark_rbracket "]")
set(_wb_mark_backslash "\\")

function(wb_split_lines content out)
  string(REPLACE "\r" "" content "${content}")
  foreach(mark IN LISTS _wb_marks)
    string(REPLACE "${_wb_mark_${mark}}" "<${mark}>" content "${content}")
  endforeach()
  string(REPLACE "\n" ";" lines "${content}")
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

function(wb_restore_line line out)
  foreach(mark IN LISTS _wb_marks)
    string(REPLACE "<${mark}>" "${_wb_mark_${mark}}" line "${line}")
  endforeach()
  set(${out} "${line}" PARENT_SCOPE)
endfunction()
