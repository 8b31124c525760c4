#include "bench/results/instruction_report.h"

#include <cstdio>

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
  out += "[CLIENT], SocketCallsPerOp, " +
         Fixed1(double(r.connections.reads + r.connections.writes) / ops) + "\n";
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

}  // namespace wirebench
