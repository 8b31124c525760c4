#include "bench/results/merge.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "bench/hdr/histogram_encoding.h"
#include "bench/hdr/ycsb_summary.h"

namespace wirebench {

namespace {

using nlohmann::json;

StatusOr<hdr::Histogram> DecodeHistogram(const json& entry, const std::string& where) {
  if (!entry.is_object() || !entry.contains("histogram_ns") || !entry["histogram_ns"].is_string())
    return Status::Corruption(where + " has no \"histogram_ns\" string");
  auto h = hdr::DecodeCompressedBase64(entry["histogram_ns"].get<std::string>());
  if (!h.ok()) return Status::Corruption(where + ".histogram_ns does not decode: " +
                                         h.status().ToString());
  return std::move(h).value();
}

// The OpType whose YCSB name is `name`, or kCount.
OpType OpTypeByName(const std::string& name) {
  for (int t = 0; t < kOpTypes; ++t)
    if (OpTypeName(OpType(t)) == name) return OpType(t);
  return OpType::kCount;
}

StatusOr<RunResult> RunResultFromJsonOrThrow(const json& r, const std::string& name) {
  RunResult out;
  if (!r.is_object()) return Status::Corruption(name + ": \"results\" is not an object");
  out.partial = r.value("partial", false);
  if (out.partial)
    out.error = Status::Unavailable(r.value("error", std::string("stopped early")));
  out.runtime_s = r.at("runtime_ms").get<double>() / 1000.0;
  out.operations = r.at("operations").get<uint64_t>();
  for (const auto& [op_name, e] : r.at("ops").items()) {
    const OpType t = OpTypeByName(op_name);
    if (t == OpType::kCount)
      return Status::Corruption(name + ": unknown operation type \"" + op_name + "\" in results.ops");
    OpStats& s = out.ops[size_t(t)];
    const std::string where = name + ": results.ops." + op_name;
    for (int k = 0; k < int(OpResult::kCount); ++k)
      s.results[size_t(k)] =
          e.at("return").value(std::string(OpResultName(OpResult(k))), uint64_t(0));
    auto lat = DecodeHistogram(e.at("latency"), where + ".latency");
    if (!lat.ok()) return lat.status();
    s.latency = std::move(lat).value();
    for (const char* k : {"intended_latency", "failed_latency"}) {
      if (!e.contains(k)) continue;
      auto h = DecodeHistogram(e[k], where + "." + k);
      if (!h.ok()) return h.status();
      (std::string(k) == "intended_latency" ? s.intended_latency : s.failed_latency) =
          std::move(h).value();
    }
  }
  if (r.contains("schedule_lateness")) {
    auto h = DecodeHistogram(r["schedule_lateness"], name + ": results.schedule_lateness");
    if (!h.ok()) return h.status();
    out.schedule_lateness = std::move(h).value();
  }
  const json& c = r.at("client_raw");
  out.client_usage.cpu_ns = c.value("cpu_ns", 0.0);
  out.client_usage.user_ns = c.value("user_ns", 0.0);
  out.client_usage.sys_ns = c.value("sys_ns", 0.0);
  out.client_usage.voluntary_switches = c.value("voluntary_switches", uint64_t(0));
  out.client_usage.involuntary_switches = c.value("involuntary_switches", uint64_t(0));
  out.client_usage.threads = c.value("threads", 0);
  // Hardware counters, where the result carries them.
  out.client_usage.hw_available = c.value("hw_available", false);
  out.client_usage.cycles = c.value("cycles", 0.0);
  out.client_usage.instructions = c.value("instructions", 0.0);
  out.client_usage.cache_misses = c.value("cache_misses", 0.0);
  out.client_counters.allocs = c.value("allocs", uint64_t(0));
  out.client_counters.alloc_bytes = c.value("alloc_bytes", uint64_t(0));
  out.client_counters.encode_copied = c.value("encode_copied", uint64_t(0));
  out.client_counters.decode_copied = c.value("decode_copied", uint64_t(0));
  out.connections.frames_out = c.value("frames_out", uint64_t(0));
  out.connections.writes = c.value("writes", uint64_t(0));
  out.connections.bytes_out = c.value("bytes_out", uint64_t(0));
  out.connections.bytes_in = c.value("bytes_in", uint64_t(0));
  if (r.contains("server") && r["server"].is_object()) {
    out.server_before = r["server"].value("before", json());
    out.server_after = r["server"].value("after", json());
  }
  if (!out.server_before.is_object() || !out.server_after.is_object()) {
    out.server_before = json();
    out.server_after = json();
    out.server_stats_error = r.contains("costs")
                                 ? r["costs"]["server"].value("unavailable_reason", std::string())
                                 : std::string();
    if (out.server_stats_error.empty()) out.server_stats_error = "server Stats not in the result";
  }
  return out;
}

double Uptime(const json& stats) {
  return stats.is_object() ? stats.value("/server/uptime_s"_json_pointer, 0.0) : 0.0;
}

std::string ServerIdentity(const json& after) {
  const json s = after.value("server", json::object());
  return s.value("bind", std::string("?")) + ":" + std::to_string(s.value("port", 0)) +
         " (io_threads " + std::to_string(s.value("io_threads", 0)) + ")";
}

// The configuration fields every input agrees on, "threads" summed, plus a
// description of the merge.
json MergedConfig(const std::vector<NamedResult>& inputs, const std::vector<std::string>& warnings) {
  json out = json::object();
  const json first = inputs[0].doc.value("config", json::object());
  for (const auto& [k, v] : first.items()) {
    bool same = true;
    for (const NamedResult& in : inputs)
      same = same && in.doc.value("config", json::object()).value(k, json()) == v;
    if (same) out[k] = v;
  }
  int64_t threads = 0;
  json configs = json::array(), names = json::array();
  for (const NamedResult& in : inputs) {
    threads += in.doc.value("config", json::object()).value("threads", int64_t(0));
    configs.push_back(in.doc.value("config", json()));
    names.push_back(in.name);
  }
  out["threads"] = threads;
  out["merge"] = {{"inputs", names},
                  {"clients", inputs.size()},
                  {"throughput", "summed operations / longest runtime"},
                  {"server_figures", "earliest before and latest after Stats snapshot, by the "
                                     "server's uptime, over the summed operations"},
                  {"warnings", warnings},
                  {"input_configs", configs}};
  return out;
}

}  // namespace

StatusOr<NamedResult> ReadResultFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::IoError("cannot read " + path + ": " + std::strerror(errno) +
                           " (give result files written by `wirebench run --json FILE`)");
  std::stringstream ss;
  ss << in.rdbuf();
  NamedResult out;
  out.name = path;
  try {
    out.doc = json::parse(ss.str());
  } catch (const json::exception& e) {
    return Status::Corruption(path + " is not JSON (" + e.what() +
                              "); give result files written by `wirebench run --json FILE`");
  }
  if (!out.doc.is_object() || !out.doc.contains("wirebench_result_version"))
    return Status::InvalidArgument(path + " is not a wirebench result (no "
                                   "\"wirebench_result_version\"); give result files written by "
                                   "`wirebench run --json FILE`");
  const json& v = out.doc["wirebench_result_version"];
  if (!v.is_number_integer() || v.get<int64_t>() != kResultVersion)
    return Status::InvalidArgument(path + " has wirebench_result_version " + v.dump() +
                                   "; this wirebench reads version " +
                                   std::to_string(kResultVersion) +
                                   " (merge it with the wirebench that wrote it)");
  if (!out.doc.contains("results") || !out.doc["results"].is_object())
    return Status::Corruption(path + " has no \"results\" section (a truncated result file?)");
  return out;
}

