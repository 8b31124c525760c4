#include "bench/cli/server_command.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "bench/cli/cluster_options.h"
#include "bench/cli/entry_option.h"
#include "bench/cli/region_factory.h"
#include "bench/cli/transport_options.h"
#include "bench/loadgen/local_server.h"
#include "codecs/codec.h"
#include "common/thread_stats.h"
#include "nullregion/region_service.h"
#include "rpc/server_options.h"
#include "transports/transport.h"

namespace wirebench {

namespace {

struct ServerCommandOptions {
  const Transport* rpc = &DefaultTransport();
  rpc::ServerOptions server;
  RegionConfig region;
  // The transports' own server options (Transport::ServerOptionSpecs), and
  // which of them the command line set.
  OptionSettings transport_options;
  TransportFlags transport_flags;
  std::string cpus;
  bool quiet = false;
  int port = 0;  // --port, checked 0-65535 before it becomes server.port.
  ClusterFlags cluster;
};

// This server's place in a null cluster (--cluster), null when it is not
// one; its port becomes the plan's unless --port named it.
StatusOr<std::unique_ptr<ClusterMember>> ClusterMemberFromFlags(ServerCommandOptions* o) {
  const ClusterFlags& f = o->cluster;
  if (f.servers.empty()) {
    if (f.index >= 0 || f.regions != 0 || f.start_code != 0)
      return Status::InvalidArgument(
          "--cluster-index, --cluster-regions and --cluster-start-code describe this server's "
          "place in a null cluster: give --cluster with every server of it too");
    return std::unique_ptr<ClusterMember>();
  }
  auto plan = ClusterPlanFromFlags(f);
  if (!plan.ok()) return plan.status();
  if (f.index < 0 || uint32_t(f.index) >= plan->size())
    return Status::InvalidArgument(
        "--cluster names " + std::to_string(plan->size()) +
        " servers: give this one's place in it with --cluster-index 0 to " +
        std::to_string(plan->size() - 1));
  const bool regions_given = std::any_of(
      o->transport_flags.begin(), o->transport_flags.end(),
      [](const auto& f) { return f.first == "--regions-per-table" && f.second->count() > 0; });
  if (regions_given)
    return Status::InvalidArgument(
        "--regions-per-table and --cluster both say how a table is split: a cluster member's "
        "regions are --cluster-regions (the same on every server)");
  auto member = std::make_unique<ClusterMember>();
  member->plan = std::move(plan).value();
  member->self = uint32_t(f.index);
  const rpc::Endpoint& self = member->plan.servers[member->self];
  if (o->server.port == 0) o->server.port = self.port;
  if (o->server.port != self.port)
    return Status::InvalidArgument("--port " + std::to_string(o->server.port) +
                                   " is not this server's port in --cluster (entry " +
                                   std::to_string(f.index) + " is " + self.host + ":" +
                                   std::to_string(self.port) + "): leave out --port");
  return member;
}

// The codecs `transport` carries ("pb, cellblock" for hbase), for the banner.
std::string CarriedCodecNames(const Transport& transport) {
  std::string out;
  for (const CodecInfo* c : Codecs().all())
    if (transport.CheckCodec(*c).ok()) out += (out.empty() ? "" : ", ") + std::string(c->name());
  return out;
}

// True when this process started with SIGINT ignored (as a co-located
// server is by its client, and as shells start background jobs): it then
// stays ignored, so a terminal's Ctrl-C for the process group stops only
// the client, which stops this server with SIGTERM.
bool SigintIgnoredAtStart() {
  struct sigaction old {};
  return sigaction(SIGINT, nullptr, &old) == 0 && old.sa_handler == SIG_IGN;
}

int RunServer(ServerCommandOptions& o) {
  // Block the stop signals in every thread; this thread waits for them.
  sigset_t set;
  sigemptyset(&set);
  if (!SigintIgnoredAtStart()) sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  RegisterThisThread(ThreadRole::kServerOther, "server-main");
  if (!o.cpus.empty()) {
    auto cpus = ParseCpuList(o.cpus);
    Status s = cpus.ok() ? PinThisThread(*cpus) : cpus.status();
    if (!s.ok()) {
      std::fprintf(stderr, "wirebench server: --cpus: %s\n", s.ToString().c_str());
      return 2;
    }
  }
  const Transport& transport = *o.rpc;
  Status checked = transport.CheckServerOptions(o.server);
  const Transport* chosen[] = {&transport};
  if (checked.ok())
    checked = CheckTransportFlags(TransportOptionKind::kServer, o.transport_flags, chosen);
  if (checked.ok()) checked = transport.CheckOwnOptions(o.transport_options);
  if (!checked.ok()) {
    std::fprintf(stderr, "wirebench server: %s\n", checked.ToString().c_str());
    return 2;
  }
  auto member = ClusterMemberFromFlags(&o);
  if (!member.ok()) {
    std::fprintf(stderr, "wirebench server: %s\n", member.status().ToString().c_str());
    return 2;
  }
  auto region = NewRegion(o.region);
  if (!region.ok()) {
    std::fprintf(stderr, "wirebench server: %s\n", region.status().ToString().c_str());
    return 2;
  }
  RegionService service(region->get(), member->get());
  auto server = transport.StartServer(o.server, o.transport_options, region->get(), &service,
                                      member->get());
  if (!server.ok()) {
    std::fprintf(stderr, "wirebench server: %s\n", server.status().ToString().c_str());
    return 1;
  }
  std::printf("listening on %s\n", (*server)->address().c_str());
  std::fflush(stdout);
  if (!o.quiet)
    std::fprintf(stderr,
                 "wirebench server: rpc=%s region=%s codecs=[%s] io-threads=%d handlers=%d\n",
                 std::string(transport.name()).c_str(), std::string((*region)->name()).c_str(),
                 CarriedCodecNames(transport).c_str(), o.server.io_threads, o.server.handlers);
  if (!o.quiet && *member != nullptr) {
    const ClusterMember& m = **member;
    uint32_t held = 0;
    for (uint32_t r = 0; r < m.plan.layout.regions(); ++r) held += m.Holds(r) ? 1 : 0;
    std::fprintf(stderr,
                 "wirebench server: null cluster server %u of %u, holding %u of %u regions "
                 "per table (%s split)%s\n",
                 m.self, m.plan.size(), held, m.plan.layout.regions(),
                 std::string(SplitAlgorithmName(m.plan.layout.split())).c_str(),
                 m.ServesMeta() ? " and hbase:meta" : "");
  }
  if (const std::string advice = RegionAdvice(o.region, o.server.handlers); !advice.empty())
    std::fprintf(stderr, "wirebench server: warning: %s\n", advice.c_str());
  int sig = 0;
  sigwait(&set, &sig);
  if (!o.quiet)
    std::fprintf(stderr, "wirebench server: %s received, stopping\n",
                 sig == SIGINT ? "SIGINT" : "SIGTERM");
  (*server)->Stop();
  return 0;
}

// Where the server listens and with how many threads.
void AddListenOptions(CLI::App* cmd, ServerCommandOptions* opts) {
  rpc::ServerOptions& s = opts->server;
  cmd->add_option("--bind", s.host, "Address to listen on (a non-loopback address is warned about)")
      ->capture_default_str();
  cmd->add_option("--port", opts->port, "TCP port; 0 picks a free one and prints it")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--io-threads", s.io_threads, "Event-loop threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_option("--handlers", s.handlers,
                  "Handler threads; 0 runs the region inline on the I/O thread (--rpc hbase: "
                  "calls that evaluate a filter run on N handler threads, one when 0)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1024));
}

// The server's limits: frame size, connections, calls and bytes in flight,
// idle connections.
void AddLimitOptions(CLI::App* cmd, rpc::ServerOptions* server) {
  rpc::ServerOptions& s = *server;
  cmd->add_option("--max-frame", s.max_call_bytes, "Largest accepted frame, bytes (1024-1073741824)")
      ->capture_default_str()
      ->check(CLI::Range(uint32_t(1024), uint32_t(1) << 30));
  cmd->add_option("--max-connections", s.max_connections, "Most open connections (1-1000000); with gRPC, most calls waiting for "
                  "their request message")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--max-inflight", s.max_inflight_per_connection,
                  "Most calls in flight per connection before the server stops reading it; "
                  "with gRPC, most concurrent streams per connection")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--max-queued-bytes", s.max_queued_bytes,
                  "Most reply bytes queued per connection before the server stops reading it "
                  "(1024 or more: with 0 the server would never read a request)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            unsigned long long n = 0;
            if (!CLI::detail::lexical_cast(v, n) || n < 1024)
              return "must be 1024 or more, got '" + v +
                     "' (the server stops reading a connection once this many reply bytes are "
                     "queued: with less than one reply it never reads a request)";
            return std::string();
          },
          ">= 1024"));
  cmd->add_option("--max-buffered-bytes", s.max_buffered_bytes,
                  "Most bytes all connections together hold for calls still arriving (room made "
                  "as a call's bytes arrive, at most twice what has arrived), beyond each one's "
                  "64 KiB read buffer; a connection that needs more is refused and closed (0 = "
                  "no limit; wirebench and hbase protocols)")
      ->capture_default_str();
  cmd->add_option("--idle-timeout-ms", s.idle_timeout_ms,
                  "Close a connection idle this long with an incomplete frame or before its "
                  "first call, or whose call arrives at under 64 KiB/s after this long; while "
                  "the server holds over half its --max-connections, also the longest-idle "
                  "between calls, until it holds half; with gRPC, "
                  "cancel a call whose request message has not come this long (0 = never)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
}

}  // namespace

void AddServerCommand(CLI::App& app, int* exit_code) {
  auto opts = std::make_shared<ServerCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "server", "Serve every codec in front of a region (null by default) until SIGINT/SIGTERM");
  AddEntryOption(cmd, "--rpc", &opts->rpc, Transports(),
                 "RPC layer: " + TransportHelp() +
                     "; with gRPC, --io-threads is the number of "
                     "completion-queue threads and --max-frame the message limit");
  AddListenOptions(cmd, opts.get());
  AddLimitOptions(cmd, &opts->server);
  AddTransportOptions(cmd, TransportOptionKind::kServer, &opts->transport_options,
                      &opts->transport_flags);
  cmd->add_option("--cpus", opts->cpus, "Pin the server to these CPUs (e.g. 1 or 0-1)");
  cmd->add_flag("--quiet", opts->quiet, "No start/stop banner on stderr (errors still go there)");
  AddRegionOptions(cmd, &opts->region);
  AddClusterOptions(cmd, &opts->cluster, /*server=*/true);
  cmd->callback([opts, exit_code] {
    opts->server.port = uint16_t(opts->port);
    *exit_code = RunServer(*opts);
  });
}

}  // namespace wirebench
