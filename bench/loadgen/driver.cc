#include "bench/loadgen/driver.h"

#include <sys/prctl.h>

#include <boost/asio.hpp>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "codecs/codec.h"
#include "common/callgrind_marks.h"

namespace wirebench {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);
std::atomic<bool> g_stop_requested{false};

enum Phase : int { kWarmup = 0, kMeasure = 1, kStopping = 2 };

struct RunState;
struct ClientThread;

int64_t Nanos(Clock::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

// One logical client: a coroutine with one operation in flight.
class LogicalClient final : public rpc::PendingCall {
 public:
  LogicalClient(RunState* state, ClientThread* thread, rpc::ClientConnection* conn, Codec* codec,
                std::unique_ptr<OpStream> stream, int64_t quota, double interval_ns,
                double stagger_ns)
      : state_(state),
        thread_(thread),
        conn_(conn),
        codec_(codec),
        stream_(std::move(stream)),
        quota_(quota),
        interval_ns_(interval_ns),
        stagger_ns_(stagger_ns),
        wake_(IoContextOf(thread)) {}

  asio::awaitable<void> Run();
  void OnReply(const rpc::FrameHeader& h, ByteView payload) override;
  void OnFailure(const Status& status) override;

 private:
  static asio::io_context& IoContextOf(ClientThread* t);
  asio::awaitable<bool> DoCall(const PlannedCall& call);
  void Record(OpType type, OpResult result, Clock::time_point intended, Clock::time_point start,
              Clock::time_point end, bool measured);

  RunState* state_;
  ClientThread* thread_;
  rpc::ClientConnection* conn_;
  Codec* codec_;
  std::unique_ptr<OpStream> stream_;
  int64_t quota_;
  double interval_ns_;
  double stagger_ns_;  // Open loop: offset of this client's schedule, as YCSB spreads threads.
  asio::steady_timer wake_;
  PlannedOp op_;
  const PlannedCall* call_ = nullptr;
  bool done_ = false;
  bool failed_ = false;
  OpResult read_result_ = OpResult::kOk;
};

struct ClientThread {
  asio::io_context ctx{1};
  std::thread thread;
  std::vector<std::shared_ptr<rpc::ClientConnection>> conns;
  std::vector<std::unique_ptr<Codec>> codecs;  // One per connection.
  std::vector<std::unique_ptr<LogicalClient>> clients;
  std::array<OpStats, kOpTypes> stats;
  std::array<OpStats, kOpTypes> interval;
  hdr::Histogram lateness;
  hdr::Histogram timer_lateness;
  uint64_t behind_schedule = 0;
  uint64_t measured_ops = 0;
  Status error;  // First failure seen by this thread.
};

struct RunState {
  const DriverOptions* options = nullptr;
  std::atomic<int> phase{kWarmup};
  std::atomic<int> clients_left{0};
  std::atomic<int64_t> last_end_ns{0};  // Steady-clock ns of the last measured op's end.
  std::atomic<bool> failed{false};
  Clock::time_point open_loop_start;
  std::mutex mu;
  std::condition_variable cv;
  void ClientDone() {
    if (clients_left.fetch_sub(1) == 1) {
      std::lock_guard<std::mutex> lock(mu);
      cv.notify_all();
    }
  }
  void Fail() {
    failed.store(true);
    phase.store(kStopping);
    std::lock_guard<std::mutex> lock(mu);
    cv.notify_all();
  }
};

asio::io_context& LogicalClient::IoContextOf(ClientThread* t) { return t->ctx; }

void LogicalClient::OnReply(const rpc::FrameHeader& h, ByteView payload) {
  done_ = true;
  wake_.cancel();
  if (h.status != uint8_t(CallStatus::kOk)) {
    read_result_ = OpResult::kError;
    return;
  }
  Status s;
  switch (call_->method) {
    case Method::kMutate: {
      MutateResponse r;
      s = codec_->DecodeResponse(payload, &r);
      break;
    }
    case Method::kGet: {
      GetResponse r;
      s = codec_->DecodeResponse(payload, &r);
      if (s.ok()) read_result_ = stream_->OnRead(op_, r);
      break;
    }
    case Method::kScan: {
      ScanResponse r;
      s = codec_->DecodeResponse(payload, &r);
      break;
    }
    case Method::kMulti: {
      MultiResponse r;
      s = codec_->DecodeResponse(payload, &r);
      if (s.ok())
        for (const ActionResult& ar : r.results)
          if (!ar.ok) read_result_ = OpResult::kError;
      break;
    }
    default:
      break;
  }
  if (!s.ok()) read_result_ = OpResult::kError;
}

void LogicalClient::OnFailure(const Status& status) {
  done_ = true;
  failed_ = true;
  if (thread_->error.ok()) thread_->error = status;
  wake_.cancel();
}

asio::awaitable<bool> LogicalClient::DoCall(const PlannedCall& call) {
  call_ = &call;
  uint32_t call_id = 0;
  ByteBuffer* out = conn_->BeginCall(uint8_t(call.method), this, &call_id);
  if (out == nullptr) {
    failed_ = true;
    if (thread_->error.ok()) thread_->error = conn_->error();
    co_return false;
  }
  Status s;
  switch (call.method) {
    case Method::kMutate: s = codec_->EncodeRequest(call_id, call.mutate, out); break;
    case Method::kGet: s = codec_->EncodeRequest(call_id, call.get, out); break;
    case Method::kScan: s = codec_->EncodeRequest(call_id, call.scan, out); break;
    case Method::kMulti: s = codec_->EncodeRequest(call_id, call.multi, out); break;
    default: s = Status::InvalidArgument("not a region method"); break;
  }
  if (!s.ok()) {
    conn_->Abandon();
    read_result_ = OpResult::kError;
    co_return true;
  }
  done_ = false;
  conn_->Send();
  while (!done_) {
    wake_.expires_at(Clock::time_point::max());
    co_await wake_.async_wait(kNoThrow);
  }
  co_return !failed_;
}

void LogicalClient::Record(OpType type, OpResult result, Clock::time_point intended,
                           Clock::time_point start, Clock::time_point end, bool measured) {
  if (!measured) return;
  const size_t t = size_t(type);
  const int64_t latency = Nanos(end - start);
  OpStats& s = thread_->stats[t];
  OpStats& iv = thread_->interval[t];
  if (result == OpResult::kError) {
    s.failed_latency.Record(latency);
    iv.failed_latency.Record(latency);
  } else {
    s.latency.Record(latency);
    iv.latency.Record(latency);
  }
  if (interval_ns_ > 0 && result != OpResult::kError) {
    const int64_t intended_latency = Nanos(end - intended);
    s.intended_latency.Record(intended_latency);
    iv.intended_latency.Record(intended_latency);
  }
  ++s.results[size_t(result)];
  ++iv.results[size_t(result)];
  ++thread_->measured_ops;
  state_->last_end_ns.store(Nanos(end.time_since_epoch()), std::memory_order_relaxed);
}

asio::awaitable<void> LogicalClient::Run() {
  const DriverOptions& o = *state_->options;
  Clock::time_point next_intended =
      state_->open_loop_start + std::chrono::nanoseconds(int64_t(stagger_ns_));
  bool flushed = false;
  for (;;) {
    const int phase = state_->phase.load(std::memory_order_relaxed);
    bool have_op = false;
    if (phase != kStopping && !g_stop_requested.load(std::memory_order_relaxed) &&
        !(phase == kMeasure && o.operations > 0 && quota_ <= 0)) {
      have_op = stream_->Next(&op_);
    }
    if (!have_op) {
      if (flushed || failed_ || !stream_->Flush(&op_)) break;
      flushed = true;
    }
    const bool measured = phase == kMeasure;
    Clock::time_point intended = Clock::now();
    bool waited = false;
    if (interval_ns_ > 0 && !flushed) {
      intended = next_intended;
      next_intended += std::chrono::nanoseconds(int64_t(interval_ns_));
      if (intended > Clock::now()) {
        waited = true;
        wake_.expires_at(intended);
        co_await wake_.async_wait(kNoThrow);
      }
    }
    const Clock::time_point start = Clock::now();
    if (interval_ns_ > 0 && measured && !flushed) {
      thread_->lateness.Record(Nanos(start - intended));
      if (waited) {
        thread_->timer_lateness.Record(Nanos(start - intended));
      } else {
        ++thread_->behind_schedule;
      }
    }
    read_result_ = OpResult::kOk;
    for (int i = 0; i < op_.ncalls; ++i) {
      if (!co_await DoCall(op_.calls[i])) break;
      if (read_result_ == OpResult::kError) break;
    }
    if (failed_) break;
    const Clock::time_point end = Clock::now();
    stream_->Finish(op_, read_result_);
    Record(op_.type, read_result_, intended, start, end, measured);
    if (measured) --quota_;
  }
  if (failed_) state_->Fail();
  state_->ClientDone();
}

// Runs `fn` on the thread's event loop and waits for it.
template <typename Fn>
void RunOn(ClientThread* t, Fn fn) {
  std::promise<void> done;
  asio::post(t->ctx, [&] {
    fn();
    done.set_value();
  });
  done.get_future().wait();
}

// One pass over the registered threads (each pass reads /proc per thread).
ThreadUsage ClientUsage() { return RoleUsage({ThreadRole::kClientLoop, ThreadRole::kClientOs}); }

CounterTotals ClientCounters() {
  return RoleTotals({ThreadRole::kClientLoop, ThreadRole::kClientOs});
}

// Fetches the server's Stats over an existing load connection (on its
// thread), so no connection is set up on the server inside the measured
// phase and the figures are the same whether the server is local or remote.
class StatsCall final : public rpc::PendingCall {
 public:
  void OnReply(const rpc::FrameHeader& h, ByteView payload) override {
    if (h.status != uint8_t(CallStatus::kOk)) {
      done.set_value(Status::Unavailable("server Stats call failed: " + payload.ToString()));
      return;
    }
    auto j = nlohmann::json::parse(payload.str(), nullptr, false);
    if (j.is_discarded()) {
      done.set_value(Status::Corruption("server Stats reply is not JSON"));
    } else {
      done.set_value(std::move(j));
    }
  }
  void OnFailure(const Status& s) override { done.set_value(s); }
  std::promise<StatusOr<nlohmann::json>> done;
};

StatusOr<nlohmann::json> FetchStats(ClientThread* t) {
  StatsCall call;
  auto reply = call.done.get_future();
  bool sent = false;
  RunOn(t, [&] {
    rpc::ClientConnection* c = t->conns.front().get();
    if (c->BeginCall(uint8_t(Method::kStats), &call) == nullptr) return;
    c->Send();
    sent = true;
  });
  if (!sent) return Status::Unavailable("cannot send the Stats call: connection is down");
  if (reply.wait_for(std::chrono::seconds(10)) != std::future_status::ready)
    return Status::Unavailable("no Stats reply from the server within 10 s");
  return reply.get();
}

}  // namespace