StatusOr<RunResult> RunResultFromJson(const json& results, const std::string& name) {
  try {
    return RunResultFromJsonOrThrow(results, name);
  } catch (const json::exception& e) {
    return Status::Corruption(name + ": malformed result (" + e.what() + ")");
  }
}

StatusOr<RunResult> MergeRunResults(const std::vector<RunResult>& runs,
                                    const std::vector<std::string>& names) {
  if (runs.empty()) return Status::InvalidArgument("nothing to merge: give at least one result");
  auto name = [&](size_t i) {
    return i < names.size() ? names[i] : "input " + std::to_string(i + 1);
  };
  // Same server: compare what the server says about itself.
  std::string identity;
  size_t identity_from = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].server_after.is_object()) continue;
    const std::string id = ServerIdentity(runs[i].server_after);
    if (identity.empty()) {
      identity = id;
      identity_from = i;
    } else if (id != identity) {
      return Status::InvalidArgument(
          "results come from different servers: " + name(identity_from) + " ran against " +
          identity + ", " + name(i) + " against " + id +
          "; merge only clients that ran against one server at the same time (co-located runs "
          "each had a server of their own: use `wirebench server` and `run --server HOST:PORT`)");
    }
  }

  RunResult m;
  const RunResult* earliest_before = nullptr;
  const RunResult* latest_after = nullptr;
  std::string no_stats;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunResult& r = runs[i];
    if (r.partial && !m.partial) {
      m.partial = true;
      m.error = Status::Unavailable(name(i) + " stopped early: " + r.error.ToString());
    }
    m.runtime_s = std::max(m.runtime_s, r.runtime_s);
    m.operations += r.operations;
    for (size_t t = 0; t < m.ops.size(); ++t) m.ops[t].Add(r.ops[t]);
    m.schedule_lateness.Add(r.schedule_lateness);
    m.client_usage += r.client_usage;
    m.client_counters += r.client_counters;
    m.connections += r.connections;
    if (!r.server_before.is_object() || !r.server_after.is_object()) {
      if (no_stats.empty())
        no_stats = name(i) + " has no server Stats (" +
                   (r.server_stats_error.empty() ? "not fetched" : r.server_stats_error) + ")";
      continue;
    }
    if (!earliest_before || Uptime(r.server_before) < Uptime(earliest_before->server_before))
      earliest_before = &r;
    if (!latest_after || Uptime(r.server_after) > Uptime(latest_after->server_after))
      latest_after = &r;
  }
  if (!no_stats.empty()) {
    m.server_stats_error = no_stats;
  } else {
    m.server_before = earliest_before->server_before;
    m.server_after = latest_after->server_after;
  }
  return m;
}

