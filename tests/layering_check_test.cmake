# cmake/check_layering.cmake against trees made to break it (cmake -P, a
# CTest test): every spelling of a forbidden include fails, naming the file,
# the line and the rule broken; every allowed spelling passes. The real tree
# is checked by Layering.EachFolderIncludesOnlyTheLayersBelowIt.
#   cmake -DCHECKER=cmake/check_layering.cmake -DWORK_DIR=/tmp/x -P tests/layering_check_test.cmake
cmake_minimum_required(VERSION 3.20)

if(NOT CHECKER OR NOT WORK_DIR)
  message(FATAL_ERROR "pass -DCHECKER=<cmake/check_layering.cmake> -DWORK_DIR=<scratch folder>")
endif()

set(_failures "")
set(_cases 0)
set(_exceptions "")

# A fresh tree holding the headers the cases include, plus `path` holding
# `content`.
function(_make_tree dir path content)
  file(REMOVE_RECURSE "${dir}")
  foreach(f common/status.h rpc/frame.h rpc/codec.h codecs/codec.h nullregion/region.h
            regions/memstore/memstore.h transports/transport.h transports/a/a.h
            transports/b/b.h rpc/io/io_loop.h bench/cli/front_door.h
            hdr/histogram.h ycsb/generators.h codecs/message.h bench/loadgen/driver.h
            bench/results/run_result.h tests/raw_peer.h codecs/raw/common/status.h
            codecs/pb/pb_wire.h codecs/hbase/key_value.h)
    file(WRITE "${dir}/${f}" "#pragma once\n")
  endforeach()
  file(WRITE "${dir}/${path}" "${content}")
endfunction()

function(_run dir out_result out_output)
  # The real tree's known exceptions are no part of these trees.
  execute_process(COMMAND "${CMAKE_COMMAND}" -DSOURCE_DIR=${dir}
                          "-DLAYERING_EXCEPTIONS=${_exceptions}" -P "${CHECKER}"
                  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${out_result} "${result}" PARENT_SCOPE)
  set(${out_output} "${out}${err}" PARENT_SCOPE)
endfunction()

