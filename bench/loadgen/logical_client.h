// The driver's moving parts below RunLoad: a logical client (a coroutine
// with one operation in flight on a shared connection), the client
// event-loop thread that runs many of them, and the run state they share
// with the driver's thread (phase, clients left, failure).
// Thread-safety: a LogicalClient and everything in its ClientThread belong
// to that thread's io_context; RunState's atomics and condition variable
// are shared with the driver's thread.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "bench/loadgen/driver.h"
#include "codecs/codec.h"
#include "rpc/call_channel.h"
#include "rpc/client.h"

namespace wirebench {

using LoadClock = std::chrono::steady_clock;

enum LoadPhase : int { kWarmup = 0, kMeasure = 1, kStopping = 2 };

// State shared by the driver's thread and every logical client.
struct RunState {
  const DriverOptions* options = nullptr;
  std::atomic<int> phase{kWarmup};
  std::atomic<int> clients_left{0};
  std::atomic<int64_t> last_end_ns{0};  // Steady-clock ns of the last measured op's end.
  std::atomic<bool> failed{false};
  LoadClock::time_point open_loop_start;
  std::mutex mu;
  std::condition_variable cv;

  void ClientDone();
  void Fail();
  // True once every client is done, one failed, or a stop was requested.
  bool ShouldEnd() const;
  // Waits until `deadline` or ShouldEnd(). Wakes at least every 20 ms to
  // see a stop request (a signal handler cannot notify the condition).
  void WaitUntil(LoadClock::time_point deadline);
};

class LogicalClient;

// One client event-loop thread with its connections and logical clients.
struct ClientThread {
  boost::asio::io_context ctx{1};
  std::thread thread;
  std::vector<std::shared_ptr<rpc::CallChannel>> conns;
  std::vector<std::unique_ptr<Codec>> codecs;  // One per connection.
  std::vector<std::unique_ptr<LogicalClient>> clients;
  std::array<OpStats, kOpTypes> stats;
  std::array<OpStats, kOpTypes> interval;
  hdr::Histogram lateness;
  hdr::Histogram timer_lateness;
  uint64_t behind_schedule = 0;
  uint64_t measured_ops = 0;
  Status error;  // First failure seen by this thread.

  void SetError(const Status& s) {
    if (error.ok()) error = s;
  }
};

// One logical client: a coroutine with one operation in flight.
class LogicalClient final : public rpc::PendingCall {
 public:
  // `interval_ns` > 0: open loop, one operation every interval_ns, offset by
  // `stagger_ns` (as YCSB spreads its threads' schedules).
  LogicalClient(RunState* state, ClientThread* thread, rpc::CallChannel* conn, Codec* codec,
                std::unique_ptr<OpStream> stream, int64_t quota, double interval_ns,
                double stagger_ns);

  boost::asio::awaitable<void> Run();
  // Wakes the client if it sleeps until its next scheduled operation (open
  // loop), so it sees that the run is stopping.
  void Interrupt() { wake_.cancel(); }
  void OnReply(const rpc::FrameHeader& h, ByteView payload) override;
  void OnFailure(const Status& status) override;

 private:
  boost::asio::awaitable<bool> DoCall(const PlannedCall& call);
  void Record(OpType type, OpResult result, LoadClock::time_point intended,
              LoadClock::time_point start, LoadClock::time_point end, bool measured);
  void RecordLateness(LoadClock::time_point intended, LoadClock::time_point start, bool waited);

  RunState* state_;
  ClientThread* thread_;
  rpc::CallChannel* conn_;
  Codec* codec_;
  std::unique_ptr<OpStream> stream_;
  int64_t quota_;
  double interval_ns_;
  double stagger_ns_;
  boost::asio::steady_timer wake_;
  PlannedOp op_;
  const PlannedCall* call_ = nullptr;
  bool done_ = false;
  bool failed_ = false;
  OpResult read_result_ = OpResult::kOk;
};

}  // namespace wirebench