void RequestStop() { g_stop_requested.store(true); }
void ResetStopRequest() { g_stop_requested.store(false); }

StatusOr<RunResult> RunLoad(const DriverOptions& o, Workload* workload) {
  if (o.threads < 1) return Status::InvalidArgument("-threads must be at least 1");
  if (o.client_io_threads < 1)
    return Status::InvalidArgument("--client-io-threads must be at least 1");
  if (o.connections < 1) return Status::InvalidArgument("--connections must be at least 1");
  const CodecInfo* codec = FindCodec(o.codec);
  if (codec == nullptr)
    return Status::InvalidArgument("unknown codec '" + o.codec + "'; known codecs: " +
                                   CodecNames());
  const bool os_model = o.thread_model == ThreadModel::kOs;
  const int nthreads = os_model ? o.threads : std::min(o.client_io_threads, o.threads);
  const int nconns_total = os_model ? o.threads : std::max(o.connections, nthreads);

  RunState state;
  state.options = &o;
  state.clients_left.store(o.threads);
  state.phase.store(o.warmup_seconds > 0 ? kWarmup : kMeasure);

  std::vector<std::unique_ptr<ClientThread>> threads;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards;
  for (int i = 0; i < nthreads; ++i) {
    threads.push_back(std::make_unique<ClientThread>());
    ClientThread* t = threads.back().get();
    guards.emplace_back(asio::make_work_guard(t->ctx));
    const ThreadRole role = os_model ? ThreadRole::kClientOs : ThreadRole::kClientLoop;
    t->thread = std::thread([t, i, role] {
      std::string name = "client-" + std::to_string(i);
      RegisterThisThread(role, name.c_str());
      // Linux lets a sleeping thread's timer fire up to 50 us late by default
      // (timer slack); open-loop pacing wants it on time.
      prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
      t->ctx.run();
    });
  }
  auto shutdown = [&] {
    for (auto& t : threads) {
      ClientThread* raw = t.get();
      asio::post(raw->ctx, [raw] {
        for (auto& c : raw->conns) c->Close();
      });
    }
    guards.clear();
    for (auto& t : threads) t->thread.join();
  };

  // Connect every connection on its own thread.
  Status connect_error;
  for (int i = 0; i < nthreads; ++i) {
    ClientThread* t = threads[size_t(i)].get();
    const int n = nconns_total / nthreads + (i < nconns_total % nthreads ? 1 : 0);
    std::promise<Status> connected;
    asio::co_spawn(
        t->ctx,
        [&, t, n]() -> asio::awaitable<void> {
          for (int c = 0; c < n; ++c) {
            rpc::ClientOptions co;
            co.host = o.host;
            co.port = o.port;
            co.codec_id = uint8_t(codec->id);
            auto conn = co_await rpc::ClientConnection::Connect(t->ctx, co);
            if (!conn.ok()) {
              connected.set_value(conn.status());
              co_return;
            }
            t->conns.push_back(*conn);
            t->codecs.push_back(codec->factory());
          }
          connected.set_value(Status::Ok());
        },
        asio::detached);
    Status s = connected.get_future().get();
    if (!s.ok()) {
      connect_error = s;
      break;
    }
  }
  if (!connect_error.ok()) {
    shutdown();
    return connect_error;
  }

  // Logical clients: round-robin over threads, then over each thread's connections.
  const double per_client_interval_ns = o.target_ops > 0 ? 1e9 * o.threads / o.target_ops : 0;
  for (int i = 0; i < o.threads; ++i) {
    ClientThread* t = threads[size_t(i % nthreads)].get();
    const size_t ci = size_t(i / nthreads) % t->conns.size();
    const int64_t quota =
        o.operations > 0 ? o.operations / o.threads + (i < o.operations % o.threads ? 1 : 0) : 0;
    t->clients.push_back(std::make_unique<LogicalClient>(
        &state, t, t->conns[ci].get(), t->codecs[ci].get(), workload->NewStream(i, o.threads),
        quota, per_client_interval_ns, per_client_interval_ns * i / o.threads));
  }
  auto spawn_clients = [&] {
    state.open_loop_start = Clock::now();
    for (auto& t : threads) {
      for (auto& c : t->clients) {
        LogicalClient* lc = c.get();
        asio::co_spawn(t->ctx, [lc]() { return lc->Run(); }, asio::detached);
      }
    }
  };
  RunResult result;
  auto wait_until = [&](Clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(state.mu);
    state.cv.wait_until(lock, deadline, [&] {
      return state.clients_left.load() == 0 || state.failed.load() ||
             g_stop_requested.load();
    });
  };
  // With a warm-up, clients start now and run unmeasured; without one they
  // start only once the "before" snapshots are taken.
  if (o.warmup_seconds > 0) {
    spawn_clients();
    wait_until(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(o.warmup_seconds)));
  }
  // Measured phase begins.
  if (o.fetch_server_stats) {
    auto before = FetchStats(threads.front().get());
    if (before.ok()) {
      result.server_before = *before;
    } else {
      result.server_stats_error = before.status().ToString();
    }
  }
  const ThreadUsage usage_before = ClientUsage();
  const CounterTotals counters_before = ClientCounters();
  callgrind::StartPhase();  // Hook (--instructions): no-op outside Valgrind.
  const Clock::time_point measure_start = Clock::now();
  state.phase.store(kMeasure);
  for (auto& t : threads) RunOn(t.get(), [] {});  // Barrier: threads see the phase change.
  ArmAllocationTrap(true);
  if (o.warmup_seconds <= 0) spawn_clients();

  const Clock::time_point hard_end =
      o.max_seconds > 0 ? measure_start + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(o.max_seconds))
                        : Clock::time_point::max();
  Clock::time_point next_status =
      o.status_interval_s > 0 ? measure_start + std::chrono::duration_cast<Clock::duration>(
                                                    std::chrono::duration<double>(
                                                        o.status_interval_s))
                              : Clock::time_point::max();
  auto take_snapshot = [&](Clock::time_point now, bool final) {
    StatusSnapshot snap;
    snap.final = final;
    for (auto& t : threads) {
      ClientThread* raw = t.get();
      std::array<OpStats, kOpTypes> taken;
      RunOn(raw, [&] {
        std::swap(taken, raw->interval);
        snap.operations += raw->measured_ops;
      });
      for (int k = 0; k < kOpTypes; ++k) snap.interval[size_t(k)].Add(taken[size_t(k)]);
    }
    if (o.on_status) o.on_status(std::chrono::duration<double>(now - measure_start).count(), snap);
  };
  for (;;) {
    wait_until(std::min(hard_end, next_status));
    if (state.clients_left.load() == 0 || state.failed.load() || g_stop_requested.load()) break;
    const Clock::time_point now = Clock::now();
    if (now >= hard_end) break;
    if (now >= next_status) {
      take_snapshot(now, /*final=*/false);
      next_status += std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(o.status_interval_s));
    }
  }
  const bool all_done = state.clients_left.load() == 0;
  state.phase.store(kStopping);
  {
    std::unique_lock<std::mutex> lock(state.mu);
    state.cv.wait_for(lock, std::chrono::seconds(10),
                      [&] { return state.clients_left.load() == 0; });
  }
  Clock::time_point measure_end = Clock::now();
  if (all_done && state.last_end_ns.load() > 0)
    measure_end = Clock::time_point(std::chrono::nanoseconds(state.last_end_ns.load()));
  ArmAllocationTrap(false);
  result.client_usage = ClientUsage() - usage_before;
  result.client_counters = ClientCounters() - counters_before;
  callgrind::EndPhase(callgrind::kClientPhaseLabel);  // Hook (--instructions).
  if (o.status_interval_s > 0) take_snapshot(measure_end, /*final=*/true);
  if (o.fetch_server_stats && !state.failed.load()) {
    auto after = FetchStats(threads.front().get());
    if (after.ok()) {
      result.server_after = *after;
    } else {
      result.server_stats_error = after.status().ToString();
    }
  }
  // Collect per-thread results on their own threads, then stop them.
  for (auto& t : threads) {
    ClientThread* raw = t.get();
    RunOn(raw, [&] {
      for (int k = 0; k < kOpTypes; ++k) result.ops[size_t(k)].Add(raw->stats[size_t(k)]);
      result.schedule_lateness.Add(raw->lateness);
      result.timer_lateness.Add(raw->timer_lateness);
      result.behind_schedule += raw->behind_schedule;
      result.operations += raw->measured_ops;
      for (auto& c : raw->conns) {
        result.connections += c->stats();
      }
      if (!raw->error.ok() && result.error.ok()) result.error = raw->error;
    });
  }
  result.runtime_s = std::chrono::duration<double>(measure_end - measure_start).count();
  if (state.failed.load() || g_stop_requested.load()) {
    result.partial = true;
    if (result.error.ok()) result.error = Status::Aborted("stopped on request (SIGINT)");
  }
  shutdown();
  for (auto& t : threads) t->clients.clear();
  return result;
}

}  // namespace wirebench