# The checker must fail on `path` holding `content`, and its message must name
# each of `expect` (FILE:LINE, the rule's words), and none written NOT:TEXT.
function(expect_broken name path content)
  math(EXPR n "${_cases} + 1")
  set(_cases ${n} PARENT_SCOPE)
  set(dir "${WORK_DIR}/${name}")
  _make_tree("${dir}" "${path}" "${content}")
  _run("${dir}" result output)
  if(result EQUAL 0)
    set(_failures "${_failures}  ${name}: passed, but ${path} holds a forbidden include:\n${content}\n" PARENT_SCOPE)
    return()
  endif()
  foreach(e IN LISTS ARGN)
    if(e MATCHES "^NOT:(.*)")  # Must not be named.
      string(FIND "${output}" "${CMAKE_MATCH_1}" at)
      if(NOT at EQUAL -1)
        set(_failures "${_failures}  ${name}: its message names \"${CMAKE_MATCH_1}\":\n${output}\n" PARENT_SCOPE)
        return()
      endif()
      continue()
    endif()
    string(FIND "${output}" "${e}" at)
    if(at EQUAL -1)
      set(_failures "${_failures}  ${name}: failed as it should, but its message lacks \"${e}\":\n${output}\n" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  # Only the broken file is named (a right include next to it is not).
  string(REGEX MATCHALL "\n +[^ \n:]+:[0-9]+:" named "${output}")
  foreach(line IN LISTS named)
    string(FIND "${line}" "${path}:" at)
    if(at EQUAL -1)
      set(_failures "${_failures}  ${name}: names an unrelated file:${line}\n${output}\n" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  file(REMOVE_RECURSE "${dir}")
endfunction()

# The checker must pass on `path` holding `content`.
function(expect_holds name path content)
  math(EXPR n "${_cases} + 1")
  set(_cases ${n} PARENT_SCOPE)
  set(dir "${WORK_DIR}/${name}")
  _make_tree("${dir}" "${path}" "${content}")
  _run("${dir}" result output)
  if(NOT result EQUAL 0)
    set(_failures "${_failures}  ${name}: failed, but ${path} includes only what its layer may:\n${content}\n${output}\n" PARENT_SCOPE)
    return()
  endif()
  file(REMOVE_RECURSE "${dir}")
endfunction()

# `path` holding the one line `include` fails, naming the file, line 1, the
# header included and `rule`.
function(expect_refused name path include header rule)
  expect_broken(${name} ${path} "${include}\n" "${path}:1:" "includes ${header}" "${rule}")
  set(_failures "${_failures}" PARENT_SCOPE)
  set(_cases ${_cases} PARENT_SCOPE)
endfunction()

set(_rpc_rule "rpc/ (the network core) includes only common/")
set(_transport_rule "never another transport's folder")
set(_bench_rule "no particular transport")

# rpc/ may include only common/: each spelling of codecs/codec.h from rpc/
# (`include`, the line) on line 3 of `path`, after an allowed include and a
# blank line, fails with that line and the rule.
set(_pre "#include \"common/status.h\"\n\n")
function(expect_codec_h_refused name path include)
  expect_broken(${name} ${path} "${_pre}${include}\n"
                "${path}:3:" "includes codecs/codec.h" "${_rpc_rule}")
  set(_failures "${_failures}" PARENT_SCOPE)
  set(_cases ${_cases} PARENT_SCOPE)
endfunction()
expect_codec_h_refused(plain rpc/bad.cc "#include \"codecs/codec.h\"")
expect_codec_h_refused(two_spaces_after_hash rpc/bad.cc "#  include \"codecs/codec.h\"")
expect_codec_h_refused(one_space_after_hash rpc/bad.cc "# include \"codecs/codec.h\"")
expect_codec_h_refused(tabs rpc/bad.cc "#\tinclude\t\"codecs/codec.h\"")
expect_codec_h_refused(indented rpc/bad.cc "  \t#include \"codecs/codec.h\"")
expect_codec_h_refused(no_space_before_path rpc/bad.cc "#include\"codecs/codec.h\"")
expect_codec_h_refused(angle_brackets rpc/bad.cc "#include <codecs/codec.h>")
expect_codec_h_refused(angle_brackets_spaced rpc/bad.cc "  #  include<codecs/codec.h>")
expect_codec_h_refused(include_next rpc/bad.h "#include_next <codecs/codec.h>")
expect_codec_h_refused(relative_up rpc/bad.cc "#include \"../codecs/codec.h\"")
expect_codec_h_refused(relative_up_twice rpc/sub/bad.cc "#include \"../../codecs/codec.h\"")
expect_codec_h_refused(relative_dot rpc/bad.cc "#include \"./../codecs/codec.h\"")
expect_codec_h_refused(dot_dot_inside rpc/bad.cc "#include \"rpc/../codecs/codec.h\"")
expect_codec_h_refused(angle_relative rpc/bad.cc "#include <rpc/../codecs/codec.h>")
expect_codec_h_refused(continued_line rpc/bad.cc "#  \\\n  include \"codecs/codec.h\"")
expect_broken(not_yet_generated rpc/bad.cc "${_pre}#include \"codecs/pb/ycsb.pb.h\"\n"
              "rpc/bad.cc:3:" "includes codecs/pb/ycsb.pb.h" "${_rpc_rule}")
expect_broken(crlf rpc/bad.cc "#include \"common/status.h\"\r\n\r\n#include \"codecs/codec.h\"\r\n"
              "rpc/bad.cc:3:" "includes codecs/codec.h" "${_rpc_rule}")
expect_broken(through_a_macro rpc/bad.cc "${_pre}#define HEADER \"codecs/codec.h\"\n#include HEADER\n"
              "rpc/bad.cc:4:" "through a macro")
# Lines holding what a CMake list treats specially (; [ ]) keep the count.
expect_broken(semicolons_and_brackets rpc/bad.cc
              "int a[2]; int b[3];\n// [unbalanced\n#include \"codecs/codec.h\"  // ; ]\n"
              "rpc/bad.cc:3:" "includes codecs/codec.h" "${_rpc_rule}")
# Every forbidden include is named, not only the first.
expect_broken(every_one rpc/bad.cc
              "#include \"codecs/codec.h\"\n#include \"common/status.h\"\n# include <nullregion/region.h>\n#include \"../regions/memstore/memstore.h\"\n#include \"../hdr/histogram.h\"\n#include \"../tests/raw_peer.h\"\n"
              "rpc/bad.cc:1:" "rpc/bad.cc:3:" "rpc/bad.cc:4:" "rpc/bad.cc:5:" "rpc/bad.cc:6:"
              "includes nullregion/region.h" "includes regions/memstore/memstore.h"
              "includes hdr/histogram.h" "includes tests/raw_peer.h")
# The other folders' rules.
expect_refused(common_includes_rpc common/bad.h
               "#include \"rpc/frame.h\"" rpc/frame.h "common/ includes nothing of the project's")
expect_refused(codecs_include_rpc codecs/raw/bad.cc
               "#include \"../../rpc/frame.h\"" rpc/frame.h "codecs/ includes only common/")
expect_refused(nullregion_includes_transports nullregion/bad.cc
               "#include <transports/transport.h>" transports/transport.h
               "nullregion/ includes only common/, codecs/ and rpc/")
expect_refused(regions_include_bench regions/memstore/bad.cc
               "#include \"../../bench/loadgen/driver.h\"" bench/loadgen/driver.h
               "regions/ includes only")
# hdr/ and ycsb/ are the load generator's libraries: no layer beneath bench/
# includes them.
expect_refused(regions_include_hdr regions/memstore/bad.cc
               "#include \"../../hdr/histogram.h\"" hdr/histogram.h "regions/ includes only")
expect_refused(transport_includes_ycsb transports/a/bad.cc
               "#include \"ycsb/generators.h\"" ycsb/generators.h "${_transport_rule}")
expect_refused(registry_includes_ycsb transports/bad.cc
               "#include <ycsb/generators.h>" ycsb/generators.h "transports/ includes no bench/")
expect_refused(codecs_include_hdr codecs/bad.cc
               "#include \"hdr/histogram.h\"" hdr/histogram.h "codecs/ includes only common/")
expect_refused(transport_includes_another transports/a/bad.cc
               "#include \"transports/b/b.h\"" transports/b/b.h "${_transport_rule}")
expect_refused(transport_includes_another_relative transports/a/bad.cc
               "#  include \"../b/b.h\"" transports/b/b.h "${_transport_rule}")
expect_refused(transport_includes_regions transports/a/bad.cc
               "#include <regions/memstore/memstore.h>" regions/memstore/memstore.h
               "${_transport_rule}")
# Of codecs/, other layers see the public part only, never a codec's own folder.
expect_broken(transport_includes_a_codecs_folder transports/a/bad.cc
              "#include \"codecs/pb/pb_wire.h\"\n" "transports/a/bad.cc:1:"
              "includes codecs/pb/pb_wire.h" "never a codec's own folder")
expect_refused(region_includes_a_codecs_folder regions/bad.cc
               "#include <codecs/pb/pb_wire.h>" codecs/pb/pb_wire.h "never a codec's own folder")
expect_holds(transport_includes_hbase_wire transports/a/good.cc
             "#include \"codecs/hbase/key_value.h\"\n#include \"codecs/codec.h\"\n")
expect_refused(transport_includes_bench transports/a/bad.cc
               "#include \"../../bench/loadgen/driver.h\"" bench/loadgen/driver.h
               "${_transport_rule}")
expect_refused(registry_includes_bench transports/bad.cc
               "#include \"bench/loadgen/driver.h\"" bench/loadgen/driver.h
               "transports/ includes no bench/")
expect_refused(bench_includes_a_transport bench/loadgen/bad.cc
               "#include \"transports/a/a.h\"" transports/a/a.h "${_bench_rule}")
expect_refused(bench_includes_a_transport_relative bench/cli/bad.cc
               "# include \"../../transports/a/a.h\"" transports/a/a.h "${_bench_rule}")
# hdr/ includes only common/; ycsb/ only common/, hdr/ and codecs/message.h;
# neither includes bench/.
set(_hdr_rule "hdr/ (HdrHistogram) includes only common/")
set(_ycsb_rule "ycsb/ (YCSB's core) includes only common/, hdr/ and codecs/message.h")
expect_refused(hdr_includes_loadgen hdr/bad.cc
               "#include \"../bench/loadgen/driver.h\"" bench/loadgen/driver.h "${_hdr_rule}")
expect_broken(hdr_includes_ycsb hdr/bad.cc "#include \"common/status.h\"\n#include \"../ycsb/generators.h\"\n"
              "hdr/bad.cc:2:" "includes ycsb/generators.h" "${_hdr_rule}")
expect_refused(hdr_includes_message hdr/bad.h
               "#include <codecs/message.h>" codecs/message.h "${_hdr_rule}")
expect_refused(ycsb_includes_results ycsb/bad.cc
               "#include \"bench/results/run_result.h\"" bench/results/run_result.h "${_ycsb_rule}")
expect_refused(ycsb_includes_loadgen_relative ycsb/bad.cc
               "#  include \"../bench/loadgen/driver.h\"" bench/loadgen/driver.h "${_ycsb_rule}")
expect_refused(ycsb_includes_the_codec_interface ycsb/bad.cc
               "#include \"codecs/codec.h\"" codecs/codec.h "${_ycsb_rule}")
expect_refused(ycsb_includes_a_codecs_folder ycsb/bad.cc
               "#include \"codecs/hbase/key_value.h\"" codecs/hbase/key_value.h "${_ycsb_rule}")
expect_refused(ycsb_includes_rpc ycsb/bad.cc "#include <rpc/frame.h>" rpc/frame.h "${_ycsb_rule}")
expect_refused(ycsb_includes_the_registry ycsb/bad.cc
               "#include \"transports/transport.h\"" transports/transport.h "${_ycsb_rule}")
expect_refused(results_include_loadgen bench/results/bad.cc
               "#include \"bench/loadgen/driver.h\"" bench/loadgen/driver.h
               "bench/results/ includes hdr/ but not ycsb/")
expect_refused(results_include_ycsb bench/results/bad.cc
               "#include \"ycsb/generators.h\"" ycsb/generators.h
               "bench/results/ includes hdr/ but not ycsb/")
expect_refused(loadgen_includes_cli bench/loadgen/bad.cc
               "#include \"../cli/front_door.h\"" bench/cli/front_door.h
               "bench/loadgen/ includes only bench/results/ of bench/")
expect_refused(micro_includes_cli bench/micro/bad.cc
               "#include \"bench/cli/front_door.h\"" bench/cli/front_door.h
               "nothing includes bench/cli/")

# A known exception (LAYERING_EXCEPTIONS) lets that one include pass and no
# other; one that no longer occurs fails, so the list only shrinks.
set(_exceptions "rpc/bad.cc>codecs/codec.h")
expect_broken(exception_covers_only_its_include rpc/bad.cc
              "#include \"codecs/codec.h\"\n#include \"nullregion/region.h\"\n"
              "rpc/bad.cc:2:" "includes nullregion/region.h" "${_rpc_rule}" "NOT:rpc/bad.cc:1:")
expect_holds(exception_holds rpc/bad.cc "#  include <codecs/codec.h>\n")
expect_broken(exception_no_longer_needed rpc/bad.cc "#include \"common/status.h\"\n"
              "rpc/bad.cc includes codecs/codec.h no more: remove")
set(_exceptions "")

# What each layer may include passes, however it is spelled.
expect_holds(rpc_allowed rpc/good.cc
             "#include \"rpc/good.h\"\n#  include <string>\n#\tinclude \"common/status.h\"\n#include \"../common/status.h\"\n#include \"frame.h\"\n#include <boost/asio.hpp>\n#include \"io/io_loop.h\"\n// #include \"codecs/codec.h\"\n")
# A quoted path resolves next to the including file first, as the compiler
# resolves it: rpc/codec.h, not codecs/codec.h; codecs/raw/common/status.h.
expect_holds(quoted_resolves_next_to_the_file rpc/good.cc "#include \"codec.h\"\n")
expect_holds(generated_next_to_the_file codecs/raw/good.cc
             "#include \"wirebench_generated.h\"\n#include \"common/status.h\"\n")
expect_holds(transport_own_folder transports/a/good.cc
             "#include \"transports/a/a.h\"\n#include \"a.h\"\n#include <transports/transport.h>\n#include \"../transport.h\"\n#include \"rpc/frame.h\"\n#include \"codecs/codec.h\"\n#include \"nullregion/region.h\"\n#include \"common/status.h\"\n#include \"a_wire.pb.h\"\n")
expect_holds(registry_includes_transports transports/good.cc
             "#include \"transports/a/a.h\"\n#include \"transports/b/b.h\"\n")
expect_holds(bench_includes_the_registry bench/loadgen/good.cc
             "#include \"transports/transport.h\"\n#include \"rpc/frame.h\"\n#include \"regions/memstore/memstore.h\"\n#include \"../../hdr/histogram.h\"\n#include \"ycsb/generators.h\"\n#include \"bench/loadgen/driver.h\"\n")
expect_holds(cli_includes_bench bench/cli/good.cc
             "#include \"bench/loadgen/driver.h\"\n#include \"front_door.h\"\n#include \"hdr/histogram.h\"\n")
expect_holds(hdr_allowed hdr/good.cc
             "#include \"hdr/histogram.h\"\n#include \"histogram.h\"\n#include \"common/status.h\"\n#include <zlib.h>\n#include <benchmark/benchmark.h>\n")
expect_holds(ycsb_allowed ycsb/good.cc
             "#include \"ycsb/generators.h\"\n#include \"generators.h\"\n#include \"codecs/message.h\"\n#include \"../hdr/histogram.h\"\n#include <common/status.h>\n#include <sys/mman.h>\n")
expect_holds(results_include_hdr bench/results/good.cc
             "#include \"hdr/histogram.h\"\n#include \"bench/results/good.h\"\n")

if(_failures)
  message(FATAL_ERROR "check_layering.cmake is wrong in these cases:\n${_failures}")
endif()
message(STATUS "check_layering.cmake: ${_cases} cases as expected")
