#include "bench/results/merge.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "hdr/ycsb_summary.h"

namespace wirebench {

namespace {

using nlohmann::json;

double Uptime(const json& stats) {
  return stats.is_object() ? stats.value("/server/uptime_s"_json_pointer, 0.0) : 0.0;
}

// The server a result ran against, as it describes itself: address, RPC
// layer and threads.
std::string ServerIdentity(const json& after) {
  const json s = after.value("server", json::object());
  return s.value("bind", std::string("?")) + ":" + std::to_string(s.value("port", 0)) +
         " (rpc " + s.value("rpc", std::string("wirebench")) + ", io_threads " +
         std::to_string(s.value("io_threads", 0)) + ")";
}

// The server process (results written before servers reported it: "").
std::string ServerInstance(const json& stats) {
  if (!stats.is_object()) return "";
  const json s = stats.value("server", json::object());
  return s.contains("instance") && s["instance"].is_string() ? s["instance"].get<std::string>()
                                                              : "";
}

// Names input i in messages: its path, or "input <i+1>".
struct InputName {
  const std::vector<std::string>* names;
  std::string operator()(size_t i) const {
    return i < names->size() ? (*names)[i] : "input " + std::to_string(i + 1);
  }
};

// Same server: compare what the server says about itself.
Status CheckOneServer(const std::vector<RunResult>& runs, const InputName& name) {
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
  // The same address can be a new server process (restarted between the
  // runs): its counters started again, so the server figures would mean
  // nothing. Each result's Stats before and after must name one process.
  std::string instance;
  size_t instance_from = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const json* stats : {&runs[i].server_before, &runs[i].server_after}) {
      const std::string id = ServerInstance(*stats);
      if (id.empty()) continue;
      if (instance.empty()) {
        instance = id;
        instance_from = i;
      } else if (id != instance) {
        return Status::InvalidArgument(
            "results come from different server processes at " +
            ServerIdentity(runs[i].server_after.is_object() ? runs[i].server_after : *stats) +
            ": " + name(instance_from) + " ran against server process " + instance + ", " +
            name(i) + " against " + id +
            " (the server was restarted between or during the runs?); merge only clients that "
            "ran against one server process at the same time");
      }
    }
  }
  return Status::Ok();
}

// The runs a result holds: its own id, or those it was merged from.
std::vector<std::string> RunIds(const RunResult& r) {
  if (!r.merged_run_ids.empty()) return r.merged_run_ids;
  if (!r.run_id.empty()) return {r.run_id};
  return {};
}

// No run given twice, directly or inside a merged input.
Status CheckDistinctRuns(const std::vector<RunResult>& runs, const InputName& name) {
  std::map<std::string, size_t> seen;  // Run id -> input.
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const std::string& id : RunIds(runs[i])) {
      auto [it, added] = seen.emplace(id, i);
      if (added || it->second == i) continue;
      const bool direct = RunIds(runs[i]) == RunIds(runs[it->second]);
      return Status::InvalidArgument(
          name(it->second) + " and " + name(i) +
          (direct ? " are the same run" : " share a run (one is a merge that includes it)") +
          " (run " + id + "); merging it twice would double its counts: give each client's "
          "result once");
    }
  }
  return Status::Ok();
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

