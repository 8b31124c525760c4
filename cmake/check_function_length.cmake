# No function of the project's own code (common/, rpc/, codecs/, nullregion/,
# regions/, transports/, hdr/, ycsb/, bench/; not tests/, not generated code,
# which lives in the build tree) is longer than MAX_LINES lines, from the line
# of its opening brace to the line of its closing one: a longer one is split
# into named pieces. A CTest test runs this with -DSOURCE_DIR=...
#   cmake -DSOURCE_DIR=/path/to/wirebench [-DMAX_LINES=80] -P cmake/check_function_length.cmake
#
# Braces are counted outside comments, string and character literals and
# preprocessor lines. A brace opens a function body when it is not inside
# one already and what stands before it since the last `;`, `{` or `}` has a
# `)` (a parameter list), is no namespace, class, struct, union or enum head
# and does not end in `=` (an initializer). A lambda or local class counts
# towards the function it is in.
#
# Fails listing every function over the limit as FILE:LINE: NAME, N lines.
cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/source_lines.cmake)

wb_source_root(check_function_length.cmake _root)
if(NOT MAX_LINES)
  set(MAX_LINES 80)
endif()

# What a brace at `depth` opens, from the text before it (`head`): ns (a
# namespace or extern "C" block), class (a class, struct, union or enum
# body), fn (a function body) or block (anything else: an initializer).
function(_brace_kind head out)
  if(head MATCHES "(^|[^A-Za-z0-9_])namespace([^A-Za-z0-9_]|$)" OR head MATCHES "extern *\"\"")
    set(${out} ns PARENT_SCOPE)
  elseif(head MATCHES "(^|[^A-Za-z0-9_])(class|struct|union|enum)[^A-Za-z0-9_][^()]*$")
    set(${out} class PARENT_SCOPE)
  elseif(head MATCHES "\\)" AND NOT head MATCHES "=[ \t]*$")
    set(${out} fn PARENT_SCOPE)
  else()
    set(${out} block PARENT_SCOPE)
  endif()
endfunction()

# The name a function's head declares, for the message: the first name
# before a `(`, template arguments left out ("-" when there is none).
function(_function_name head out)
  string(REGEX REPLACE "<[^<>]*>" "" head "${head}")
  string(REGEX REPLACE "<[^<>]*>" "" head "${head}")
  set(${out} "-" PARENT_SCOPE)
  if(head MATCHES "([A-Za-z_~][A-Za-z0-9_:~]*)[ \t]*\\(")
    set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  endif()
endfunction()

set(_bad "")
set(_functions 0)
wb_source_files("${_root}" _files)
foreach(rel IN LISTS _files)
  if(NOT rel MATCHES "\\.(h|cc)$" OR rel MATCHES "(\\.pb\\.|_generated\\.|\\.capnp\\.)")
    continue()
  endif()
  file(READ "${_root}/${rel}" content)
  wb_split_lines("${content}" lines)

  set(n 0)
  set(in_comment FALSE)
  set(in_directive FALSE)
  set(kinds "")   # The open braces' kinds, innermost last.
  set(starts "")  # Their lines.
  set(names "")   # Their functions' names ("-" for any other brace).
  set(heads "")   # The text before each ("h:" and the text).
  set(head "")
  foreach(l IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(in_directive)
      if(NOT l MATCHES "<backslash>$")
        set(in_directive FALSE)
      endif()
      continue()
    endif()
    if(in_comment)
      string(FIND "${l}" "*/" close)
      if(close EQUAL -1)
        continue()
      endif()
      math(EXPR close "${close} + 2")
      string(SUBSTRING "${l}" ${close} -1 l)
      set(in_comment FALSE)
    endif()
    if(l MATCHES "^[ \t]*#")
      if(l MATCHES "<backslash>$")
        set(in_directive TRUE)
      endif()
      continue()
    endif()
    # `@` stands for `;` from here on; brackets do not matter.
    string(REPLACE "@" " " l "${l}")
    string(REPLACE "<semicolon>" "@" l "${l}")
    string(REPLACE "<lbracket>" " " l "${l}")
    string(REPLACE "<rbracket>" " " l "${l}")
    string(REPLACE "<backslash>" "\\" l "${l}")
    # Character literals (not a digit separator, 1'000: no letter before the
    # quote), then strings, then comments.
    string(REGEX REPLACE "(^|[^A-Za-z0-9_])'([^'\\\\]|\\\\.)+'" "\\1''" l "${l}")
    string(REGEX REPLACE "\"([^\"\\\\]|\\\\.)*\"" "\"\"" l "${l}")
    string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" " " l "${l}")
    string(REGEX REPLACE "//.*$" "" l "${l}")
    string(FIND "${l}" "/*" open)
    if(NOT open EQUAL -1)
      string(SUBSTRING "${l}" 0 ${open} l)
      set(in_comment TRUE)
    endif()
    string(REPLACE "\\" " " l "${l}")  # None is left that matters; none may escape a `;`.
    if(NOT l MATCHES "[{}@]")
      string(APPEND head " ${l}")
      continue()
    endif()
    string(REGEX MATCHALL "[{}@]|[^{}@]+" tokens "${l}")
    foreach(t IN LISTS tokens)
      if(t STREQUAL "{")
        set(kind block)
        set(name "-")
        if(NOT kinds MATCHES "(fn|block|init)")
          _brace_kind("${head}" kind)
          # A member's brace initializer in a constructor's list, `) : a_{1}`.
          if(kind STREQUAL "fn" AND head MATCHES "\\)[^(){}]*[^:]:[^:].*[A-Za-z0-9_>][ \t]*$")
            set(kind init)
          elseif(kind STREQUAL "fn")
            _function_name("${head}" name)
          endif()
        endif()
        list(APPEND kinds ${kind})
        list(APPEND starts ${n})
        list(APPEND names "${name}")
        list(APPEND heads "h:${head}")
        set(head "")
      elseif(t STREQUAL "}")
        if(NOT kinds STREQUAL "")
          list(POP_BACK kinds kind)
          list(POP_BACK starts start)
          list(POP_BACK names name)
          list(POP_BACK heads before)
          if(kind STREQUAL "fn")
            math(EXPR _functions "${_functions} + 1")
            math(EXPR length "${n} - ${start} + 1")
            if(length GREATER MAX_LINES)
              string(APPEND _bad "  ${rel}:${start}: ${name}, ${length} lines\n")
            endif()
          endif()
        endif()
        set(head "")
        # After an initializer (a default argument's `= {}`, a member's
        # `a_{1}`) the head goes on.
        if(kind MATCHES "^(block|init)$")
          string(SUBSTRING "${before}" 2 -1 head)
          string(APPEND head " {}")
        endif()
      elseif(t STREQUAL "@")
        set(head "")
      else()
        string(APPEND head " ${t}")
      endif()
    endforeach()
  endforeach()
  if(NOT kinds STREQUAL "")
    string(APPEND _bad "  ${rel}: its braces do not balance (a brace this check cannot see past)\n")
  endif()
endforeach()

if(_functions EQUAL 0)
  message(FATAL_ERROR "check_function_length.cmake: no function found under ${_root}")
endif()
if(NOT _bad STREQUAL "")
  message(FATAL_ERROR "functions longer than ${MAX_LINES} lines (split each into named pieces):\n"
                      "${_bad}")
endif()
message(STATUS "check_function_length.cmake: ${_functions} functions, none over ${MAX_LINES} lines")
