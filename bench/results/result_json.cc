#include "bench/results/result_json.h"

#include "bench/results/cluster_stats.h"


#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>

#include "bench/results/instruction_report.h"
#include "hdr/histogram_encoding.h"
#include "hdr/ycsb_summary.h"

namespace wirebench {

namespace {

using nlohmann::json;

// ---- Written only: figures derived from the model. ----

json HistogramJson(const hdr::Histogram& h, const ReportOptions& o) {
  hdr::YcsbLatencySummary s = hdr::SummarizeForYcsb(h, o.percentiles);
  json p = json::object();
  for (auto& [pct, v] : s.percentiles_us) p[hdr::YcsbPercentileName(pct)] = v;
  return {{"operations", s.operations},
          {"average_us", s.average_us},
          {"min_us", s.min_us},
          {"max_us", s.max_us},
          {"p50_us", double(h.ValueAtPercentile(50)) / 1000.0},
          {"p90_us", double(h.ValueAtPercentile(90)) / 1000.0},
          {"p95_us", double(h.ValueAtPercentile(95)) / 1000.0},
          {"p99_us", double(h.ValueAtPercentile(99)) / 1000.0},
          {"p999_us", double(h.ValueAtPercentile(99.9)) / 1000.0},
          {"p9999_us", double(h.ValueAtPercentile(99.99)) / 1000.0},
          {"percentiles_us", p},
          {"histogram_ns", hdr::EncodeCompressedBase64(h)}};
}

json SideJson(const SideCosts& c) {
  auto hw = [&](double v) { return c.hw_available ? json(v) : json(); };
  return {{"available", c.available},
          {"unavailable_reason", c.unavailable_reason},
          {"cpu_us_per_op", c.cpu_us},
          {"user_cpu_us_per_op", c.user_us},
          {"sys_cpu_us_per_op", c.sys_us},
          {"io_thread_cpu_us_per_op", c.io_cpu_us},
          {"handler_thread_cpu_us_per_op", c.handler_cpu_us},
          {"allocs_available", c.allocs_available},
          {"allocs_per_op", c.allocs},
          {"alloc_bytes_per_op", c.alloc_bytes},
          {"encode_copied_bytes_per_op", c.encode_copied},
          {"decode_copied_bytes_per_op", c.decode_copied},
          {"voluntary_switches_per_op", c.voluntary_switches},
          {"involuntary_switches_per_op", c.involuntary_switches},
          {"wire_bytes_out_per_op", c.wire_bytes_out},
          {"wire_bytes_in_per_op", c.wire_bytes_in},
          {"hw_counters_available", c.hw_available},
          {"hw_counters_reason", c.hw_reason},
          {"cycles_per_op", hw(c.cycles)},
          {"instructions_per_op", hw(c.instructions)},
          {"cache_misses_per_op", hw(c.cache_misses)},
          {"threads", c.threads}};
}

// ---- The model: one field list, two directions. ----
//
// Fields(visitor, result) names every stored field once; ToJson writes
// them, FromJson reads them. A field a file lacks keeps its default.

class ToJson {
 public:
  ToJson(json* j, const ReportOptions* o) : j_(j), o_(o) {}
  template <class T>
  void operator()(std::string_view key, const T& v) {
    (*j_)[std::string(key)] = v;
  }
  // Written when non-empty, or always when `always`.
  void Histogram(const char* key, const hdr::Histogram& h, bool always) {
    if (always || h.total_count() > 0) (*j_)[key] = HistogramJson(h, *o_);
  }
  // Written as Status::ToString() when `present`.
  void Error(const char* key, const Status& s, bool present) {
    if (present) (*j_)[key] = s.ToString();
  }
  ToJson Object(const char* key) { return ToJson(&(*j_)[key], o_); }

