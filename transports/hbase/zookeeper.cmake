# Registering the hbase transport's server in ZooKeeper (--zookeeper), with
# Debian's ZooKeeper C client (libzookeeper-mt-dev: no pkg-config file, so
# found by header and library). Without it the library is not built and
# WIREBENCH_HAVE_ZOOKEEPER stays undefined: --zookeeper then says how to get it.
set(WIREBENCH_ZOOKEEPER AUTO CACHE STRING
    "Build ZooKeeper registration for --rpc hbase: AUTO (when found), ON (required), OFF")
set_property(CACHE WIREBENCH_ZOOKEEPER PROPERTY STRINGS AUTO ON OFF)
if(NOT WIREBENCH_ZOOKEEPER STREQUAL "OFF")
  find_path(ZOOKEEPER_INCLUDE_DIR zookeeper/zookeeper.h)
  find_library(ZOOKEEPER_MT_LIBRARY zookeeper_mt)
  if(ZOOKEEPER_INCLUDE_DIR AND ZOOKEEPER_MT_LIBRARY)
    add_library(wirebench_hbase_zookeeper STATIC
      ${CMAKE_CURRENT_LIST_DIR}/zookeeper_registration.cc)
    target_include_directories(wirebench_hbase_zookeeper SYSTEM PUBLIC ${ZOOKEEPER_INCLUDE_DIR})
    target_link_libraries(wirebench_hbase_zookeeper PUBLIC wirebench_common wirebench_rpc
                          ${ZOOKEEPER_MT_LIBRARY} Threads::Threads)
    # THREADED: zookeeper.h declares the synchronous API (zoo_create...) of the
    # multi-threaded library only under it.
    target_compile_definitions(wirebench_hbase_zookeeper PUBLIC WIREBENCH_HAVE_ZOOKEEPER THREADED)
    message(STATUS "ZooKeeper C client: ${ZOOKEEPER_MT_LIBRARY} (--rpc hbase --zookeeper built)")
  elseif(WIREBENCH_ZOOKEEPER STREQUAL "ON")
    message(FATAL_ERROR "WIREBENCH_ZOOKEEPER=ON but ZooKeeper's C client was not found: "
                        "apt-get install libzookeeper-mt-dev (or -DWIREBENCH_ZOOKEEPER=OFF)")
  else()
    message(STATUS "ZooKeeper C client not found (apt-get install libzookeeper-mt-dev): "
                   "--rpc hbase is built without --zookeeper")
  endif()
endif()

# The hbase transport's --zookeeper (registered_server.cc), with or without
# the client (without it, the flag's error says how to get it).
target_sources(wirebench_transports PRIVATE ${CMAKE_CURRENT_LIST_DIR}/registered_server.cc)
if(TARGET wirebench_hbase_zookeeper)
  target_link_libraries(wirebench_transports PUBLIC wirebench_hbase_zookeeper)
endif()
