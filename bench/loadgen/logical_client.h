// The driver's moving parts below RunLoad: a logical client (a state
// machine with one operation in flight on a shared connection), the client
// thread that runs it (an event loop with many logical clients, or with
// --thread-model os one OS thread per logical client, waiting for its
// replies on a SharedChannel), and the run state they share with the
// driver's thread (phase, clients left, failure).
// Thread-safety: a LogicalClient and everything in its ClientThread belong
// to that thread's io_context; RunState's atomics and condition variable
// are shared with the driver's thread.
#pragma once

#include <array>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench/loadgen/driver.h"
#include "codecs/codec.h"
#include "rpc/call_channel.h"
#include "rpc/shared_channel.h"

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

// One operation type's measurements on one client thread. A histogram is
// allocated when its first value comes (a run records one or two operation
// types, rarely failures), so an idle histogram costs no memory: an OS-model
// client thread would otherwise carry ~270 KB per histogram, 44 of them.
struct ThreadOpStats {
  std::unique_ptr<hdr::Histogram> latency;            // OK only.
  std::unique_ptr<hdr::Histogram> not_found_latency;  // NOT_FOUND.
  std::unique_ptr<hdr::Histogram> intended_latency;
  std::unique_ptr<hdr::Histogram> failed_latency;
  std::array<uint64_t, size_t(OpResult::kCount)> results{};

  // Adds everything recorded to `out` (NOT_FOUND latencies to both
  // out->latency and out->not_found_latency: see OpStats).
  void AddTo(OpStats* out) const;
  // Forgets what was recorded, keeping the histograms (no allocation).
  void Reset();
};

// Allocates `*h` and records `value` into it (RecordLazily's first value).
void AllocateAndRecord(std::unique_ptr<hdr::Histogram>* h, int64_t value);

// Records `value` into `*h`, allocating the histogram at its first value.
inline void RecordLazily(std::unique_ptr<hdr::Histogram>* h, int64_t value) {
  if (*h == nullptr) [[unlikely]] {
    AllocateAndRecord(h, value);
    return;
  }
  (*h)->Record(value);
}

// One client event-loop thread with its connections and logical clients.
struct ClientThread {
  boost::asio::io_context ctx{1};
  std::thread thread;
  std::vector<std::shared_ptr<rpc::CallChannel>> conns;
  std::vector<std::unique_ptr<Codec>> codecs;  // One per connection.
  std::vector<std::unique_ptr<LogicalClient>> clients;
  // OS-thread model over a transport whose client threads share connections
  // (rpc/shared_channel.h): the logical client's channel on a connection it
  // shares with other client threads (conns is then empty;
  // the driver's Stats calls have a channel of their own). Set before the
  // thread starts.
  std::unique_ptr<rpc::SharedChannel> os_channel;
  std::array<ThreadOpStats, kOpTypes> stats;
  std::array<ThreadOpStats, kOpTypes> interval;  // Only with status lines.
  std::unique_ptr<hdr::Histogram> lateness;        // Open loop only.
  std::unique_ptr<hdr::Histogram> timer_lateness;  // Open loop only.
  uint64_t behind_schedule = 0;
  uint64_t measured_ops = 0;
  uint64_t unmeasured_ops = 0;  // Warm-up (and drain) operations: YCSB counts them in opsDone.
  // DriverOptions::keep_samples: every measured latency (reserved before the run).
  bool keep_samples = false;
  std::vector<LatencySample> samples;
  Status error;  // First failure seen by this thread.
  // Calls the server answered with an error (its reason in the reply), and
  // the first one's text, "METHOD: STATUS: reason".
  uint64_t error_replies = 0;
  std::string first_error_reply;
  // A null cluster: by server (its index in the plan), the logical clients
  // whose call to it failed (its connection broke: a server lost mid-run),
  // and when the first did.
  struct ServerFailures {
    uint64_t count = 0;
    LoadClock::time_point first{};
  };
  std::vector<ServerFailures> server_failures;
  void CountServerFailure(uint32_t server) {
    if (server_failures.size() <= server) server_failures.resize(server + 1);
    ServerFailures& f = server_failures[server];
    if (f.count++ == 0) f.first = LoadClock::now();
  }

  void SetError(const Status& s) {
    if (error.ok()) error = s;
  }
  void CountErrorReply(uint8_t method, uint8_t status, ByteView reason) {
    if (error_replies++ == 0)
      first_error_reply = std::string(MethodName(Method(method))) + ": " +
                          std::string(CallStatusName(CallStatus(status))) + ": " +
                          reason.ToString();
  }
  // The OS-thread model's thread body: waits for the reply (futex) while a
  // call is in flight on os_channel, looking at the event loop every
  // millisecond of work, every SharedChannel::kPollInterval of waiting and whenever the
  // driver wakes it (os_channel->Wake()), and runs the event loop otherwise
  // (open-loop timers, driver requests, gRPC channels). Returns when the
  // loop is stopped or out of work.
  void RunOsLoop();
};

