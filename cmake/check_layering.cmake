# The layering rule of docs/design.md, checked (a CTest test runs this with
# -DSOURCE_DIR=...): each folder includes only the layers below it.
#   common/                 nothing of the project's
#   rpc/                    common/ (the network core: bytes only, no codec,
#                           region, driver or particular protocol)
#   codecs/                 common/
#   (what the layers above see of codecs/: codec.h, message.h, wire_reader.h,
#   hbase/ (HBase's wire vocabulary) and schemas/; a codec's own folder,
#   codecs/NAME/, is its business)
#   nullregion/             common/, codecs/, rpc/ (nullregion's RegionService
#                           binds a codec and a region into an rpc::Service)
#   regions/                common/, codecs/, rpc/, nullregion/
#   transports/NAME/        common/, codecs/, rpc/, nullregion/, its own
#                           folder and transports/transport.h; never another
#                           transport's folder
#   transports/ (the registry's own files)  any of the above
#   hdr/                    common/ (HdrHistogram, a library of its own)
#   ycsb/                   common/, hdr/ and codecs/message.h (YCSB's core,
#                           a library of its own: no codec, network or driver)
#   bench/                  anything below it, but no particular transport:
#                           only the registry's files (transports/transport.h),
#                           never transports/NAME/
#     bench/results/        hdr/ (not ycsb/); nothing else of bench/
#     bench/loadgen/        bench/results/, ycsb/, hdr/
#     bench/mpi/            bench/loadgen/ and what it may include
#     bench/cli/            all of bench; nothing includes bench/cli/
#
# Every preprocessor include is parsed, however it is spelled: `#include`,
# `#  include`, `# include`, tabs, `#include_next`, no space before the path,
# "quotes" or <angle brackets>, continued lines. A path is resolved as the
# compiler does: a quoted one first against the including file's folder,
# then (either kind) against the repository root; `..` and `.` are resolved,
# so "../../rpc/frame.h" counts as rpc/frame.h. A path that names no file of
# the repository (a system or third-party header, a generated one) is
# classified by where it would be: against the root when its first component
# is a project folder, else next to the including file (generated headers such
# as "wirebench_generated.h" sit beside their codec). An include through a
# macro cannot be resolved here and is refused.
#
# Fails listing every offending include as FILE:LINE, the directive, the file
# it resolves to and the rule it breaks.
cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/source_lines.cmake)

wb_source_root(check_layering.cmake _root)

# The folders whose files are the project's (an include resolving into one is
# checked; anything else is someone else's header).
set(_project_folders common rpc codecs nullregion regions transports hdr ycsb bench tests)

# One rule per folder: FILES (a regex over the including file's path relative
# to the root; the first rule that matches applies), ALLOW (a regex the
# included path must match), DENY (a regex it must not match) and TEXT (the
# rule, as the failure states it). In ALLOW and DENY, <own> stands for the
# including file's transport folder (transports/NAME/).
set(_rule_count 0)
function(_layer_rule)
  cmake_parse_arguments(R "" "FILES;ALLOW;DENY;TEXT" "" ${ARGN})
  math(EXPR n "${_rule_count}")
  set(_rule_${n}_files "${R_FILES}" PARENT_SCOPE)
  set(_rule_${n}_allow "${R_ALLOW}" PARENT_SCOPE)
  set(_rule_${n}_deny "${R_DENY}" PARENT_SCOPE)
  set(_rule_${n}_text "${R_TEXT}" PARENT_SCOPE)
  math(EXPR n "${n} + 1")
  set(_rule_count ${n} PARENT_SCOPE)
endfunction()

# What other layers may include of codecs/: the interface, the message model,
# the wire reader, HBase's wire vocabulary (codecs/hbase/) and the generated
# schemas; never a codec's own folder.
set(_codecs_public "^codecs/(codec|message|wire_reader)\\.h$|^codecs/(hbase|schemas)/")
set(_below_bench "^(common|rpc|nullregion|regions|hdr|ycsb)/|${_codecs_public}|^transports/[^/]+$")
set(_no_transport "^transports/[^/]+/")
set(_bench_text "bench/ includes the layers below it but no particular transport (only transports/transport.h, never transports/NAME/)")

_layer_rule(FILES "^common/" ALLOW "^common/"
            TEXT "common/ includes nothing of the project's")
_layer_rule(FILES "^rpc/" ALLOW "^(rpc|common)/"
            TEXT "rpc/ (the network core) includes only common/")
_layer_rule(FILES "^codecs/" ALLOW "^(codecs|common)/"
            TEXT "codecs/ includes only common/")
set(_codecs_text "of codecs/ only codec.h, message.h, wire_reader.h, hbase/ and schemas/, never a codec's own folder")
_layer_rule(FILES "^nullregion/" ALLOW "^(nullregion|rpc|common)/|${_codecs_public}"
            TEXT "nullregion/ includes only common/, codecs/ and rpc/ (${_codecs_text})")
