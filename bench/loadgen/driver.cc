#include "bench/loadgen/driver.h"

#include <sys/prctl.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <future>
#include <system_error>

#include "hdr/ycsb_summary.h"
#include "bench/loadgen/client_limits.h"
#include "bench/loadgen/logical_client.h"
#include "bench/loadgen/stats_client.h"
#include "bench/results/cluster_stats.h"
#include "codecs/codec.h"
#include "common/callgrind_marks.h"
#include "transports/transport.h"

namespace wirebench {

namespace asio = boost::asio;
using Clock = LoadClock;

namespace {

// A connection attempt that makes no progress for this long fails.
constexpr auto kConnectTimeout = std::chrono::seconds(10);
constexpr auto kStatsTimeout = std::chrono::seconds(10);
// After the run ends, calls in flight get this long to be answered before
// their connections are closed (after a stop request: kStopGrace).
constexpr auto kDrainTimeout = std::chrono::seconds(2);
// Everything left after a stop request (drain, Stats) fits in this, so a
// SIGINT ends the run well within a second.
constexpr auto kStopGrace = std::chrono::milliseconds(300);
constexpr auto kPoll = std::chrono::milliseconds(20);

Clock::duration Seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// Runs `fn` on the thread's event loop and waits for it. An OS-model
// thread waiting for a reply is woken to run it.
template <typename Fn>
void RunOn(ClientThread* t, Fn fn) {
  std::promise<void> done;
  asio::post(t->ctx, [&] {
    fn();
    done.set_value();
  });
  if (t->os_channel) t->os_channel->Wake();
  done.get_future().wait();
}

// Waits until `wait_for(d)`, a wait of at most d (0: only a look) that says
// whether what is awaited is done, returns true, or until `deadline`, which a
// stop request shortens to kStopGrace from when it is seen. False if it is
// still not done.
template <typename WaitFor>
bool WaitStopAwareFor(WaitFor&& wait_for, Clock::time_point deadline) {
  for (;;) {
    if (StopRequested()) deadline = std::min(deadline, Clock::now() + kStopGrace);
    const auto now = Clock::now();
    if (now >= deadline) return wait_for(Clock::duration::zero());
    if (wait_for(std::min<Clock::duration>(kPoll, deadline - now))) return true;
  }
}

// The same for a future.
template <typename T>
bool WaitStopAware(const std::future<T>& f, Clock::time_point deadline) {
  return WaitStopAwareFor(
      [&f](Clock::duration d) { return f.wait_for(d) == std::future_status::ready; }, deadline);
}

Status StopStatus() {
  return Status::Aborted("stopped on request (" + StopReasonText(StopRequestReason()) + ")");
}

// One pass over the registered threads (each pass reads /proc per thread),
// plus the threads the transport starts on its own (gRPC's).
ThreadUsage ClientUsage(const Transport& transport) {
  ThreadUsage u = RoleUsage({ThreadRole::kClientLoop, ThreadRole::kClientOs});
  u += transport.OwnThreadsUsage();
  return u;
}

CounterTotals ClientCounters(const Transport& transport) {
  CounterTotals c = RoleTotals({ThreadRole::kClientLoop, ThreadRole::kClientOs});
  c += transport.OwnThreadsCounters();
  return c;
}

// The error of a Stats call that got no answer in time.
Status StatsUnanswered(const std::string& peer) {
  return Status::Unavailable(peer + " did not answer the Stats call" +
                             (StopRequested() ? " before the stop" : " within 10 s"));
}

// Fetches the server's Stats over one of `t`'s load connections (on its
// thread), so no connection is set up on the server inside the measured
// phase and the figures are the same whether the server is local or remote.
// A call left unanswered is unregistered before returning.
StatusOr<nlohmann::json> FetchStats(ClientThread* t, size_t conn) {
  StatsReplyCall call;
  auto reply = call.done.get_future();
  rpc::CallChannel* c = t->conns[conn].get();
  uint32_t call_id = 0;
  bool sent = false;
  RunOn(t, [&] {
    if (c->BeginCall(uint8_t(Method::kStats), &call, &call_id) == nullptr) return;
    c->Send();
    sent = true;
  });
  if (!sent) return Status::Unavailable("cannot send the Stats call: connection is down");
  if (!WaitStopAware(reply, Clock::now() + kStatsTimeout)) {
    RunOn(t, [&] { c->Cancel(call_id); });
    if (reply.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
      return StatsUnanswered(c->peer());
  }
  return reply.get();
}

// The same over the driver's own channel on a shared connection (OS-thread
// model), waited for on the driver's thread.
StatusOr<nlohmann::json> FetchStats(rpc::SharedChannel* c) {
  StatsReplyCall call;
  auto reply = call.done.get_future();
  uint32_t call_id = 0;
  if (c->BeginCall(uint8_t(Method::kStats), &call, &call_id) == nullptr)
    return Status::Unavailable("cannot send the Stats call: connection is down");
  c->Send();
  const bool answered = WaitStopAwareFor(
      [c](Clock::duration d) {
        if (c->waiting() && d > Clock::duration::zero()) c->WaitReply(d);
        return !c->waiting();
      },
      Clock::now() + kStatsTimeout);
  if (!answered) {
    c->Cancel(call_id);
    return StatsUnanswered(c->peer());
  }
  return reply.get();
}

// One run, phase by phase. Run() is the whole sequence; each phase leaves
// the object ready for the next, and the destructor stops whatever was
// started if a phase failed.
class LoadRun {
 public:
  LoadRun(const DriverOptions& o, Workload* workload) : o_(o), workload_(workload) {
    state_.options = &o_;
    state_.phase.store(o_.warmup_seconds > 0 ? kWarmup : kMeasure);
  }
  ~LoadRun() { Shutdown(/*force=*/true); }

  StatusOr<RunResult> Run() {
    WB_RETURN_IF_ERROR(ValidateDriverOptions(o_));
    state_.clients_left.store(lanes_);  // Each lane is a LogicalClient.
    layout_ = PlanLayout(o_);
    WB_RETURN_IF_ERROR(ConnectShared());
    WB_RETURN_IF_ERROR(StartThreads());
    // YCSB's RunTime starts once its client threads are started, before
    // they connect (their init()).
    client_start_ = Clock::now();
    result_.samples_epoch_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::system_clock::now().time_since_epoch())
            .count() -
        std::chrono::duration_cast<std::chrono::nanoseconds>(client_start_.time_since_epoch())
            .count();
    WB_RETURN_IF_ERROR(Connect());
    for (uint32_t r = 0; o_.cluster.clustered() && r < o_.cluster.layout.regions(); ++r)
      region_names_.push_back(UserTableRegionName(o_.cluster.layout.StartKey(r)));
    PlaceClients();
    Warmup();
    if (o_.on_ready) WB_RETURN_IF_ERROR(o_.on_ready());
    Measure();
    Drain();
    Collect();
    Shutdown(/*force=*/false);
    return std::move(result_);
  }

 private:
  Status ConnectShared();
  Status StartThreads();
  Status Connect();
  // Fetches the server's Stats over the run's first connection.
  StatusOr<nlohmann::json> FetchServerStats();
  // A cluster's: each server's own (RunResult::cluster_servers, `after` or
  // before the measured phase), and the cluster's combined from those that
  // answered (CombineClusterStats); server_stats_error names any that did
  // not. After: the "before" is combined again from the same servers.
  StatusOr<nlohmann::json> FetchClusterStats(bool after);
  Status ConnectThread(ClientThread* t, int n);
  // Where the servers are: the cluster's, or the one server's.
  const std::vector<rpc::Endpoint>& ServerEndpoints() const { return endpoints_; }
  // A cluster's routes of a logical client on connection `ci` of each
  // server on `t`.
  LogicalClient::ClusterRoutes RoutesOf(ClientThread* t, size_t ci) const;
  void PlaceClients();
  // Reserves `t`'s samples for a lane of `quota` operations (keep_samples).
  void ReserveSamples(ClientThread* t, int64_t quota);
  void SpawnClients();
  void Warmup();
  // Every client connection's counts, read on its own thread.
  rpc::ClientConnectionStats ConnectionTotals();
  void BeginMeasure();
  void Measure();
  void TakeSnapshot(Clock::time_point now, bool final);
  void Drain();
  void Collect();
  // One logical client's cleanup, from its `pipeline` lanes.
  void CollectCleanup(const std::unique_ptr<LogicalClient>* lanes);
  void Shutdown(bool force);

  const DriverOptions o_;
  const std::vector<rpc::Endpoint> endpoints_ =
      o_.cluster.clustered() ? o_.cluster.servers
                             : std::vector<rpc::Endpoint>{rpc::Endpoint{o_.host, o_.port}};
  // A cluster's region names, as HBase's codecs write them.
  std::vector<std::string> region_names_;
  // LogicalClients in all: -threads x --pipeline (valid once validated).
  const int lanes_ = int(std::clamp<int64_t>(int64_t(o_.threads) * o_.pipeline, 0, INT32_MAX));
  Workload* workload_;
  RunState state_;
  LoadLayout layout_;
  // OS-thread model over a transport whose client threads share
  // connections: those connections, and the driver's own channel for Stats.
  const bool shared_os_ = o_.thread_model == ThreadModel::kOs && !o_.in_process &&
                          o_.transport->SharesConnectionsAcrossThreads();
  std::vector<std::unique_ptr<rpc::SharedConnection>> shared_;
  std::unique_ptr<rpc::SharedChannel> stats_channel_;
  std::vector<std::unique_ptr<ClientThread>> threads_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards_;
  RunResult result_;
  bool all_done_ = false;
  ThreadUsage usage_before_;
  CounterTotals counters_before_;
  // The client connections' byte and frame counts at the start of the
  // measured phase (they count from the connection's start: warm-up too).
  rpc::ClientConnectionStats connections_before_;
  Clock::time_point measure_start_;
  Clock::time_point measure_end_;
  Clock::time_point client_start_;
  Clock::time_point last_client_end_;
};

// OS-thread model over a transport that shares connections: opens the
// connections the client threads will share, each with its reader thread (a
// client thread too).
Status LoadRun::ConnectShared() {
  if (!shared_os_) return Status::Ok();
  for (int c = 0; c < layout_.connections; ++c) {
    rpc::SharedConnectionOptions so;
    so.host = o_.host;
    so.port = o_.port;
    so.codec_id = uint8_t(o_.codec->id);  // The preamble's byte.
    so.max_channels = layout_.max_clients_per_connection + (c == 0 ? 1 : 0);  // + Stats.
    so.reader_role = ThreadRole::kClientOs;
    so.reader_name = "client-reader-" + std::to_string(c);
    so.cancelled = [] { return StopRequested(); };
    auto conn = o_.transport->ConnectShared(std::move(so));
    if (!conn.ok()) {
      if (conn.status().code() == Status::Code::kAborted)
        return Status::Aborted("stopped by " + StopReasonText(StopRequestReason()) +
                               " while connecting");
      return conn.status();
    }
    shared_.push_back(std::move(*conn));
  }
  stats_channel_ = shared_.front()->NewChannel();
  return Status::Ok();
}

Status LoadRun::StartThreads() {
  const bool os_model = o_.thread_model == ThreadModel::kOs;
  const ThreadRole role = os_model ? ThreadRole::kClientOs : ThreadRole::kClientLoop;
  for (int i = 0; i < layout_.client_threads; ++i) {
    threads_.push_back(std::make_unique<ClientThread>());
    ClientThread* t = threads_.back().get();
    if (o_.histograms_up_front)
      for (OpType type : {OpType::kRead, OpType::kUpdate, OpType::kInsert, OpType::kScan,
                          OpType::kReadModifyWrite, OpType::kScanPerRecord})
        t->stats[size_t(type)].latency = std::make_unique<hdr::Histogram>();
    if (shared_os_) {  // Thread i runs logical client i: spread over the connections.
      t->os_channel = shared_[size_t(i) % shared_.size()]->NewChannel();
      t->codecs.push_back(o_.codec->factory());
    }
    guards_.emplace_back(asio::make_work_guard(t->ctx));
    try {
      t->thread = std::thread([t, i, role, os_model] {
        std::string name = "client-" + std::to_string(i);
        RegisterThisThread(role, name.c_str());
        // Linux lets a sleeping thread's timer fire up to 50 us late by default
        // (timer slack); open-loop pacing wants it on time.
        prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
        if (os_model) {
          t->RunOsLoop();
        } else {
          t->ctx.run();
        }
      });
    } catch (const std::system_error& e) {
      threads_.pop_back();
      guards_.pop_back();
      return Status::ResourceExhausted("cannot start client thread " + std::to_string(i + 1) +
                                       " of " + std::to_string(layout_.client_threads) + ": " +
                                       e.what() + ": lower -threads or --client-io-threads");
    }
  }
  return Status::Ok();
}

// Connects `n` connections on `t`'s own thread. The wait is bounded: it
// gives up when a stop is requested or no connection completes for
// kConnectTimeout (the coroutine is then abandoned with the thread's loop).
Status LoadRun::ConnectThread(ClientThread* t, int n) {
  struct Progress {
    std::promise<Status> done;
    std::atomic<int> connected{0};
  };
  auto progress = std::make_shared<Progress>();
  // Each server's endpoint: `n` connections to each, server after server.
  std::vector<EndpointOptions> servers;
  for (const rpc::Endpoint& where : ServerEndpoints()) {
    EndpointOptions eo;
    eo.host = where.host;
    eo.port = where.port;
    eo.codec = o_.codec;
    eo.client_options = o_.transport_client_options;
    if (o_.cluster.clustered()) eo.cluster = &o_.cluster;
    servers.push_back(std::move(eo));
  }
  const Transport* transport = o_.transport;
  asio::co_spawn(
      t->ctx,
      [t, n, servers, transport, progress]() -> asio::awaitable<void> {
        for (const EndpointOptions& eo : servers) {
          for (int c = 0; c < n; ++c) {
            auto ep = co_await transport->Connect(t->ctx, eo);
            if (!ep.ok()) {
              progress->done.set_value(ep.status());
              co_return;
            }
            t->conns.push_back(std::move(ep->channel));
            t->codecs.push_back(std::move(ep->codec));
            progress->connected.fetch_add(1);
          }
        }
        progress->done.set_value(Status::Ok());
      },
      asio::detached);
  auto done = progress->done.get_future();
  int seen = 0;
  Clock::time_point deadline = Clock::now() + kConnectTimeout;
  while (done.wait_for(kPoll) != std::future_status::ready) {
    if (StopRequested())
      return Status::Aborted("stopped by " + StopReasonText(StopRequestReason()) +
                             " while connecting");
    if (const int now_seen = progress->connected.load(); now_seen != seen) {
      seen = now_seen;
      deadline = Clock::now() + kConnectTimeout;
    } else if (Clock::now() >= deadline) {
      const rpc::Endpoint& at = ServerEndpoints()[size_t(seen / std::max(n, 1)) %
                                                  ServerEndpoints().size()];
      return Status::Unavailable(at.host + ":" + std::to_string(at.port) +
                                 " did not complete a connection within 10 s");
    }
  }
  return done.get();
}

Status LoadRun::Connect() {
  if (shared_os_ || o_.in_process) return Status::Ok();  // ConnectShared did, or none.
  for (int i = 0; i < layout_.client_threads; ++i) {
    const int n = layout_.connections / layout_.client_threads +
                  (i < layout_.connections % layout_.client_threads ? 1 : 0);
    WB_RETURN_IF_ERROR(ConnectThread(threads_[size_t(i)].get(), n));
  }
  return Status::Ok();
}

// Logical clients: round-robin over threads, then over each thread's
// connections. A logical client's lanes (--pipeline) are placed side by side
// on its thread and connection, sharing its codec: lane j of client i draws
// stream j * threads + i, so at --pipeline 1 lane i is client i, as before.
void LoadRun::PlaceClients() {
  const int nthreads = layout_.client_threads;
  // Every lane paces itself at 1/lanes_ of -target: each client's lanes
  // together keep its rate, and the staggers spread one client's lanes
  // evenly over its own interval.
  const double lane_interval_ns = o_.target_ops > 0 ? 1e9 * lanes_ / o_.target_ops : 0;
  for (int i = 0; i < o_.threads; ++i) {
    ClientThread* t = threads_[size_t(i % nthreads)].get();
    // In-process (YCSB's BasicDB): no connection and no codec.
    const size_t per_server = t->conns.size() / ServerEndpoints().size();
    const size_t ci = t->os_channel || o_.in_process ? 0 : size_t(i / nthreads) % per_server;
    const int64_t quota =
        o_.operations > 0 ? o_.operations / o_.threads + (i < o_.operations % o_.threads ? 1 : 0)
                          : 0;
    rpc::CallChannel* channel =
        o_.in_process ? nullptr
        : t->os_channel ? static_cast<rpc::CallChannel*>(t->os_channel.get())
                        : t->conns[ci].get();
    for (int j = 0; j < o_.pipeline; ++j) {
      const int lane = j * o_.threads + i;
      const int64_t lane_quota = quota / o_.pipeline + (j < quota % o_.pipeline ? 1 : 0);
      t->clients.push_back(std::make_unique<LogicalClient>(
          &state_, t, channel, o_.in_process ? nullptr : t->codecs[ci].get(),
          workload_->NewStream(lane, lanes_), lane_quota, lane_interval_ns,
          lane_interval_ns * lane / lanes_));
      if (o_.cluster.clustered()) t->clients.back()->SetClusterRoutes(RoutesOf(t, ci));
      if (o_.keep_samples) ReserveSamples(t, lane_quota);
    }
  }
}

LogicalClient::ClusterRoutes LoadRun::RoutesOf(ClientThread* t, size_t ci) const {
  LogicalClient::ClusterRoutes routes;
  routes.plan = &o_.cluster;
  routes.region_names = &region_names_;
  const size_t per_server = t->conns.size() / endpoints_.size();
  for (size_t server = 0; server < endpoints_.size(); ++server)
    routes.servers.emplace_back(t->conns[server * per_server + ci].get(),
                                t->codecs[server * per_server + ci].get());
  return routes;
}

void LoadRun::ReserveSamples(ClientThread* t, int64_t quota) {
  // Up to three samples an operation (read-modify-write: READ, UPDATE and
  // itself), reserved now so the measured phase does not allocate for them
  // (a run without an operation count grows the vector as it goes).
  t->keep_samples = true;
  constexpr int64_t kMaxReserved = int64_t(1) << 24;
  t->samples.reserve(
      size_t(std::min(kMaxReserved, int64_t(t->samples.capacity()) + 3 * quota + 4)));
}

void LoadRun::SpawnClients() {
  state_.open_loop_start = Clock::now();
  for (auto& t : threads_) {
    for (auto& c : t->clients) {
      LogicalClient* lc = c.get();
      asio::post(t->ctx, [lc] { lc->Start(); });
    }
  }
}

// With a warm-up, clients start now and run unmeasured; without one they
// start only once the "before" snapshots are taken (BeginMeasure).
void LoadRun::Warmup() {
  if (o_.warmup_seconds <= 0) return;
  SpawnClients();
  state_.WaitUntil(Clock::now() + Seconds(o_.warmup_seconds));
}

rpc::ClientConnectionStats LoadRun::ConnectionTotals() {
  rpc::ClientConnectionStats total;
  for (auto& t : threads_) {
    ClientThread* raw = t.get();
    RunOn(raw, [&] {
      for (auto& c : raw->conns) total += c->stats();
    });
  }
  for (auto& c : shared_) total += c->stats();
  return total;
}

void LoadRun::BeginMeasure() {
  // With a warm-up, operations run until the start (other processes' too,
  // under on_start): the server's Stats come right after it. Without one
  // nothing runs before the start, so Stats taken before it are exact.
  const bool running = o_.warmup_seconds > 0;
  if (o_.on_start && running) o_.on_start();
  // Every client process of a cluster counts its failures per server, also
  // one that reads no Stats (another --mpi rank does): merged, they add up.
  if (o_.cluster.clustered() && result_.cluster_servers.empty())
    for (const rpc::Endpoint& e : endpoints_)
      result_.cluster_servers.push_back({e.host + ":" + std::to_string(e.port), {}, {}});
  if (o_.fetch_server_stats && !o_.in_process && !StopRequested()) {
    auto before = o_.cluster.clustered() ? FetchClusterStats(/*after=*/false)
                                         : FetchServerStats();
    if (before.ok()) {
      result_.server_before = *before;
    } else {
      result_.server_stats_error = before.status().ToString();
    }
  }
  if (o_.on_start && !running) o_.on_start();
  usage_before_ = ClientUsage(*o_.transport);
  counters_before_ = ClientCounters(*o_.transport);
  callgrind::StartPhase();  // --instructions: the measured phase begins (no-op outside Valgrind).
  measure_start_ = Clock::now();
  state_.phase.store(kMeasure);
  connections_before_ = ConnectionTotals();  // Also a barrier: threads see the phase change.
  ArmAllocationTrap(true);
  if (o_.warmup_seconds <= 0) SpawnClients();
}

void LoadRun::Measure() {
  BeginMeasure();
  const Clock::time_point hard_end =
      o_.max_seconds > 0 ? measure_start_ + Seconds(o_.max_seconds) : Clock::time_point::max();
  Clock::time_point next_status = o_.status_interval_s > 0
                                      ? measure_start_ + Seconds(o_.status_interval_s)
                                      : Clock::time_point::max();
  // A stall: no operation completed for stall_timeout_s (plus a client's
  // interval between operations in an open loop).
  const auto stall_limit =
      o_.stall_timeout_s > 0
          ? std::chrono::duration_cast<Clock::duration>(
                Seconds(o_.stall_timeout_s) +
                (o_.target_ops > 0 ? Seconds(lanes_ / o_.target_ops) : Clock::duration(0)))
          : Clock::duration::max();
  Clock::time_point progress = measure_start_;
  int64_t last_end_seen = 0;
  for (;;) {
    const Clock::time_point stall_at = stall_limit == Clock::duration::max()
                                           ? Clock::time_point::max()
                                           : progress + stall_limit;
    state_.WaitUntil(std::min({hard_end, next_status, stall_at}));
    if (state_.ShouldEnd()) break;
    const Clock::time_point now = Clock::now();
    if (now >= hard_end) break;
    if (const int64_t last = state_.last_end_ns.load(); last != last_end_seen) {
      last_end_seen = last;
      progress = std::max(progress, Clock::time_point(std::chrono::nanoseconds(last)));
    }
    if (stall_limit != Clock::duration::max() && now >= progress + stall_limit) {
      result_.error = Status::Unavailable(
          "the server at " + o_.host + ":" + std::to_string(o_.port) + " completed no operation for " +
          hdr::JavaDoubleToString(o_.stall_timeout_s) +
          " s (--stall-timeout): it stalled (stopped, hung or overloaded); the run ended with what "
          "was measured before the stall");
      state_.Fail();
      break;
    }
    if (now >= next_status) {
      TakeSnapshot(now, /*final=*/false);
      next_status += Seconds(o_.status_interval_s);
    }
  }
  all_done_ = state_.clients_left.load() == 0;
}

void LoadRun::TakeSnapshot(Clock::time_point now, bool final) {
  StatusSnapshot snap;
  snap.final = final;
  for (auto& t : threads_) {
    ClientThread* raw = t.get();
    // Copied and reset on the client's thread, which allocates nothing there.
    RunOn(raw, [&] {
      for (int k = 0; k < kOpTypes; ++k) {
        raw->interval[size_t(k)].AddTo(&snap.interval[size_t(k)]);
        raw->interval[size_t(k)].Reset();
      }
      snap.operations += raw->measured_ops;
    });
  }
  if (o_.on_status) o_.on_status(std::chrono::duration<double>(now - measure_start_).count(), snap);
}

// Lets the operations in flight finish, for kDrainTimeout at most (kStopGrace
// once a stop is requested); then closes the connections, which fails the
// calls the server left unanswered, and says so.
void LoadRun::Drain() {
  state_.phase.store(kStopping);
  for (auto& t : threads_)  // Wake clients sleeping until their next scheduled operation.
    RunOn(t.get(), [raw = t.get()] {
      for (auto& c : raw->clients) c->Interrupt();
    });
  Clock::time_point deadline = Clock::now() + kDrainTimeout;
  {
    std::unique_lock<std::mutex> lock(state_.mu);
    while (state_.clients_left.load() > 0 && Clock::now() < deadline) {
      if (StopRequested()) deadline = std::min(deadline, Clock::now() + kStopGrace);
      state_.cv.wait_until(lock, std::min(deadline, Clock::now() + kPoll));
    }
  }
  measure_end_ = Clock::now();
  if (all_done_ && state_.last_end_ns.load() > 0)
    measure_end_ = Clock::time_point(std::chrono::nanoseconds(state_.last_end_ns.load()));
  ArmAllocationTrap(false);
  if (state_.clients_left.load() == 0) return;
  // Keep the first real failure, if any, ahead of the "closed by the client" the close causes.
  size_t unanswered = 0;
  for (auto& t : threads_)
    RunOn(t.get(), [&, raw = t.get()] {
      if (!raw->error.ok() && result_.error.ok()) result_.error = raw->error;
      for (auto& c : raw->conns) unanswered += c->inflight();
      if (raw->os_channel) unanswered += raw->os_channel->inflight();
      for (auto& c : raw->conns) c->Close();
      if (raw->os_channel) raw->os_channel->Close();
    });
  for (auto& c : shared_) c->Close();
  if (result_.error.ok()) {
    result_.error =
        StopRequested()
            ? StopStatus()
            : Status::Unavailable(o_.host + ":" + std::to_string(o_.port) + " left " +
                                  std::to_string(unanswered) +
                                  " call(s) unanswered for 2 s after the run ended; is it a "
                                  "wirebench server, and alive?");
  }
  state_.Fail();
  std::unique_lock<std::mutex> lock(state_.mu);
  state_.cv.wait_for(lock, std::chrono::seconds(5),
                     [&] { return state_.clients_left.load() == 0; });
}

// One logical client's cleanup, timed as YCSB times db.cleanup(): by
// DBWrapper under CLEANUP (and its intended measurement), and (unless the
// binding is BasicDB, which does not time itself) by HBaseClient2 itself,
// under UPDATE when the cleanup flushed buffered puts
// and CLEANUP otherwise. Latency only: no Return= counts, not an operation.
// With --pipeline the client is its lanes, which end one by one: its cleanup
// is the one of the lane that ended last (YCSB's thread cleans up once it
// has nothing more to do), so CLEANUP keeps one sample per logical client,
// and none when a lane had none.
// Runs on the client's thread after it ended; allocates nothing there in
// the measured phase (the result's histograms belong to the driver).
void LoadRun::CollectCleanup(const std::unique_ptr<LogicalClient>* lanes) {
  const LogicalClient* last = lanes[0].get();
  bool every_lane_cleaned_up = true;
  for (int j = 0; j < o_.pipeline; ++j) {
    const LogicalClient& lane = *lanes[j];
    last_client_end_ = std::max(last_client_end_, lane.end_time());
    if (lane.end_time() > last->end_time()) last = &lane;
    every_lane_cleaned_up = every_lane_cleaned_up && lane.cleanup_ns() >= 0;
  }
  if (!every_lane_cleaned_up) return;
  const LogicalClient& c = *last;
  const int64_t ns = c.cleanup_ns();
  OpStats& cleanup = result_.ops[size_t(OpType::kCleanup)];
  cleanup.latency.Record(ns);
  cleanup.intended_latency.Record(ns);
  const OpType binding = c.cleanup_flushed() ? OpType::kUpdate : OpType::kCleanup;
  const bool binding_sample = o_.binding_times_cleanup || c.cleanup_flushed();
  if (binding_sample) result_.ops[size_t(binding)].latency.Record(ns);
  if (o_.keep_samples) {
    const int64_t end = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            c.end_time().time_since_epoch())
                            .count();
    result_.samples.push_back({end, ns, ns, OpType::kCleanup, OpResult::kOk, false});
    if (binding_sample) result_.samples.push_back({end, ns, -1, binding, OpResult::kOk, true});
  }
}

void LoadRun::Collect() {
  result_.client_usage = ClientUsage(*o_.transport) - usage_before_;
  result_.client_counters = ClientCounters(*o_.transport) - counters_before_;
  // Wire bytes of the measured phase (and its drain), before the closing
  // Stats call adds its own.
  const rpc::ClientConnectionStats connections = ConnectionTotals() - connections_before_;
  callgrind::EndPhase(callgrind::kClientPhaseLabel);  // --instructions: and ends.
  if (o_.status_interval_s > 0) TakeSnapshot(measure_end_, /*final=*/true);
  if (o_.on_end) {
    result_.runtime_s = std::chrono::duration<double>(measure_end_ - measure_start_).count();
    result_.partial = state_.failed.load() || StopRequested();
    o_.on_end(result_);
  }
  // No "after" without a "before" (a server that did not answer it would
  // only hold the end of the run up again).
  // A cluster's servers each answer for themselves: one lost mid-run leaves
  // the others' figures to read.
  if (o_.fetch_server_stats && !o_.in_process && o_.cluster.clustered()) {
    const bool any_before =
        std::any_of(result_.cluster_servers.begin(), result_.cluster_servers.end(),
                    [](const RunResult::ClusterServer& s) { return !s.before.is_null(); });
    if (any_before) {
      auto after = FetchClusterStats(/*after=*/true);
      if (after.ok()) result_.server_after = *after;
    }
  } else if (o_.fetch_server_stats && !o_.in_process && !state_.failed.load() &&
             result_.server_stats_error.empty()) {
    auto after = FetchServerStats();
    if (after.ok()) {
      result_.server_after = *after;
    } else {
      result_.server_stats_error = after.status().ToString();
    }
  }
  // Collect per-thread results on their own threads.
  for (auto& t : threads_) {
    ClientThread* raw = t.get();
    RunOn(raw, [&] {
      for (int k = 0; k < kOpTypes; ++k) raw->stats[size_t(k)].AddTo(&result_.ops[size_t(k)]);
      if (raw->lateness) result_.schedule_lateness.Add(*raw->lateness);
      if (raw->timer_lateness) result_.timer_lateness.Add(*raw->timer_lateness);
      result_.behind_schedule += raw->behind_schedule;
      result_.operations += raw->measured_ops;
      result_.client_operations += raw->measured_ops + raw->unmeasured_ops;
      if (raw->keep_samples)
        result_.samples.insert(result_.samples.end(), raw->samples.begin(), raw->samples.end());
      for (size_t k = 0; k + size_t(o_.pipeline) <= raw->clients.size(); k += size_t(o_.pipeline))
        CollectCleanup(&raw->clients[k]);
      result_.error_replies += raw->error_replies;
      for (size_t k = 0; k < raw->server_failures.size() && k < result_.cluster_servers.size();
           ++k) {
        const ClientThread::ServerFailures& f = raw->server_failures[k];
        if (f.count == 0) continue;
        RunResult::ClusterServer& server = result_.cluster_servers[k];
        const double at = std::chrono::duration<double>(f.first - measure_start_).count();
        if (server.client_failures == 0 || at < server.first_failure_s) server.first_failure_s = at;
        server.client_failures += f.count;
      }
      if (result_.first_error_reply.empty()) result_.first_error_reply = raw->first_error_reply;
      if (!raw->error.ok() && result_.error.ok()) result_.error = raw->error;
    });
  }
  result_.connections = connections;
  result_.runtime_s = std::chrono::duration<double>(measure_end_ - measure_start_).count();
  // YCSB's span ends when its last client thread is joined; a run cut short
  // ends where the measured phase did.
  const Clock::time_point client_end =
      state_.clients_left.load() == 0 && last_client_end_ > client_start_ ? last_client_end_
                                                                           : measure_end_;
  result_.client_run_s = std::chrono::duration<double>(client_end - client_start_).count();
  if (state_.failed.load() || StopRequested()) {
    result_.partial = true;
    if (result_.error.ok())
      result_.error = StopRequested()
                          ? StopStatus()
                          : Status::Internal("a logical client stopped without saying why");
  }
}

// Closes every connection and joins the threads. `force` (a phase failed,
// e.g. a connect that never completed): the loops are stopped without
// waiting for work still pending on them.
void LoadRun::Shutdown(bool force) {
  for (auto& t : threads_) {
    ClientThread* raw = t.get();
    asio::post(raw->ctx, [raw] {
      for (auto& c : raw->conns) c->Close();
      if (raw->os_channel) raw->os_channel->Close();
    });
    if (raw->os_channel) raw->os_channel->Wake();
  }
  // Shared connections: a thread still waiting for a reply fails at once.
  for (auto& c : shared_) c->Close();
  guards_.clear();
  if (force)
    for (auto& t : threads_) t->ctx.stop();
  for (auto& t : threads_)
    if (t->thread.joinable()) t->thread.join();
  for (auto& t : threads_) t->clients.clear();
  threads_.clear();  // Their channels go before the connections they use.
  stats_channel_.reset();
  shared_.clear();  // Joins the reader threads.
}

StatusOr<nlohmann::json> LoadRun::FetchServerStats() {
  if (stats_channel_) return FetchStats(stats_channel_.get());
  return FetchStats(threads_.front().get(), 0);
}

StatusOr<nlohmann::json> LoadRun::FetchClusterStats(bool after) {
  // Each server's over thread 0's first connection to it.
  ClientThread* t = threads_.front().get();
  const size_t per_server = t->conns.size() / endpoints_.size();
  std::string missing;
  for (size_t k = 0; k < endpoints_.size(); ++k) {
    RunResult::ClusterServer& server = result_.cluster_servers[k];
    if (after && server.before.is_null()) continue;
    auto stats = FetchStats(t, k * per_server);
    if (stats.ok()) {
      (after ? server.after : server.before) = std::move(*stats);
    } else {
      missing += (missing.empty() ? "" : "; ") + std::string("server ") + std::to_string(k) +
                 " (" + server.address + "): " + stats.status().ToString();
    }
  }
  // The cluster's figures are those of the servers that answered both times.
  std::vector<nlohmann::json> before_of, after_of;
  for (const RunResult::ClusterServer& server : result_.cluster_servers) {
    if (server.before.is_null() || (after && server.after.is_null())) continue;
    before_of.push_back(server.before);
    if (after) after_of.push_back(server.after);
  }
  if (!missing.empty()) {
    if (before_of.empty()) {
      result_.server_stats_error = "no server of the cluster answered the Stats call: " + missing;
      return Status::Unavailable(result_.server_stats_error);
    }
    result_.server_stats_error = "the cluster's server figures are those of " +
                                 std::to_string(before_of.size()) + " of its " +
                                 std::to_string(endpoints_.size()) + " servers: " + missing;
  }
  if (after) result_.server_before = CombineClusterStats(before_of);
  return CombineClusterStats(after ? after_of : before_of);
}

}  // namespace

