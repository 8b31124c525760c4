// What the network core declares of its code for `--instructions`
// (bench/loadgen/instructions.cc): the qualified-name prefixes of the core's
// functions and of the Asio socket operations it runs up to the syscall,
// which go to the rpc layer beside the transports' own (their registry
// entries' symbol prefixes, common/registry.h).
#pragma once

#include <string_view>

namespace wirebench::rpc {

inline constexpr std::string_view kCoreSymbolPrefixes[] = {
    "wirebench::rpc::",
    "boost::asio::detail::socket_ops::",
    "boost::asio::detail::reactive_socket_recv_op_base",
    "boost::asio::detail::reactive_socket_send_op_base",
};

}  // namespace wirebench::rpc
