# wirebench's calls over gRPC (Debian's gRPC 1.51: libgrpc++-dev and
# protobuf-compiler-grpc, see scripts/install-deps), bytes only, like
# wirebench_proto: a generic gRPC server that serves any rpc::Service (one gRPC
# method per wirebench method, codec payloads carried unchanged), and a
# client that implements rpc::CallChannel. The transport's registry entries
# and grpc-native's generated service (which need the message model and a
# region) are in transports/grpc.
# With WIREBENCH_GRPC=OFF (the default when gRPC is not installed) nothing
# here is built and the gRPC tests are left out.
find_package(gRPC CONFIG QUIET)
if(gRPC_FOUND)
  set(_wb_grpc_default ON)
else()
  set(_wb_grpc_default OFF)
endif()
option(WIREBENCH_GRPC "Build the gRPC transport (transports/grpc)" ${_wb_grpc_default})
if(NOT WIREBENCH_GRPC)
  message(STATUS "wirebench: gRPC transport not built (WIREBENCH_GRPC=OFF)")
  return()
endif()
if(NOT gRPC_FOUND)
  message(FATAL_ERROR "WIREBENCH_GRPC is ON but gRPC was not found: install libgrpc++-dev "
                      "and protobuf-compiler-grpc (scripts/install-deps) or configure with "
                      "-DWIREBENCH_GRPC=OFF")
endif()

add_library(wirebench_grpc_core STATIC
  grpc_protocol.cc
  grpc_server.cc
  grpc_client.cc
  process_threads.cc
  socket_counter.cc
)
target_link_libraries(wirebench_grpc_core PUBLIC wirebench_rpc gRPC::grpc++)
# On its own in a unity build (cmake/unity.cmake): socket_counter.cc takes
# struct tcp_info from <linux/tcp.h>, which clashes with <netinet/tcp.h>.
wirebench_unity_exclude(wirebench_grpc_core socket_counter.cc)