constexpr double kMaxOpenLoopInterval_s = 86400;

Status ValidateDriverOptions(const DriverOptions& o) {
  if (o.threads < 1)
    return Status::InvalidArgument("-threads (threadcount) must be 1 or more, got " +
                                   std::to_string(o.threads));
  if (o.client_io_threads < 1)
    return Status::InvalidArgument("--client-io-threads must be 1 or more, got " +
                                   std::to_string(o.client_io_threads));
  if (o.connections < 1)
    return Status::InvalidArgument("--connections must be 1 or more, got " +
                                   std::to_string(o.connections));
  // A logical client's lanes share one connection, which carries at most
  // kMaxClientsPerConnection calls.
  if (o.pipeline < 1 || o.pipeline > kMaxClientsPerConnection)
    return Status::InvalidArgument(
        "--pipeline must be 1 (one operation in flight per logical client, the default) to " +
        std::to_string(kMaxClientsPerConnection) +
        " (the calls one connection carries), got " + std::to_string(o.pipeline) +
        ": give the operations each logical client keeps in flight, like 8");
  if (o.cluster.clustered() && (o.thread_model == ThreadModel::kOs || o.in_process))
    return Status::InvalidArgument(
        std::string("a null cluster of ") + std::to_string(o.cluster.size()) +
        " servers is driven by --thread-model coroutines only (each logical client sends each "
        "call to its row's server over the connections its thread keeps to every server)" +
        (o.in_process ? "; the basic binding has no server at all" : ""));
  if (o.pipeline > 1 && o.thread_model == ThreadModel::kOs)
    return Status::InvalidArgument(
        "--pipeline " + std::to_string(o.pipeline) +
        " needs --thread-model coroutines: under --thread-model os each logical client is an OS "
        "thread that blocks for each reply (as YCSB's Java threads do), so it has one operation "
        "in flight; use --thread-model coroutines, or more -threads");
  if (o.operations < 0)
    return Status::InvalidArgument("--ops (operationcount) must be 0 (no limit) or more, got " +
                                   std::to_string(o.operations));
  if (!std::isfinite(o.max_seconds) || o.max_seconds < 0)
    return Status::InvalidArgument(
        "--seconds (maxexecutiontime) must be 0 (no limit) or a positive number of seconds, got " +
        hdr::JavaDoubleToString(o.max_seconds));
  if (!std::isfinite(o.stall_timeout_s) || o.stall_timeout_s < 0)
    return Status::InvalidArgument(
        "--stall-timeout must be 0 (never) or a positive number of seconds, got " +
        hdr::JavaDoubleToString(o.stall_timeout_s));
  if (!std::isfinite(o.warmup_seconds) || o.warmup_seconds < 0)
    return Status::InvalidArgument("--warmup must be 0 or a positive number of seconds, got " +
                                   hdr::JavaDoubleToString(o.warmup_seconds));
  if (!std::isfinite(o.target_ops) || o.target_ops < 0)
    return Status::InvalidArgument(
        "-target must be a positive number of operations per second (omit it for closed loop), "
        "got " +
        hdr::JavaDoubleToString(o.target_ops));
  // An open loop paces each lane (a client at --pipeline 1) one operation
  // every lanes/target seconds; past a day that interval is no benchmark
  // (and 1e-300 would overflow the schedule).
  const double lanes = double(o.threads) * o.pipeline;
  if (o.target_ops > 0 && o.threads >= 1 && lanes / o.target_ops > kMaxOpenLoopInterval_s) {
    char text[320];
    std::snprintf(text, sizeof(text),
                  "-target %g gives each of the %.0f %s one operation every %g s: give at "
                  "least %.3g ops/sec (one operation per %s per day), or 0 (or no -target) "
                  "for a closed loop",
                  o.target_ops, lanes,
                  o.pipeline > 1 ? "lanes (-threads x --pipeline)" : "client(s)",
                  lanes / o.target_ops, lanes / kMaxOpenLoopInterval_s,
                  o.pipeline > 1 ? "lane" : "client");
    return Status::InvalidArgument(text);
  }
  if (o.codec == nullptr) return Status::InvalidArgument("no codec given (--codec)");
  if (o.transport == nullptr) return Status::InvalidArgument("no transport given (--rpc)");
  WB_RETURN_IF_ERROR(o.transport->CheckCodec(*o.codec));
  WB_RETURN_IF_ERROR(o.transport->CheckClientOptions(o.transport_client_options));
  return CheckClientLimits(o, ReadHostLimits());
}

StatusOr<RunResult> RunLoad(const DriverOptions& o, Workload* workload) {
  LoadRun run(o, workload);
  return run.Run();
}

}  // namespace wirebench
