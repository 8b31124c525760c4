#include "bench/results/instruction_report.h"

namespace wirebench {

namespace {

nlohmann::json SideJson(const LayerInstructions& s) {
  if (!s.available) return {{"available", false}, {"unavailable_reason", s.unavailable_reason}};
  return {{"available", true},  {"total", s.total},         {"codec", s.codec},
          {"rpc", s.rpc},        {"rpc_core", s.rpc_core},   {"rpc_transport", s.rpc_transport},
          {"region", s.region},  {"harness", s.harness},     {"other", s.other}};
}

}  // namespace

nlohmann::json InstructionsToJson(const InstructionFigures& f) {
  return {{"operations", f.operations},
          {"scope", kInstructionScope},
          {"client", SideJson(f.client)},
          {"server", SideJson(f.server)}};
}

}  // namespace wirebench
