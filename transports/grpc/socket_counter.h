// Wire bytes of a gRPC channel, read from its TCP socket.
//
// gRPC does not expose its sockets, but it applies a "socket mutator" (the
// channel argument GRPC_ARG_SOCKET_MUTATOR) to every socket it opens for the
// channel. SocketCounter is such a mutator that sets nothing and remembers
// the fd; Read() then asks the kernel for TCP_INFO's tcpi_bytes_acked (bytes
// sent and acknowledged) and tcpi_bytes_received: the TCP payload both ways,
// HTTP/2 framing, HPACK headers and gRPC's 5-byte message prefix included,
// TCP/IP headers not. Bytes of a connection that was replaced (reconnect)
// are kept and added.
//
// The mutator's struct layout is gRPC's internal one (src/core/lib/iomgr/
// socket_mutator.h of gRPC 1.51, not an installed header); it is declared
// here with the same layout. A distinct mutator also keeps the channel from
// sharing a subchannel (TCP connection) with other channels.
//
// Thread-safety: the fd is recorded from a gRPC thread and read from any
// thread (atomics); Read() may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>

namespace grpc {
class ChannelArguments;
}

namespace wirebench::grpcrpc {

struct SocketBytes {
  bool available = false;  // False until gRPC has opened the socket.
  uint64_t bytes_out = 0;  // tcpi_bytes_acked.
  uint64_t bytes_in = 0;   // tcpi_bytes_received.
};

class SocketCounter {
 public:
  SocketCounter();
  ~SocketCounter();
  SocketCounter(const SocketCounter&) = delete;
  SocketCounter& operator=(const SocketCounter&) = delete;

  // Installs the mutator in `args` (which takes a reference to it).
  void InstallIn(grpc::ChannelArguments* args);
  // The bytes so far: earlier sockets' totals plus the current socket's.
  SocketBytes Read() const;

  struct State;  // Shared with the mutator gRPC holds.

 private:
  std::shared_ptr<State> state_;
};

}  // namespace wirebench::grpcrpc