_layer_rule(FILES "^regions/" ALLOW "^(regions|nullregion|rpc|common)/|${_codecs_public}"
            TEXT "regions/ includes only common/, codecs/, rpc/ and nullregion/ (${_codecs_text})")
_layer_rule(FILES "^transports/[^/]+/"
            ALLOW "^<own>|^(rpc|nullregion|common)/|${_codecs_public}|^transports/transport\\.h$"
            TEXT "transports/NAME/ includes only rpc/, codecs/ (${_codecs_text}), nullregion/, common/, its own folder and transports/transport.h, never another transport's folder")
_layer_rule(FILES "^transports/" ALLOW "^(transports|rpc|nullregion|regions|common)/|${_codecs_public}"
            TEXT "transports/ includes no bench/ (${_codecs_text})")
_layer_rule(FILES "^hdr/" ALLOW "^(hdr|common)/"
            TEXT "hdr/ (HdrHistogram) includes only common/")
_layer_rule(FILES "^ycsb/" ALLOW "^(ycsb|hdr|common)/|^codecs/message\\.h$"
            TEXT "ycsb/ (YCSB's core) includes only common/, hdr/ and codecs/message.h")
_layer_rule(FILES "^bench/results/" ALLOW "${_below_bench}|^bench/results/"
            DENY "${_no_transport}|^ycsb/"
            TEXT "bench/results/ includes hdr/ but not ycsb/, and nothing else of bench/. ${_bench_text}")
_layer_rule(FILES "^bench/loadgen/" ALLOW "${_below_bench}|^bench/(results|loadgen)/"
            DENY "${_no_transport}"
            TEXT "bench/loadgen/ includes only bench/results/ of bench/. ${_bench_text}")
_layer_rule(FILES "^bench/mpi/" ALLOW "${_below_bench}|^bench/(results|loadgen|mpi)/"
            DENY "${_no_transport}"
            TEXT "bench/mpi/ includes only bench/loadgen/ and what it includes of bench/. ${_bench_text}")
_layer_rule(FILES "^bench/cli/" ALLOW "${_below_bench}|^bench/"
            DENY "${_no_transport}"
            TEXT "${_bench_text}")
_layer_rule(FILES "^bench/" ALLOW "${_below_bench}|^bench/"
            DENY "${_no_transport}|^bench/cli/"
            TEXT "nothing includes bench/cli/. ${_bench_text}")

# Includes that break the rule and are known, each FILE>INCLUDED (both
# relative to the root). There are none: the last, bench/loadgen's include of
# the wirebench transport's shared connection for the OS-thread model, went
# when the driver came to see it only through the network core's interfaces
# (rpc/shared_channel.h) and the registry (Transport::ConnectShared). A list
# given with -DLAYERING_EXCEPTIONS="FILE>INCLUDED;..." is reported on every
# run, and an exception that no longer occurs fails the check, so that such a
# list only shrinks.
if(NOT DEFINED LAYERING_EXCEPTIONS)
  set(LAYERING_EXCEPTIONS "")
endif()
set(_exceptions_seen "")

# Resolves one include path (`inc`, as written) from the file `rel` (relative
# to the root) to a root-relative path in `out`, or "" when it is not the
# project's.
function(_resolve_include inc quoted rel out)
  get_filename_component(dir "${rel}" DIRECTORY)
  set(candidates "")
  if(quoted)
    list(APPEND candidates "${_root}/${dir}/${inc}")
  endif()
  list(APPEND candidates "${_root}/${inc}")
  # The compiler's answer: the first candidate that exists.
  foreach(c IN LISTS candidates)
    cmake_path(NORMAL_PATH c)
    if(EXISTS "${c}" AND NOT IS_DIRECTORY "${c}")
      cmake_path(IS_PREFIX _root "${c}" NORMALIZE inside)
      if(inside)
        file(RELATIVE_PATH r "${_root}" "${c}")
        set(${out} "${r}" PARENT_SCOPE)
      else()
        set(${out} "" PARENT_SCOPE)
      endif()
      return()
    endif()
  endforeach()
  # No such file here: where it would be.
  string(REGEX MATCH "^[^/]+" first "${inc}")
  list(FIND _project_folders "${first}" idx)
  if(idx GREATER -1)
    set(c "${_root}/${inc}")
  elseif(quoted)
    set(c "${_root}/${dir}/${inc}")
  else()
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  cmake_path(NORMAL_PATH c)
  cmake_path(IS_PREFIX _root "${c}" NORMALIZE inside)
  set(r "")
  if(inside)
    file(RELATIVE_PATH r "${_root}" "${c}")
    string(REGEX MATCH "^[^/]+" first "${r}")
    list(FIND _project_folders "${first}" idx)
    if(idx EQUAL -1)
      set(r "")
    endif()
  endif()
  set(${out} "${r}" PARENT_SCOPE)
endfunction()