 private:
  json* j_;
  const ReportOptions* o_;
};

// The Status whose ToString() is `text` ("Aborted: stopped on request").
Status StatusFromString(const std::string& text) {
  using F = Status (*)(std::string_view);
  for (F make : {F(&Status::InvalidArgument), F(&Status::Corruption), F(&Status::NotFound),
                 F(&Status::Unavailable), F(&Status::ResourceExhausted), F(&Status::IoError),
                 F(&Status::Internal), F(&Status::Unimplemented), F(&Status::Aborted)}) {
    const std::string prefix = make("").ToString();
    if (text.rfind(prefix, 0) == 0) return make(std::string_view(text).substr(prefix.size()));
  }
  return Status::Unavailable(text);
}

class FromJson {
 public:
  FromJson(const json* j, std::string where, Status* status)
      : j_(j), where_(std::move(where)), status_(status) {}
  template <class T>
  void operator()(std::string_view key, T& v) {
    if (const json* e = Find(key); e && !e->is_null()) v = e->get<T>();
  }
  void Histogram(const char* key, hdr::Histogram& h, bool always) {
    const json* e = Find(key);
    const std::string where = where_ + "." + key;
    if (!e) {
      if (always) Fail(Status::Corruption(where + " is missing"));
      return;
    }
    if (!e->is_object() || !e->contains("histogram_ns") || !(*e)["histogram_ns"].is_string())
      return Fail(Status::Corruption(where + " has no \"histogram_ns\" string"));
    auto d = hdr::DecodeCompressedBase64((*e)["histogram_ns"].get<std::string>());
    if (!d.ok())
      return Fail(Status::Corruption(where + ".histogram_ns does not decode: " +
                                     d.status().ToString()));
    h = std::move(d).value();
  }
  void Error(const char* key, Status& s, bool present) {
    if (!present) return;
    const json* e = Find(key);
    s = e && e->is_string() ? StatusFromString(e->get<std::string>())
                            : Status::Unavailable("stopped early");
  }
  FromJson Object(const char* key) {
    static const json kEmpty = json::object();
    const json* e = Find(key);
    return FromJson(e && e->is_object() ? e : &kEmpty, where_ + "." + key, status_);
  }

