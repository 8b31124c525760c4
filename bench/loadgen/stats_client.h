// One client connection to a server, through any transport's registry entry,
// used only for the server's Stats call: what `wirebench measure` reads the
// server's counters with before and after a command it did not write. The
// connection is opened once and kept, so the server sees no connection set
// up or torn down between the two snapshots.
// Thread-safety: Fetch may be called from any one thread at a time; the
// connection lives on the object's own event-loop thread.
#pragma once

#include <chrono>
#include <future>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "rpc/call_channel.h"
#include "transports/transport.h"

namespace wirebench {

// One Stats call in flight: its reply parsed as JSON, or why there is none.
// Used by StatsClient and by the load driver, which asks over a load
// connection it already has.
class StatsReplyCall final : public rpc::PendingCall {
 public:
  void OnReply(const rpc::CallHeader& h, ByteView payload) override;
  void OnFailure(const Status& s) override { done.set_value(s); }
  std::promise<StatusOr<nlohmann::json>> done;
};

class StatsClient {
 public:
  // Connects to host:port with `transport`, over the first codec it carries.
  static StatusOr<std::unique_ptr<StatsClient>> Connect(const Transport& transport,
                                                        const std::string& host, uint16_t port,
                                                        std::chrono::seconds timeout);
  ~StatsClient();
  StatsClient(const StatsClient&) = delete;
  StatsClient& operator=(const StatsClient&) = delete;

  // The server's Stats reply (rpc::TransportServer::StatsJson's document).
  StatusOr<nlohmann::json> Fetch(std::chrono::seconds timeout);

 private:
  struct Impl;
  explicit StatsClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace wirebench
