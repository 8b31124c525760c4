// Asio constants shared by the connection code of rpc/ and of the
// transports built on it (one definition, not one per file).
// Thread-safety: constants.
#pragma once

#include <cstddef>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace wirebench::rpc {

// `co_await op(..., kNoThrow)` yields a tuple (error_code, results...)
// instead of throwing: a closed or reset connection is an ordinary outcome.
inline constexpr auto kNoThrow = boost::asio::as_tuple(boost::asio::use_awaitable);

// How much a connection asks of one read when its buffer has room to grow.
inline constexpr size_t kReadChunk = 64 * 1024;

}  // namespace wirebench::rpc
