#include "bench/results/instruction_report.h"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace wirebench {

namespace {

constexpr char kScope[] =
    "user-space instructions only (Valgrind callgrind); kernel work is not counted";

std::string Fixed1(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

void SideLines(std::string* out, const char* section, const LayerInstructions& s, bool server) {
  auto line = [&](const std::string& name, const std::string& value) {
    *out += std::string("[") + section + "], " + name + ", " + value + "\n";
  };
  if (!s.available) {
    line("InstructionsPerOp", "unavailable (" + s.unavailable_reason + ")");
    return;
  }
  line("InstructionsPerOp", Fixed1(s.total));
  line("InstructionsPerOp.codec", Fixed1(s.codec));
  line("InstructionsPerOp.rpc", Fixed1(s.rpc));
  if (server) {
    line("InstructionsPerOp.region", Fixed1(s.region));
  } else {
    line("InstructionsPerOp.harness", Fixed1(s.harness));
  }
  line("InstructionsPerOp.other", Fixed1(s.other));
}

nlohmann::json SideJson(const LayerInstructions& s) {
  if (!s.available) return {{"available", false}, {"unavailable_reason", s.unavailable_reason}};
  return {{"available", true},  {"total", s.total},     {"codec", s.codec},
          {"rpc", s.rpc},       {"region", s.region},   {"harness", s.harness},
          {"other", s.other}};
}

}  // namespace

std::string FormatInstructionLines(const RunResult& r, const InstructionFigures& f) {
  std::string out;
  SideLines(&out, "CLIENT", f.client, false);
  SideLines(&out, "SERVER", f.server, true);
  const double ops = f.operations > 0 ? double(f.operations) : 1.0;
  char calls[64];
  std::snprintf(calls, sizeof(calls), "%.3f",
                double(r.connections.reads + r.connections.writes) / ops);
  out += std::string("[CLIENT], SocketCallsPerOp, ") + calls + "\n";
  out += "[INSTRUCTIONS], MeasuredOperations, " + std::to_string(f.operations) + "\n";
  out += std::string("[INSTRUCTIONS], Scope, ") + kScope + "\n";
  return out;
}

nlohmann::json InstructionsToJson(const InstructionFigures& f) {
  return {{"operations", f.operations},
          {"scope", kScope},
          {"client", SideJson(f.client)},
          {"server", SideJson(f.server)}};
}

std::vector<MetricDef> InstructionMetrics(const std::vector<CompareCell>& cells) {
  bool any = false;
  for (const CompareCell& c : cells) any = any || c.results.contains("instructions");
  if (!any) return {};
  std::vector<MetricDef> rows = {
      {"Total instructions/op", "", "/instructions/client/total+/instructions/server/total"}};
  // The region runs on the server only, the harness on the client only.
  const std::vector<std::string> client_layers = {"codec", "rpc", "harness", "other"};
  const std::vector<std::string> server_layers = {"codec", "rpc", "region", "other"};
  for (const auto& [side, layers] : {std::pair{std::string("Client"), client_layers},
                                     std::pair{std::string("Server"), server_layers}}) {
    std::string base = "/instructions/" + side + "/";
    base[14] = char(std::tolower(base[14]));
    rows.push_back({side + " instructions/op", "", base + "total"});
    for (const std::string& layer : layers)
      rows.push_back({side + " instructions/op: " + layer, "", base + layer});
  }
  return rows;
}

std::string InstructionChartPlot(const std::vector<CompareCell>& cells,
                                 const CompareReportOptions& o, const std::string& dir,
                                 const std::string& workload, int threads) {
  const char* layers[] = {"codec", "rpc", "region", "harness", "other"};
  std::ostringstream data;
  data << "# codec/side codec rpc region harness other (instructions per op)\n";
  bool any = false;
  for (const std::string& codec : o.codecs) {
    for (const char* side : {"client", "server"}) {
      data << "\"" << codec << " " << side << "\"";
      for (const char* layer : layers) {
        const MetricDef m{"", "", std::string("/instructions/") + side + "/" + layer};
        const Aggregate a = AggregateMetric(cells, m, codec, workload, threads);
        any = any || a.n > 0;
        data << " " << (a.n > 0 ? a.median : 0.0);
      }
      data << "\n";
    }
  }
  if (!any) return "";
  const std::string file = dir + "/instructions.dat";
  std::ofstream(file) << data.str();
  std::ostringstream plot;
  plot << "set title 'Instructions per operation by layer, user space (" << workload << ", "
       << threads << " clients)'\nset xlabel 'codec, side'\nset ylabel 'instructions per op'\nset style data histograms\n"
       << "set style histogram rowstacked\nset style fill solid 0.8 border -1\nset boxwidth 0.7\n"
       << "set key outside right top\nset grid y\nset yrange [0:*]\nset xtics rotate by -30\nplot ";
  for (int i = 0; i < 5; ++i)
    plot << (i ? ", " : "") << "'" << file << "' using " << i + 2 << (i ? "" : ":xtic(1)")
         << " title '" << layers[i] << "'";
  plot << "\nunset style\nset xtics norotate\nset key default\n";
  return plot.str();
}

}  // namespace wirebench
