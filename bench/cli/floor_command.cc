#include "bench/cli/floor_command.h"

#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "bench/loadgen/floor.h"
#include "bench/results/report.h"

namespace wirebench {

void AddFloorCommand(CLI::App& app, int* exit_code) {
  struct Flags {
    FloorOptions o;
    std::string json_out;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "floor",
      "The machine's floor: a framing-only loop over one loopback connection (4-byte length, "
      "no codec, a blocking read and one write per batch on each side), the least CPU a framed "
      "RPC of these sizes costs here");
  cmd->add_option("--depth", f->o.depth, "Requests outstanding (a cell's logical clients)")
      ->capture_default_str();
  cmd->add_option("--seconds", f->o.seconds, "How long the client sends, measured")
      ->capture_default_str();
  cmd->add_option("--warmup", f->o.warmup_seconds,
                  "Seconds the client sends first, not measured (the connection's buffers grow "
                  "to their working size)")
      ->capture_default_str();
  cmd->add_option("--request-bytes", f->o.request_bytes,
                  "Request payload after the length (a cell's WireBytesOutPerOp less 4)")
      ->capture_default_str();
  cmd->add_option("--reply-bytes", f->o.reply_bytes,
                  "Reply payload after the length (a cell's WireBytesInPerOp less 4)")
      ->capture_default_str();
  cmd->add_option("--client-cpus", f->o.client_cpus, "Pin the client side to these CPUs")
      ->capture_default_str();
  cmd->add_option("--server-cpus", f->o.server_cpus, "Pin the server side to these CPUs")
      ->capture_default_str();
  cmd->add_option("--json", f->json_out, "Also write the figures as JSON here");
  cmd->callback([f, exit_code] {
    auto r = RunFloor(f->o);
    if (!r.ok()) {
      std::fprintf(stderr, "wirebench floor: %s\n", std::string(r.status().message()).c_str());
      *exit_code = 2;
      return;
    }
    std::printf("floor: %s\n", DescribeFloor(f->o, *r).c_str());
    if (f->json_out.empty()) return;
    const nlohmann::json j = {{"depth", f->o.depth},
                              {"request_bytes", f->o.request_bytes},
                              {"reply_bytes", f->o.reply_bytes},
                              {"client_cpus", f->o.client_cpus},
                              {"server_cpus", f->o.server_cpus},
                              {"operations", r->operations},
                              {"seconds", r->seconds},
                              {"ops_per_sec", r->ops_per_sec()},
                              {"client_us_per_op", r->client_us_per_op},
                              {"server_us_per_op", r->server_us_per_op},
                              {"total_us_per_op", r->total_us_per_op()}};
    if (Status s = WriteFileAtomically(f->json_out, j.dump(2)); !s.ok()) {
      std::fprintf(stderr, "wirebench floor: %s\n", s.ToString().c_str());
      *exit_code = 2;
    }
  });
}

}  // namespace wirebench
