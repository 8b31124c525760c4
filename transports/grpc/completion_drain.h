// The loop of a gRPC client connection's completion-queue thread, shared by
// GrpcConnection (grpc_client.cc) and NativeConnection (native_client.cc):
// gRPC polls the socket from inside CompletionQueue::Next, and every
// completed call is handed to the io_context that owns the connection.
// Thread-safety: runs on the queue's own thread; touches the connection only
// through the io_context.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <grpcpp/completion_queue.h>

#include "common/thread_stats.h"

namespace wirebench::grpcrpc {

// Names the calling thread `thread_name` (a client loop), then, until `cq`
// is shut down and empty, posts `complete(connection, tag)` to `ctx` for each
// completed call while the connection lives. A completion that comes after
// the connection is gone is dropped: its destructor cancelled the call and
// disposes of it.
template <typename Connection, typename Complete>
void DrainCompletionQueue(grpc::CompletionQueue& cq, const std::string& thread_name,
                          const std::weak_ptr<Connection>& connection,
                          boost::asio::io_context& ctx, Complete complete) {
  RegisterThisThread(ThreadRole::kClientLoop, thread_name.c_str());
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
    std::shared_ptr<Connection> self = connection.lock();
    if (!self) continue;
    // Moved into the handler, so this thread never holds the last reference.
    boost::asio::post(ctx, [self = std::move(self), tag, complete] { complete(*self, tag); });
  }
}

}  // namespace wirebench::grpcrpc