 private:
  const json* Find(std::string_view key) const {
    auto it = j_->find(key);
    return it == j_->end() ? nullptr : &*it;
  }
  void Fail(Status s) {
    if (status_->ok()) *status_ = std::move(s);
  }
  const json* j_;
  std::string where_;
  Status* status_;
};

// One operation type's entry of "ops".
template <class V, class S>
void OpFields(V&& f, S& s) {
  auto ret = f.Object("return");
  for (size_t k = 0; k < size_t(OpResult::kCount); ++k) ret(OpResultName(OpResult(k)), s.results[k]);
  f.Histogram("latency", s.latency, true);
  f.Histogram("not_found_latency", s.not_found_latency, false);
  f.Histogram("intended_latency", s.intended_latency, false);
  f.Histogram("failed_latency", s.failed_latency, false);
}

// The client's raw figures over the measured phase ("client_raw").
template <class V, class R>
void ClientRawFields(V&& f, R& r) {
  auto& u = r.client_usage;
  f("cpu_ns", u.cpu_ns);
  f("user_ns", u.user_ns);
  f("sys_ns", u.sys_ns);
  f("voluntary_switches", u.voluntary_switches);
  f("involuntary_switches", u.involuntary_switches);
  f("hw_available", u.hw_available);
  f("cycles", u.cycles);
  f("instructions", u.instructions);
  f("cache_misses", u.cache_misses);
  f("threads", u.threads);
  auto& k = r.client_counters;
  f("allocs", k.allocs);
  f("alloc_bytes", k.alloc_bytes);
  f("frees", k.frees);
  f("encode_copied", k.encode_copied);
  f("decode_copied", k.decode_copied);
  auto& c = r.connections;
  f("frames_out", c.frames_out);
  f("frames_in", c.frames_in);
  f("writes", c.writes);
  f("reads", c.reads);
  f("bytes_out", c.bytes_out);
  f("bytes_in", c.bytes_in);
  f("stray_replies", c.stray_replies);
  f("external_client", r.external_client);
}

// Every stored field of "results" but "ops" (whose keys are the operation
// types present, see ResultToJson / RunResultFromJson).
template <class V, class R>
void Fields(V&& f, R& r) {
  f("run_id", r.run_id);
  f("merged_run_ids", r.merged_run_ids);
  f("partial", r.partial);
  f.Error("error", r.error, r.partial);
  f("runtime_s", r.runtime_s);
  f("operations", r.operations);
  f("client_run_s", r.client_run_s);
  f("client_operations", r.client_operations);
  f.Histogram("schedule_lateness", r.schedule_lateness, false);
  f.Histogram("timer_lateness", r.timer_lateness, false);
  f("behind_schedule", r.behind_schedule);
  f("error_replies", r.error_replies);
  f("first_error_reply", r.first_error_reply);
  ClientRawFields(f.Object("client_raw"), r);
  auto server = f.Object("server");
  server("before", r.server_before);
  server("after", r.server_after);
  server("stats_error", r.server_stats_error);
}

// A null cluster's servers: each one's Stats (read back by
// RunResultFromJson) and, derived, its share of the calls and its costs.
json ClusterJson(const RunResult& r) {
  const ClusterFigures figures = ComputeClusterFigures(r);
  json servers = json::array();
  for (size_t k = 0; k < r.cluster_servers.size(); ++k) {
    const ClusterServerFigures& f = figures.servers[k];
    servers.push_back({{"address", r.cluster_servers[k].address},
                       {"before", r.cluster_servers[k].before},
                       {"after", r.cluster_servers[k].after},
                       {"calls", f.calls},
                       {"share", f.share},
                       {"cpu_us_per_call", f.cpu_us_per_call},
                       {"wire_bytes_in_per_call", f.bytes_in_per_call},
                       {"wire_bytes_out_per_call", f.bytes_out_per_call},
                       {"client_failures", r.cluster_servers[k].client_failures},
                       {"first_failure_s", r.cluster_servers[k].first_failure_s}});
  }
  json out = {{"servers", servers},
              {"imbalance", figures.imbalance},
              {"ops_per_server_core_s", figures.ops_per_server_core_s}};
  if (figures.meta_lookups_before >= 0) {
    out["meta_lookups_per_op"] = figures.meta_lookups_per_op;
    out["meta_lookups_before_measuring"] = figures.meta_lookups_before;
  }
  return out;
}

// The OpType whose YCSB name is `name`, or kCount.
OpType OpTypeByName(const std::string& name) {
  for (int t = 0; t < kOpTypes; ++t)
    if (OpTypeName(OpType(t)) == name) return OpType(t);
  return OpType::kCount;
}

StatusOr<RunResult> RunResultFromJsonOrThrow(const json& j, const std::string& name) {
  if (!j.is_object()) return Status::Corruption(name + ": \"results\" is not an object");
  RunResult r;
  Status status;
  FromJson f(&j, name + ": results", &status);
  Fields(f, r);
  // Files written before runtime_s.
  if (!j.contains("runtime_s")) r.runtime_s = j.at("runtime_ms").get<double>() / 1000.0;
  for (const auto& [op_name, e] : j.at("ops").items()) {
    const OpType t = OpTypeByName(op_name);
    if (t == OpType::kCount)
      return Status::Corruption(name + ": unknown operation type \"" + op_name + "\" in results.ops");
    OpFields(FromJson(&e, name + ": results.ops." + op_name, &status), r.ops[size_t(t)]);
  }
  WB_RETURN_IF_ERROR(status);
  if (j.contains("cluster"))
    for (const json& e : j.at("cluster").at("servers"))
      r.cluster_servers.push_back({e.at("address").get<std::string>(), e.value("before", json()),
                                   e.value("after", json()), e.value("client_failures", uint64_t(0)),
                                   e.value("first_failure_s", -1.0)});
  // Server figures come as a pair; without both, say why (older files
  // carried the reason only in the costs).
  if (!r.server_before.is_object() || !r.server_after.is_object()) {
    r.server_before = json();
    r.server_after = json();
    if (r.server_stats_error.empty())
      r.server_stats_error = j.value("/costs/server/unavailable_reason"_json_pointer, std::string());
    if (r.server_stats_error.empty()) r.server_stats_error = "server Stats not in the result";
  }
  return r;
}

}  // namespace

json ResultToJson(const RunResult& r, const RunCosts& c, const ReportOptions& o) {
  json j = json::object();
  ToJson f(&j, &o);
  Fields(f, r);
  if (r.run_id.empty()) j["run_id"] = NewRunId();
  json ops = json::object();
  for (int t = 0; t < kOpTypes; ++t) {
    const OpStats& s = r.ops[size_t(t)];
    if (s.present()) OpFields(ToJson(&ops[std::string(OpTypeName(OpType(t)))], &o), s);
  }
  j["ops"] = ops;
  // Derived, written only.
  j["runtime_ms"] = r.runtime_s * 1000.0;
  j["throughput_ops_per_sec"] = r.runtime_s > 0 ? double(r.operations) / r.runtime_s : 0.0;
  j["costs"] = {{"client", SideJson(c.client)},
                {"server", SideJson(c.server)},
                {"frames_per_write", c.frames_per_write},
                {"total_cpu_us_per_op", c.client.cpu_us + c.server.cpu_us}};
  // Operations per second of server CPU (a cluster's summed): gRPC's
  // benchmark reports the same figure as QPS per server core.
  if (c.server.available && c.server.cpu_us > 0)
    j["costs"]["ops_per_server_core_s"] = 1e6 / c.server.cpu_us;
  // --instructions runs (written only: merge does not combine instruction counts).
  if (r.instructions) j["instructions"] = InstructionsToJson(*r.instructions);
  if (!r.cluster_servers.empty()) j["cluster"] = ClusterJson(r);
  if (r.floor) {
    const FloorFigure& f = *r.floor;
    j["floor"] = {{"depth", f.depth},
                  {"request_bytes", f.request_bytes},
                  {"reply_bytes", f.reply_bytes},
                  {"ops_per_request", f.ops_per_request},
                  {"client_cpu_us_per_op", f.client_us},
                  {"server_cpu_us_per_op", f.server_us},
                  {"total_cpu_us_per_op", f.total_us}};
    if (c.client.available && c.server.available && f.total_us > 0)
      j["floor"]["cpu_vs_floor"] = (c.client.cpu_us + c.server.cpu_us) / f.total_us;
  } else if (!r.floor_error.empty()) {
    j["floor"] = {{"error", r.floor_error}};
  }
  return j;
}

StatusOr<RunResult> RunResultFromJson(const json& results, const std::string& name) {
  try {
    return RunResultFromJsonOrThrow(results, name);
  } catch (const json::exception& e) {
    return Status::Corruption(name + ": malformed result (" + e.what() + ")");
  }
}

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

std::string NewRunId() {
  std::random_device rd;
  const uint64_t bits = (uint64_t(rd()) << 32) ^ rd();
  char host[256] = "?";
  if (gethostname(host, sizeof(host) - 1) != 0) std::strcpy(host, "?");
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char when[32];
  std::strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &utc);
  char out[512];
  std::snprintf(out, sizeof(out), "%016llx-%s-%d-%s", static_cast<unsigned long long>(bits), host,
                int(getpid()), when);
  return out;
}

std::string RunIdentity(const json& doc) {
  const json results = doc.value("results", json::object());
  if (results.contains("run_id") && results["run_id"].is_string())
    return results["run_id"].get<std::string>();
  const std::string host =
      doc.value("environment", json::object()).value("hostname", std::string("?"));
  const json uptime = results.value("/server/before/server/uptime_s"_json_pointer, json());
  if (uptime.is_number())
    return "client " + host + ", started at server uptime " + uptime.dump() + " s";
  return "client " + host + ", " + results.value("operations", json()).dump() + " operations in " +
         results.value("runtime_ms", json()).dump() + " ms";
}

}  // namespace wirebench