StatusOr<MergeOutcome> MergeResults(const std::vector<NamedResult>& inputs) {
  if (inputs.empty()) return Status::InvalidArgument("nothing to merge: give at least one result");
  std::vector<RunResult> runs;
  std::vector<std::string> names;
  for (const NamedResult& in : inputs) {
    if (!in.doc.contains("results"))
      return Status::Corruption(in.name + " has no \"results\" section");
    auto r = RunResultFromJson(in.doc["results"], in.name);
    if (!r.ok()) return r.status();
    runs.push_back(std::move(r).value());
    names.push_back(in.name);
  }
  MergeOutcome out;
  auto merged = MergeRunResults(runs, names);
  if (!merged.ok()) return merged.status();
  out.result = std::move(merged).value();

  // Runs that did not overlap: one finished (by the server's clock) before
  // another began.
  for (size_t i = 0; i < runs.size(); ++i)
    for (size_t j = 0; j < runs.size(); ++j)
      if (i != j && runs[i].server_after.is_object() && runs[j].server_before.is_object() &&
          Uptime(runs[i].server_after) < Uptime(runs[j].server_before))
        out.warnings.push_back(names[i] + " finished before " + names[j] +
                               " began: the runs did not overlap, so throughput (summed "
                               "operations / longest runtime) overstates what ran at once");

  // Report options of the first input (they shape the summaries only).
  ReportOptions ro;
  const json props =
      inputs[0].doc.value("config", json::object()).value("properties", json::object());
  if (props.contains("hdrhistogram.percentiles") && props["hdrhistogram.percentiles"].is_string()) {
    auto p = hdr::ParseYcsbPercentiles(props["hdrhistogram.percentiles"].get<std::string>());
    if (p.ok()) ro.percentiles = *p;
  }
  if (props.contains("measurement.interval") && props["measurement.interval"].is_string())
    ro.measurement_interval = props["measurement.interval"].get<std::string>();

  out.costs = ComputeCosts(out.result);
  // Whether the clients counted allocations is theirs to say, not this process's.
  bool allocs = true;
  for (const NamedResult& in : inputs)
    allocs = allocs && in.doc["results"].value("/costs/client/allocs_available"_json_pointer, false);
  out.costs.client.allocs_available = allocs;

  std::ostringstream head;
  head << "[MERGE], Inputs, " << inputs.size() << "\n";
  for (size_t i = 0; i < inputs.size(); ++i)
    head << "[MERGE], Input" << i + 1 << ", " << inputs[i].name << "\n";
  head << "[MERGE], Throughput, summed operations / longest RunTime\n";
  head << "[MERGE], ServerFigures, " << (out.result.server_after.is_object()
                                             ? "earliest before to latest after Stats snapshot"
                                             : "unavailable (" + out.result.server_stats_error + ")")
       << "\n";
  for (const std::string& w : out.warnings) head << "[MERGE], Warning, " << w << "\n";
  out.text = head.str() + FormatTextReport(out.result, out.costs, ro);

  json env = EnvironmentJson();
  env["inputs"] = json::array();
  for (const NamedResult& in : inputs) env["inputs"].push_back(in.doc.value("environment", json()));
  out.json["wirebench_result_version"] = kResultVersion;
  out.json["config"] = MergedConfig(inputs, out.warnings);
  out.json["environment"] = env;
  out.json["results"] = ResultToJson(out.result, out.costs, ro);
  return out;
}

}  // namespace wirebench
