# The layering rule of docs/design.md, checked (a CTest test runs this with
# -DSOURCE_DIR=...): each folder includes only the layers below it.
#   common/                 nothing of the project's
#   rpc/                    common/ (bytes only: no codec, region or driver)
#   codecs/                 common/
#   nullregion/, regions/   common/, codecs/, rpc/ (nullregion's RegionService
#                           binds a codec and a region into an rpc::Service)
#   transports/             any of the above; where rpc, codecs and regions meet
#   bench/                  anything, but no particular transport: only the
#                           registry (transports/transport.h), never
#                           rpc/grpc/ or transports/NAME/
# Fails, listing every offending line, when a file breaks the rule.
set(_rules
  "common|codecs/|rpc/|nullregion/|regions/|transports/|bench/"
  "rpc|codecs/|nullregion/|regions/|transports/|bench/"
  "codecs|rpc/|nullregion/|regions/|transports/|bench/"
  "nullregion|transports/|bench/"
  "regions|transports/|bench/"
  "transports|bench/"
  "bench|rpc/grpc/|transports/[a-z_]+/")
set(_bad "")
foreach(rule IN LISTS _rules)
  string(REPLACE "|" ";" parts "${rule}")
  list(POP_FRONT parts folder)
  list(JOIN parts "|" forbidden)
  file(GLOB_RECURSE files "${SOURCE_DIR}/${folder}/*.h" "${SOURCE_DIR}/${folder}/*.cc")
  foreach(f IN LISTS files)
    file(STRINGS "${f}" lines REGEX "^#include \"(${forbidden})")
    foreach(line IN LISTS lines)
      file(RELATIVE_PATH rel "${SOURCE_DIR}" "${f}")
      string(APPEND _bad "  ${rel}: ${line}\n")
    endforeach()
  endforeach()
endforeach()
if(_bad)
  message(FATAL_ERROR "layering broken (see docs/design.md, 'Layers'):\n${_bad}")
endif()
message(STATUS "layering holds")