// One logical client: a state machine with one operation in flight. The
// reply dispatch drives it: OnReply records the operation, plans the next
// one, encodes and sends it, all on the reader's stack, so a closed-loop
// client costs no wake-up per operation. Its timer only paces an open loop.
class LogicalClient final : public rpc::PendingCall {
 public:
  // `interval_ns` > 0: open loop, one operation every interval_ns, offset by
  // `stagger_ns` (as YCSB spreads its threads' schedules). `conn` and
  // `codec` null: in-process (DriverOptions::in_process), every call
  // answered by the client itself as YCSB's BasicDB answers it.
  LogicalClient(RunState* state, ClientThread* thread, rpc::CallChannel* conn, Codec* codec,
                std::unique_ptr<OpStream> stream, int64_t quota, double interval_ns,
                double stagger_ns);

  // Starts the first operation; call on the thread's event loop. The client
  // then runs until the run stops, and calls state->ClientDone() when done.
  void Start();
  // A null cluster (DriverOptions::cluster): the connection and codec of
  // each server, by its index in the plan, and each region's name (HBase's
  // codecs write it). Each call then goes to the server holding its row's
  // region. Set before Start; `plan` and `region_names` outlive the client.
  struct ClusterRoutes {
    const ClusterPlan* plan = nullptr;
    std::vector<std::pair<rpc::CallChannel*, Codec*>> servers;
    const std::vector<std::string>* region_names = nullptr;
  };
  void SetClusterRoutes(ClusterRoutes routes) { routes_ = std::move(routes); }
  // Wakes the client if it sleeps until its next scheduled operation (open
  // loop), so it sees that the run is stopping.
  void Interrupt() { wake_.cancel(); }
  // Flattened, as Step is: the chain from a reply to the next call (decode,
  // finish, record, plan, issue: a dozen member calls, each saving and
  // restoring registers) is one function, about 130 instructions an
  // operation less.
  [[gnu::flatten]] void OnReply(const rpc::CallHeader& h, ByteView payload) override;
  void OnFailure(const Status& status) override;

  // The client's cleanup, as YCSB's ClientThread ends with db.cleanup():
  // from when it had no more operations to plan to its end, the final flush
  // of buffered puts included. cleanup_ns() < 0 when it had none (it failed,
  // or its final flush failed). Read on the client's thread once it ended.
  int64_t cleanup_ns() const { return cleanup_ns_; }
  // The cleanup carried the final flush (HBaseClient2 times it as an UPDATE).
  bool cleanup_flushed() const { return cleanup_flushed_; }
  // When the client ended (its cleanup done); epoch when it has not.
  LoadClock::time_point end_time() const { return end_time_; }

 private:
  // Plans and starts operations until one waits for a reply or its start
  // time, or the client ends.
  [[gnu::flatten]] void Step();
  // Plans the next operation into op_; false when the client has no more.
  bool PlanNext();
  // The open-loop timer fired (or was interrupted).
  void OnTimer(const boost::system::error_code& ec);
  // basicdb.simulatedelay: the delay of the call starting now, 0 for none.
  int64_t CallDelayMs();
  // basicdb.simulatedelay: BasicDB's delay() at the start of each of its
  // calls (a read-modify-write's read and its update each wait), inside the
  // measured latency. True if the client sleeps; its timer then goes on
  // with call call_index_.
  bool WaitCallDelay();
  // Starts call call_index_ of op_. True if it went out (its reply will
  // drive the client); false if the operation ended without it (encoding
  // failed: read_result_ says so; or the client failed) or, in-process, the
  // call was answered at once.
  bool IssueCall();
  // A cluster's call (routes_): points conn_ and codec_ at the server
  // holding call call_index_'s row and names that row's region in it. A
  // Multi whose rows are in several regions is split (SplitMulti) and its
  // parts go out one after another, this routing the part in turn.
  bool Route();
  // Splits call call_index_'s Multi by region, its parts in server order (as
  // HBase's client groups a batch by server, one region's actions a
  // RegionAction): fills split_ and points the call at the first part.
  void SplitMulti(MultiRequest* multi);
  // Points `multi` at part split_.next.
  void TakePart(MultiRequest* multi);
  // After a part's reply: sends the next part; true if one went out.
  bool NextPart();
  // Starts the planned op_ at `now`; true if a call is in flight.
  bool StartOp(LoadClock::time_point now);
  // Issues op_'s calls from call_index_ on; true if one is in flight,
  // otherwise op_ is finished (recorded) unless the client failed.
  bool ContinueOp();
  // Records the finished op_.
  void FinishOp();
  // Ends the client: reports a failure and tells the run it is done.
  void End();
  void DecodeReply(ByteView payload);
  // A Get's reply: its result to count, and the data-integrity check if any.
  void TakeRead(const GetResponse& read);
  // A Multi's reply: the results of the batched reads it carried, and a
  // failed put counted against op_.
  void TakeMulti(const MultiRequest& request, const MultiResponse& reply);
  // The Multi that carried the batched reads returned at `end` (or failed):
  // records each of them, timed from its own start.
  void RecordBatchedReads(LoadClock::time_point end);
  // DriverOptions::in_process (YCSB's BasicDB, conn_ null): answers call
  // call_index_ of op_ here as BasicDB does (OK; a read with no fields, a
  // scan with no records).
  void AnswerInProcess();
  // Records one finished operation: its latency (RecordLatency) and its
  // count towards the run's operations.
  void Record(OpType type, OpResult result, LoadClock::time_point intended,
              LoadClock::time_point start, LoadClock::time_point end, bool measured);
  // Records the latency and result of `type` (unmeasured: allocates the
  // histograms that will be needed, so the measured phase allocates nothing).
  void RecordLatency(OpType type, OpResult result, LoadClock::time_point intended,
                     LoadClock::time_point start, LoadClock::time_point end, bool measured);
  // Read-modify-write, as YCSB's DBWrapper times its halves: the read's
  // reply came (recorded as a READ with its result).
  void OnRmwReadReply();
  // Records what a rare operation adds (see rare_) and returns the result
  // to record the operation itself with.
  OpResult FinishRareOp(LoadClock::time_point end);
  // Keeps one latency sample (DriverOptions::keep_samples).
  void KeepSample(OpType type, OpResult result, LoadClock::time_point end, int64_t latency_ns,
                  int64_t intended_ns);
  void RecordLateness(LoadClock::time_point intended, LoadClock::time_point start, bool waited);

