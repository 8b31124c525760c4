# Writes OUTPUT, a C++ source holding the bytes of every file in
# WORKLOADS_DIR (YCSB's standard workloads) as string literals, for
# ycsb/standard_workloads.cc. Run at build time by the custom command in
# ycsb/CMakeLists.txt, which reruns it when a workload file changes.
#   cmake -DWORKLOADS_DIR=<dir> -DOUTPUT=<file.cc> -P embed_workloads.cmake
file(GLOB _files LIST_DIRECTORIES false RELATIVE ${WORKLOADS_DIR} ${WORKLOADS_DIR}/*)
list(SORT _files)
set(_entries "")
foreach(_name ${_files})
  file(READ ${WORKLOADS_DIR}/${_name} _hex HEX)
  string(LENGTH "${_hex}" _hex_len)
  math(EXPR _size "${_hex_len} / 2")
  # 32 bytes a line as "\x23\x20..." literals, which the compiler concatenates.
  set(_escaped "")
  set(_pos 0)
  while(_pos LESS _hex_len)
    string(SUBSTRING "${_hex}" ${_pos} 64 _chunk)
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" _chunk "${_chunk}")
    if(_pos GREATER 0)
      string(APPEND _escaped "\"\n    \"")
    endif()
    string(APPEND _escaped "${_chunk}")
    math(EXPR _pos "${_pos} + 64")
  endwhile()
  string(APPEND _entries "    {\"${_name}\",\n     std::string_view(\n    \"${_escaped}\", ${_size})},\n")
endforeach()
set(_text "// Generated from ${WORKLOADS_DIR} by cmake/embed_workloads.cmake; do not edit.
#include <span>
#include <string_view>

#include \"ycsb/standard_workloads.h\"

namespace wirebench::ycsb {

std::span<const EmbeddedWorkload> EmbeddedWorkloads() {
  static const EmbeddedWorkload kWorkloads[] = {
${_entries}  };
  return kWorkloads;
}

}  // namespace wirebench::ycsb
")
# Rewrite only on change, so an unchanged workload set recompiles nothing.
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} _old)
  if(_old STREQUAL _text)
    return()
  endif()
endif()
file(WRITE ${OUTPUT} "${_text}")