# Checks one directive `text` at `rel`:`line` against rule `n`; appends a
# failure line to _bad in the caller.
function(_check_directive rel line text n)
  set(spelled "${text}")
  string(REGEX REPLACE "[ \t]+" " " spelled "${spelled}")
  string(STRIP "${spelled}" spelled)
  set(where "  ${rel}:${line}: ${spelled}")
  if(text MATCHES "^[ \t]*#[ \t]*include(_next)?[ \t]*\"([^\"]*)\"")
    set(inc "${CMAKE_MATCH_2}")
    set(quoted TRUE)
  elseif(text MATCHES "^[ \t]*#[ \t]*include(_next)?[ \t]*<([^>]*)>")
    set(inc "${CMAKE_MATCH_2}")
    set(quoted FALSE)
  else()
    set(_bad "${_bad}${where}\n    an include through a macro (or malformed) cannot be checked: spell the path in quotes or angle brackets\n" PARENT_SCOPE)
    return()
  endif()
  _resolve_include("${inc}" ${quoted} "${rel}" target)
  if(target STREQUAL "")
    return()  # Not the project's.
  endif()
  set(allow "${_rule_${n}_allow}")
  set(deny "${_rule_${n}_deny}")
  if(allow MATCHES "<own>")
    string(REGEX MATCH "^transports/[^/]+/" own "${rel}")
    string(REPLACE "<own>" "${own}" allow "${allow}")
  endif()
  set(ok FALSE)
  if(target MATCHES "${allow}")
    set(ok TRUE)
  endif()
  if(ok AND NOT deny STREQUAL "" AND target MATCHES "${deny}")
    set(ok FALSE)
  endif()
  if(NOT ok AND "${rel}>${target}" IN_LIST LAYERING_EXCEPTIONS)
    set(_exceptions_seen ${_exceptions_seen} "${rel}>${target}" PARENT_SCOPE)
  elseif(NOT ok)
    set(_bad "${_bad}${where}\n    includes ${target}: ${_rule_${n}_text}\n" PARENT_SCOPE)
  endif()
endfunction()

set(_bad "")
set(_checked 0)
set(_directives 0)
wb_source_files("${_root}" _files)
foreach(rel IN LISTS _files)
  if(NOT rel MATCHES "\\.(h|hh|hpp|hxx|inc|ipp|c|cc|cpp|cxx)$")
    continue()
  endif()
  set(n "")
  foreach(i RANGE 0 ${_rule_count})
    if(i LESS _rule_count AND rel MATCHES "${_rule_${i}_files}")
      set(n ${i})
      break()
    endif()
  endforeach()
  if(n STREQUAL "")
    continue()
  endif()
  math(EXPR _checked "${_checked} + 1")
  file(READ "${_root}/${rel}" content)
  if(NOT content MATCHES "#[ \t\\\\\r\n]*include")
    continue()
  endif()
  wb_split_lines("${content}" lines)
  set(line_no 0)
  set(pending "")
  set(pending_line 0)
  foreach(l IN LISTS lines)
    math(EXPR line_no "${line_no} + 1")
    if(NOT pending STREQUAL "")
      set(l "${pending}${l}")
    elseif(NOT l MATCHES "^[ \t]*#")
      continue()
    else()
      set(pending_line ${line_no})
    endif()
    # A directive continued on the next line (a trailing backslash).
    if(l MATCHES "<backslash>$")
      string(REGEX REPLACE "<backslash>$" "" pending "${l}")
      if(pending STREQUAL "")
        set(pending " ")
      endif()
      continue()
    endif()
    set(pending "")
    if(NOT l MATCHES "^[ \t]*#[ \t]*include(_next)?([^A-Za-z0-9_]|$)")
      continue()
    endif()
    wb_restore_line("${l}" l)
    math(EXPR _directives "${_directives} + 1")
    _check_directive("${rel}" ${pending_line} "${l}" ${n})
  endforeach()
endforeach()

if(_checked EQUAL 0)
  message(FATAL_ERROR "check_layering.cmake: no source file under ${_root}/{common,rpc,codecs,"
                      "nullregion,regions,transports,hdr,ycsb,bench}: "
                      "is SOURCE_DIR the repository root?")
endif()
set(_known "")
foreach(e IN LISTS LAYERING_EXCEPTIONS)
  string(REPLACE ">" " includes " shown "${e}")
  if(e IN_LIST _exceptions_seen)
    string(APPEND _known "  ${shown}\n")
  else()
    string(APPEND _bad "  ${shown} no more: remove \"${e}\" from LAYERING_EXCEPTIONS "
                       "in cmake/check_layering.cmake\n")
  endif()
endforeach()
if(_known)
  message(STATUS "known exceptions to the layering (LAYERING_EXCEPTIONS, "
                 "cmake/check_layering.cmake):\n${_known}")
endif()
if(_bad)
  message(FATAL_ERROR "layering broken (see docs/design.md, 'Layers'); "
                      "move the code or include the layer's interface instead:\n${_bad}")
endif()
message(STATUS "layering holds: ${_directives} includes in ${_checked} files")
