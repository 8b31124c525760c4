# WIREBENCH_UNITY_BUILD: each target's sources compiled as a few combined
# translation units (CMake's unity build, batches of 8). Most of a wirebench
# source file's compile time is its headers (Asio, CLI11, nlohmann/json,
# protobuf), so a full build takes about a third of the time. scripts/test
# turns it on for the sanitizer stages; the main build (stage 1, and what
# users build) stays one translation unit per file, which also keeps every
# file's own includes checked.
#
# Left out of the batches: generated code (protoc's, capnp's: each file
# defines the same file-local tables) and the files listed with
# wirebench_unity_exclude() where they are built.

# GCC warns when a class in what it takes for a header (a .cc included by a
# unity file) has members of file-local types; in one translation unit that
# is what they are.
if(WIREBENCH_UNITY_BUILD AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options(-Wno-subobject-linkage)
endif()

# Marks sources of `target` to be compiled on their own.
function(wirebench_unity_exclude target)
  set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target}
                              PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()

# Called once, after every subdirectory: every generated source of every
# target under `dir` is compiled on its own.
function(wirebench_unity_skip_generated dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
      continue()
    endif()
    get_target_property(sources ${t} SOURCES)
    foreach(s IN LISTS sources)
      get_source_file_property(generated ${s} TARGET_DIRECTORY ${t} GENERATED)
      if(generated OR s MATCHES "\\.(pb|capnp)\\.c(c|\\+\\+)$")
        wirebench_unity_exclude(${t} ${s})
      endif()
    endforeach()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(d IN LISTS subdirs)
    wirebench_unity_skip_generated(${d})
  endforeach()
endfunction()