// A null cluster's servers, merged: the inputs name the same servers in the
// same order (an input without a cluster's servers adds nothing); each
// server's figures from its earliest "before" and latest "after" snapshot,
// as the run's; client failures summed, the first failure the earliest.
Status MergeClusterServers(const std::vector<RunResult>& runs, const InputName& name,
                           RunResult* m) {
  const RunResult* first = nullptr;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].cluster_servers.empty()) continue;
    if (!first) {
      first = &runs[i];
      m->cluster_servers.resize(first->cluster_servers.size());
    }
    std::string addresses, theirs;
    for (const auto& s : first->cluster_servers)
      addresses += (addresses.empty() ? "" : ",") + s.address;
    for (const auto& s : runs[i].cluster_servers) theirs += (theirs.empty() ? "" : ",") + s.address;
    if (addresses != theirs)
      return Status::InvalidArgument(
          "results come from different clusters: " + name(size_t(first - runs.data())) +
          " ran against " + addresses + ", " + name(i) + " against " + theirs +
          "; merge only clients that ran against one cluster at the same time");
    for (size_t k = 0; k < m->cluster_servers.size(); ++k) {
      const RunResult::ClusterServer& in = runs[i].cluster_servers[k];
      RunResult::ClusterServer& out = m->cluster_servers[k];
      out.address = in.address;
      if (in.before.is_object() && (out.before.is_null() || Uptime(in.before) < Uptime(out.before)))
        out.before = in.before;
      if (in.after.is_object() && (out.after.is_null() || Uptime(in.after) > Uptime(out.after)))
        out.after = in.after;
      if (in.client_failures > 0 &&
          (out.client_failures == 0 || in.first_failure_s < out.first_failure_s))
        out.first_failure_s = in.first_failure_s;
      out.client_failures += in.client_failures;
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<RunResult> MergeRunResults(const std::vector<RunResult>& runs,
                                    const std::vector<std::string>& names) {
  if (runs.empty()) return Status::InvalidArgument("nothing to merge: give at least one result");
  const InputName name{&names};
  WB_RETURN_IF_ERROR(CheckOneServer(runs, name));
  WB_RETURN_IF_ERROR(CheckDistinctRuns(runs, name));

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
    for (const std::string& id : RunIds(r)) m.merged_run_ids.push_back(id);
    m.runtime_s = std::max(m.runtime_s, r.runtime_s);
    m.operations += r.operations;
    m.client_run_s = std::max(m.client_run_s, r.client_run_s);
    m.client_operations += r.client_operations;
    for (size_t t = 0; t < m.ops.size(); ++t) m.ops[t].Add(r.ops[t]);
    m.schedule_lateness.Add(r.schedule_lateness);
    m.timer_lateness.Add(r.timer_lateness);
    m.behind_schedule += r.behind_schedule;
    m.error_replies += r.error_replies;
    if (m.first_error_reply.empty()) m.first_error_reply = r.first_error_reply;
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
  WB_RETURN_IF_ERROR(MergeClusterServers(runs, name, &m));
  return m;
}

StatusOr<MergeOutcome> MergeResults(const std::vector<NamedResult>& inputs) {
  return MergeResults(inputs, MergeNotes());
}

namespace {

// What a result's config says of `key` ("properties.workload" reads a
// property), as text; "(not recorded)" when it does not say.
std::string ConfigValue(const json& config, const std::string& key) {
  const json* at = &config;
  std::string k = key;
  if (k.rfind("properties.", 0) == 0) {
    if (!config.contains("properties") || !config["properties"].is_object()) return "(default)";
    at = &config["properties"];
    k = k.substr(std::string("properties.").size());
    if (!at->contains(k)) return "(default)";
  }
  if (!at->contains(k)) return "(not recorded)";
  const json& v = (*at)[k];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// Merged clients must have measured the same thing: one phase, codec, RPC
// layer, region, record shape, batch, pipeline depth and operation mix. A difference is named,
// whether the runs are partial or not.
Status CheckMeasuredAlike(const std::vector<NamedResult>& inputs) {
  static const char* const kKeys[] = {
      "phase", "codec", "rpc", "region", "null_reads", "fieldcount", "fieldlength", "batch",
      "pipeline",
      "properties.workload", "properties.readproportion", "properties.updateproportion",
      "properties.insertproportion", "properties.scanproportion",
      "properties.readmodifywriteproportion", "properties.requestdistribution"};
  const json first = inputs[0].doc.value("config", json::object());
  for (size_t i = 1; i < inputs.size(); ++i) {
    const json config = inputs[i].doc.value("config", json::object());
    std::string differs;
    for (const char* key : kKeys) {
      const std::string a = ConfigValue(first, key), b = ConfigValue(config, key);
      // A side that could not tell (an MPI rank other than 0 reads no server
      // Stats) differs from nothing.
      const auto unknown = [](const std::string& v) {
        return v.rfind("unknown", 0) == 0 || v == "(not recorded)";
      };
      if (a != b && !unknown(a) && !unknown(b)) differs += (differs.empty() ? "" : "; ") + std::string(key) + " " + a + " vs " + b;
    }
    if (!differs.empty())
      return Status::InvalidArgument(
          inputs[0].name + " and " + inputs[i].name + " were not measured alike (" + differs +
          "): merge only the clients of one run (the same workload, codec, RPC layer and "
          "server); put different runs side by side with `wirebench compare` or `diff` instead");
  }
  return Status::Ok();
}

}  // namespace

StatusOr<MergeOutcome> MergeResults(const std::vector<NamedResult>& inputs,
                                    const MergeNotes& notes) {
  if (inputs.empty()) return Status::InvalidArgument("nothing to merge: give at least one result");
  std::vector<RunResult> runs;
  std::vector<std::string> names;
  for (const NamedResult& in : inputs) {
    if (!in.doc.contains("results"))
      return Status::Corruption(in.name + " has no \"results\" section");
    auto r = RunResultFromJson(in.doc["results"], in.name);
    if (!r.ok()) return r.status();
    if (r->run_id.empty()) r->run_id = RunIdentity(in.doc);  // Written before run ids.
    runs.push_back(std::move(r).value());
    names.push_back(in.name);
  }
  WB_RETURN_IF_ERROR(CheckMeasuredAlike(inputs));
  MergeOutcome out;
  auto merged = MergeRunResults(runs, names);
  if (!merged.ok()) return merged.status();
  out.result = std::move(merged).value();
  if (!notes.partial_reason.empty()) {
    out.result.partial = true;
    out.result.error = Status::Unavailable(notes.partial_reason);
  }

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
  head << notes.head;
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