  RunState* state_;
  ClientThread* thread_;
  rpc::CallChannel* conn_;
  Codec* codec_;
  ClusterRoutes routes_;
  uint32_t server_ = 0;  // A cluster's: the server of the call in flight (Route).
  std::unique_ptr<OpStream> stream_;
  int64_t quota_;
  double interval_ns_;
  double stagger_ns_;
  boost::asio::steady_timer wake_;
  PlannedOp op_;
  int call_index_ = 0;           // The call of op_ in flight (or next).
  int delayed_call_ = -1;        // The call of op_ whose simulated delay was waited.
  bool measured_ = false;        // op_ was planned in the measured phase.
  bool flushed_ = false;         // op_ is (or was) the stream's final flush.
  bool waited_ = false;          // op_'s client slept until its start time.
  uint64_t delay_rng_ = 0;       // basicdb.randomizedelay's draws (splitmix64).
  bool in_flight_ = false;       // A call of op_ awaits its reply.
  bool ended_ = false;
  bool failed_ = false;
  LoadClock::time_point next_intended_;
  LoadClock::time_point intended_;
  LoadClock::time_point start_;
  OpResult read_result_ = OpResult::kOk;
  // Rows the current operation's Scan replies carried (SCAN-LATENCY-PER-RECORD).
  size_t scanned_rows_ = 0;
  // op_ needs more than its own record (FinishRareOp): a read-modify-write's
  // update half, or a read's data-integrity check.
  bool rare_ = false;
  // Read-modify-write: the read half was recorded, at rmw_update_start_.
  bool rmw_read_recorded_ = false;
  OpStream::Verification verify_;  // The check of op_'s read, when one is pending.
  LoadClock::time_point rmw_update_start_;
  // Cleanup: started when the stream had nothing more (cleanup_start_).
  bool cleanup_started_ = false;
  bool flush_failed_ = false;
  bool cleanup_flushed_ = false;
  LoadClock::time_point cleanup_start_;
  int64_t cleanup_ns_ = -1;
  LoadClock::time_point end_time_;
  // Reads waiting in the stream's batch (PlannedOp::batched_read), in the
  // order their gets went into it; both reserved once, at the batch's size.
  struct BatchedRead {
    LoadClock::time_point intended;
    LoadClock::time_point start;
    bool measured = false;
    OpResult result = OpResult::kError;  // Until the Multi's reply says otherwise.
    OpStream::Verification verify;
  };
  std::vector<BatchedRead> batched_reads_;
  std::vector<uint32_t> read_slot_;  // A Multi's action index -> its read in batched_reads_.
  // A cluster's Multi split by region (SplitMulti): its actions grouped by
  // part, each action's read slot (read_slot_ of the whole batch), and the
  // parts; `next` is the part in flight. Empty parts: no split under way.
  struct SplitPart {
    uint32_t region = 0, begin = 0, count = 0;
  };
  struct Split {
    std::vector<Action> actions;
    std::vector<uint32_t> slots;
    std::vector<uint32_t> batch_slots;  // The same, in the batch's order.
    std::vector<SplitPart> parts;
    size_t next = 0;
    bool active() const { return !parts.empty(); }
  } split_;
};

}  // namespace wirebench
