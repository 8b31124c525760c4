// wirebench_attack: the hostile clients of the HBase server's limits, one
// subcommand each, for measuring a live `wirebench server --rpc hbase
// --region memstore` beside a good client (scripts/attacks drives it; see
// docs/hbase.md, "Attacking the server's limits"). Each speaks HBase's RPC
// by hand (tests/hbase_raw_wire.h), at the sizes that once took the server
// down as defaults, and stops after --seconds: every call is bounded by
// --timeout-ms, so a server that hangs cannot hang the tool. Not installed;
// not part of the product.
//
//   wirebench_attack SUBCOMMAND [--host 127.0.0.1] [--port P] [--seconds 10]
//                    [--timeout-ms 15000] [--SIZE VALUE ...]
//   wirebench_attack help          lists the subcommands and their sizes
//
// The last line on stdout is "attack NAME: key=value ...", what the attack
// did and saw. Exit status: 0 the attack ran and its own check held (the
// right exception class, a scan that ended, probes answered within a
// second ...), 1 the check failed, 2 a usage error or no server.
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "tests/hbase_raw_wire.h"
#include "tests/raw_peer.h"
#include "tests/zookeeper_fixture.h"
#include "transports/hbase/hbase_wire.pb.h"
#ifdef WIREBENCH_HAVE_ZOOKEEPER
#include "transports/hbase/zookeeper_registration.h"
#endif

namespace wirebench::attack {
namespace {

namespace pbw = hbasewire;
using testing::Call;
using testing::HBaseConnectionHeader;
using testing::HBaseReply;
using testing::kHBaseHello;
using testing::RawPeer;
using Clock = std::chrono::steady_clock;

constexpr size_t kMiB = 1u << 20;
constexpr size_t kKiB = 1u << 10;
// HBase's hbase.server.keyvalue.maxsize default: the largest cell.
constexpr size_t kCellLimit = 10485760;

std::atomic<bool> g_stop{false};
extern "C" void OnStopSignal(int) { g_stop = true; }

// ---- Command line: --name value pairs over a subcommand's defaults ----

class Args {
 public:
  Args(std::map<std::string, std::string> defaults) : kv_(std::move(defaults)) {
    for (const char* common : {"host", "port", "seconds", "timeout-ms"}) kv_.emplace(common, "");
    if (kv_["host"].empty()) kv_["host"] = "127.0.0.1";
    if (kv_["seconds"].empty()) kv_["seconds"] = "10";
    if (kv_["timeout-ms"].empty()) kv_["timeout-ms"] = "15000";
  }
  // Empty when fine, else the error.
  std::string Parse(int argc, char** argv) {
    for (int i = 0; i < argc; i += 2) {
      const std::string flag = argv[i];
      if (flag.rfind("--", 0) != 0 || i + 1 >= argc)
        return "expected --name value at '" + flag + "'";
      const std::string name = flag.substr(2);
      if (!kv_.count(name)) return "unknown flag " + flag + " (flags: " + Flags() + ")";
      kv_[name] = argv[i + 1];
    }
    return "";
  }
  std::string Str(const std::string& name) const { return kv_.at(name); }
  double Num(const std::string& name) const {
    const std::string& v = kv_.at(name);
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || d < 0) {
      std::fprintf(stderr, "wirebench_attack: --%s needs a number >= 0, got '%s'\n", name.c_str(),
                   v.c_str());
      std::exit(2);
    }
    return d;
  }
  size_t Size(const std::string& name) const { return size_t(Num(name)); }
  std::string Flags() const {
    std::string out;
    for (const auto& [k, v] : kv_)
      out += (out.empty() ? "--" : " --") + k + " " + (v.empty() ? "?" : v);
    return out;
  }
  // The attack's own flags as they were taken ("pause-ms=1000;ranges-mib=6"),
  // for the report: the figures beside them say at what sizes.
  std::string Sizes() const {
    std::string out;
    for (const auto& [k, v] : kv_)
      if (k != "host" && k != "port" && k != "seconds" && k != "timeout-ms")
        out += (out.empty() ? "" : ";") + k + "=" + v;
    return out;
  }

 private:
  std::map<std::string, std::string> kv_;
};

// The attack's report: "key=value" pairs, printed as the last line.
class Report {
 public:
  explicit Report(std::string name) : name_(std::move(name)) {}
  template <typename T>
  void Set(const std::string& key, const T& value) {
    std::lock_guard<std::mutex> lock(mu_);
    if constexpr (std::is_arithmetic_v<T>) {
      char buf[64];
      if constexpr (std::is_floating_point_v<T>)
        std::snprintf(buf, sizeof buf, "%.1f", double(value));
      else
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(value));
      values_[key] = buf;
    } else {
      std::string v(value);
      for (char& c : v)
        if (c == ' ' || c == '\n' || c == '|') c = '_';
      values_[key] = v;
    }
    if (std::find(order_.begin(), order_.end(), key) == order_.end()) order_.push_back(key);
  }
  // Marks the attack's own check failed, with why.
  void Fail(const std::string& why) {
    std::fprintf(stderr, "wirebench_attack %s: check failed: %s\n", name_.c_str(), why.c_str());
    Set("check", "FAIL:" + why);
    failed_ = true;
  }
  int Print() {
    if (!failed_) Set("check", "ok");
    std::string line = "attack " + name_ + ":";
    for (const std::string& k : order_) line += " " + k + "=" + values_[k];
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    return failed_ ? 1 : 0;
  }

 private:
  std::string name_;
  std::mutex mu_;
  std::map<std::string, std::string> values_;
  std::vector<std::string> order_;
  bool failed_ = false;
};

// ---- Connections and calls ----

struct Target {
  std::string host;
  uint16_t port = 0;
  int timeout_ms = 15000;
  Clock::time_point deadline;
  bool TimeLeft() const { return !g_stop && Clock::now() < deadline; }
};

Target TargetOf(const Args& a) {
  Target t;
  t.host = a.Str("host");
  const double port = a.Num("port");
  if (port < 1 || port > 65535) {
    std::fprintf(stderr, "wirebench_attack: --port is required (1-65535)\n");
    std::exit(2);
  }
  t.port = uint16_t(port);
  t.timeout_ms = int(a.Num("timeout-ms"));
  t.deadline = Clock::now() + std::chrono::milliseconds(int64_t(a.Num("seconds") * 1000));
  return t;
}

// A connection, its sends bounded by the timeout as its reads are; with
// `handshake`, past the preamble and a ConnectionHeader (no cell codec:
// cells travel in the messages).
std::unique_ptr<RawPeer> Connect(const Target& t, bool handshake = true) {
  auto peer = std::make_unique<RawPeer>(t.host, t.port, t.timeout_ms);
  timeval tv{t.timeout_ms / 1000, (t.timeout_ms % 1000) * 1000};
  setsockopt(peer->fd(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  if (peer->connected() && handshake) peer->Send(kHBaseHello + HBaseConnectionHeader());
  return peer;
}

std::unique_ptr<RawPeer> ConnectOrExit(const Target& t) {
  auto peer = Connect(t);
  if (!peer->connected()) {
    std::fprintf(stderr, "wirebench_attack: cannot connect to %s:%u\n", t.host.c_str(), t.port);
    std::exit(2);
  }
  return peer;
}

// One call's outcome: answered or not, the exception class if any, the
// response message, and how long it took.
struct Outcome {
  bool answered = false;
  std::string exception;
  std::string message;
  double ms = 0;
  bool ok() const { return answered && exception.empty(); }
  std::string reason;  // The exception's text, its first line.
  std::string Said() const {
    return !answered ? "no-answer" : exception.empty() ? "ok" : exception;
  }
  // The class and why, for a report.
  std::string Why() const { return reason.empty() ? Said() : Said() + ": " + reason; }
};

Outcome Ask(RawPeer* peer, const std::string& call) {
  Outcome o;
  const auto start = Clock::now();
  if (peer->Send(call)) {
    const HBaseReply r = testing::ReadParsedHBaseReply(peer);
    o.answered = r.ok;
    if (r.ok && r.header.has_exception()) {
      o.exception = r.header.exception().exception_class_name();
      const std::string& text = r.header.exception().stack_trace();
      o.reason = text.substr(0, std::min<size_t>(text.find('\n'), 160));
    }
    o.message = r.message;
  }
  o.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return o;
}

hbase::RegionSpecifier UserRegion() {
  hbase::RegionSpecifier r;
  r.set_type(hbase::RegionSpecifier::REGION_NAME);
  r.set_value("usertable,,1");
  return r;
}

std::string MutateCall(uint32_t id, const hbase::MutationProto& m) {
  hbase::MutateRequest req;
  *req.mutable_region() = UserRegion();
  *req.mutable_mutation() = m;
  return Call(id, "Mutate", req);
}

// A Put (or Append) of `cells` (qualifier, value) to `row` in `family`.
hbase::MutationProto CellsMutation(hbase::MutationProto::MutationType type, const std::string& row,
                                 const std::string& family,
                                 const std::vector<std::pair<std::string, std::string>>& cells) {
  hbase::MutationProto m;
  m.set_row(row);
  m.set_mutate_type(type);
  auto* cv = m.add_column_value();
  cv->set_family(family);
  for (const auto& [q, v] : cells) {
    auto* qv = cv->add_qualifier_value();
    qv->set_qualifier(q);
    qv->set_value(v);
  }
  return m;
}

std::string Numbered(const char* prefix, size_t i, int width = 8) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%0*zu", prefix, width, i);
  return buf;
}

// Puts values of `value_bytes` on new rows until the region refuses one;
// the refusal's class ("" when the deadline or `max_bytes` came first).
std::string FillMemstore(const Target& t, RawPeer* peer, const std::string& family,
                         size_t value_bytes, size_t max_bytes, size_t* put_bytes, uint32_t* id) {
  const std::string value(value_bytes, 'f');
  for (size_t i = 0; t.TimeLeft() && *put_bytes < max_bytes; ++i) {
    const Outcome o = Ask(
        peer, MutateCall(++*id, CellsMutation(hbase::MutationProto::PUT, Numbered("attack-fill-", i),
                                              family, {{"v", value}})));
    if (!o.ok()) return o.Said();
    *put_bytes += value_bytes;
  }
  return "";
}

// A filtered Get of row "r" whose regex matches nothing: answered on a
// handler thread.
std::string FilteredGet(uint32_t id) {
  const std::string never = "(x|y)*zq";
  return testing::HBaseGetCall(id, &never);
}

// A thread that makes a call every `period`, on a connection of its own,
// and keeps the slowest answer and the failures: what a client beside the
// attack sees.
class Probe {
 public:
  Probe(const Target& t, std::chrono::milliseconds period,
        std::function<Outcome(RawPeer*, uint32_t*)> call, bool fresh_connection)
      : thread_([this, t, period, call, fresh_connection] {
          std::unique_ptr<RawPeer> peer;
          uint32_t id = 0;
          while (t.TimeLeft()) {
            if (!peer || fresh_connection) peer = Connect(t);
            const Outcome o = call(peer.get(), &id);
            {
              std::lock_guard<std::mutex> lock(mu_);
              ++calls_;
              max_ms_ = std::max(max_ms_, o.ms);
              if (!o.ok()) {
                ++failed_;
                if (first_failure_.empty()) first_failure_ = o.Why();
                peer.reset();
              }
            }
            std::this_thread::sleep_for(period);
          }
        }) {}
  ~Probe() { Join(); }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }
  // Into the report, failing it when a call failed or waited over a second.
  void Into(Report* r, const std::string& name) {
    Join();
    r->Set(name + "_calls", calls_);
    r->Set(name + "_failed", failed_);
    r->Set(name + "_max_ms", max_ms_);
    if (failed_ > 0) r->Fail(name + " call failed (" + first_failure_ + ")");
    if (max_ms_ > 1000) r->Fail(name + " waited over 1 s");
  }

 private:
  std::mutex mu_;
  uint64_t calls_ = 0, failed_ = 0;
  double max_ms_ = 0;
  std::string first_failure_;
  std::thread thread_;
};

// Closes scanner `scanner` unless `next` (its last answer) said it ran out.
void CloseUnlessDone(RawPeer* peer, uint32_t* id, uint64_t scanner, const Outcome& next) {
  hbase::ScanResponse resp;
  if (next.ok() && resp.ParseFromString(next.message) && !resp.more_results()) return;
  hbase::ScanRequest close;
  close.set_scanner_id(scanner);
  close.set_close_scanner(true);
  Ask(peer, Call(++*id, "Scan", close));
}

// One filtered scan of a client without heartbeats: opened under `filter`,
// then one next for every row, the scanner closed if that did not end it.
struct ScanRound {
  bool opened = false;
  std::string refusal;  // The opening's answer when it was refused.
  Outcome next;
};
ScanRound FilteredScanRound(const Target& t, std::unique_ptr<RawPeer>* peer, uint32_t* id,
                            const std::string& filter) {
  ScanRound round;
  const Outcome open =
      Ask(peer->get(), Call(++*id, "Scan", testing::OpenFilteredScan(filter, 0, false)));
  hbase::ScanResponse opened;
  if (!open.ok() || !opened.ParseFromString(open.message)) {
    round.refusal = open.Why();
    if (!open.answered) *peer = Connect(t);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return round;
  }
  round.opened = true;
  round.next = Ask(peer->get(),
                   Call(++*id, "Scan", testing::NextScan(opened.scanner_id(), 100000, 0, false)));
  if (!round.next.answered)
    *peer = Connect(t);
  else
    CloseUnlessDone(peer->get(), id, opened.scanner_id(), round.next);
  return round;
}

// The rounds of a loop of filtered scans: how many scans were answered, and
// the last refusal to open one.
struct ScanTally {
  uint64_t scans = 0;
  std::string refused;
  // Counts an answered round; false, keeping its refusal, when the scan was
  // not opened.
  bool Count(const ScanRound& round) {
    if (!round.opened) {
      refused = round.refusal;
      return false;
    }
    ++scans;
    return true;
  }
  // The scans answered, and the last refusal if any.
  void Into(Report* r) const {
    r->Set("scans", scans);
    if (!refused.empty()) r->Set("open_refused", refused);
  }
};

// Sleeps --pause-ms between an attack's rounds (cut short by the deadline).
void Pause(const Target& t, const Args& a) {
  const auto until = Clock::now() + std::chrono::milliseconds(int64_t(a.Num("pause-ms")));
  while (t.TimeLeft() && Clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

// Waits out the deadline.
void Hold(const Target& t) {
  while (t.TimeLeft()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

// ---- The attacks, by the item they answer ----

// 1. A filtered scan whose MultiRowRangeFilter (--ranges-mib) matches no row
// reads the whole table in one next; beside it, a new client's hbase:meta
// lookup and a small scan on a fresh connection every 200 ms. The attack
// is one call; it is repeated --pause-ms after each answer, so that one is
// always near while the good client runs without the attacker's own CPU
// becoming the measurement (as with every attack that repeats a call).
int ScanStall(const Args& a, Report* r) {
  const Target t = TargetOf(a);
  pbw::MultiRowRangeFilter ranges;
  // Ranges between YCSB's keys ("user" and digits): "user<n>a" to "user<n>b"
  // holds none of them.
  const size_t per_range = 2 * 18 + 8;
  const size_t count = std::max<size_t>(1, size_t(a.Num("ranges-mib") * kMiB) / per_range);
  for (size_t i = 0; i < count; ++i) {
    auto* range = ranges.add_row_range_list();
    const std::string base = Numbered("user", i * 7919, 12);
    range->set_start_row(base + "a");
    range->set_start_row_inclusive(true);
    range->set_stop_row(base + "b");
    range->set_stop_row_inclusive(false);
  }
  pbw::Filter f;
  f.set_name("org.apache.hadoop.hbase.filter.MultiRowRangeFilter");
  f.set_serialized_filter(ranges.SerializeAsString());
  const std::string filter = f.SerializeAsString();
  r->Set("ranges", count);
  r->Set("filter_mib", double(filter.size()) / kMiB);
  auto peer = ConnectOrExit(t);
  Probe probe(
      t, std::chrono::milliseconds(200),
      [](RawPeer* p, uint32_t* id) {
        Outcome meta = Ask(p, testing::MetaLookup(++*id));
        if (!meta.ok()) return meta;
        hbase::ScanRequest small;
        *small.mutable_region() = UserRegion();
        small.mutable_scan();  // The whole table, 10 rows of it.
        small.set_number_of_rows(10);
        small.set_close_scanner(true);
        Outcome scan = Ask(p, Call(++*id, "Scan", small));
        scan.ms = std::max(scan.ms, meta.ms);
        return scan;
      },
      /*fresh_connection=*/true);
  uint32_t id = 0;
  ScanTally tally;
  double max_next_ms = 0;
  while (t.TimeLeft()) {
    const ScanRound round = FilteredScanRound(t, &peer, &id, filter);
    if (!tally.Count(round)) continue;
    max_next_ms = std::max(max_next_ms, round.next.ms);
    Pause(t, a);
  }
  tally.Into(r);
  r->Set("max_next_ms", max_next_ms);
  probe.Into(r, "meta_lookup");
  return r->Print();
}

// 2. Appends that would grow one cell past the 10 MiB cell limit, then
// --connections connections each pipelining --gets Gets of a --row-kib row
// and reading nothing, held until the deadline.
int ReplyFlood(const Args& a, Report* r) {
  const Target t = TargetOf(a);
  const std::string family = a.Str("family");
  auto peer = ConnectOrExit(t);
  uint32_t id = 0;
  // The appends first: each answer, and the cell's size after them.
  const std::string chunk(size_t(a.Num("append-mib") * kMiB), 'a');
  std::string answers;
  for (size_t i = 0; i < a.Size("appends") && t.TimeLeft(); ++i) {
    const Outcome o =
        Ask(peer.get(), MutateCall(++id, CellsMutation(hbase::MutationProto::APPEND, "attack-append",
                                                       family, {{"a", chunk}})));
    answers += (answers.empty() ? "" : ",") + o.Said().substr(o.Said().rfind('.') + 1);
    if (!o.answered) peer = Connect(t);
  }
  r->Set("appends", answers);
  hbase::GetRequest g;
  *g.mutable_region() = UserRegion();
  g.mutable_get()->set_row("attack-append");
  const Outcome got = Ask(peer.get(), Call(++id, "Get", g));
  hbase::GetResponse gr;
  size_t cell = 0;
  if (got.ok() && gr.ParseFromString(got.message))
    for (const auto& c : gr.result().cell()) cell = std::max(cell, c.value().size());
  r->Set("append_cell_bytes", cell);
  if (!got.ok()) r->Fail("the appended cell could not be read (" + got.Why() + ")");
  if (cell > kCellLimit) r->Fail("appends grew a cell past the 10 MiB cell limit");

  // The large row, then the Gets nobody reads.
  const std::string row = "attack-big-row";
  const Outcome put =
      Ask(peer.get(),
          MutateCall(++id, CellsMutation(hbase::MutationProto::PUT, row, family,
                                         {{"big", std::string(a.Size("row-kib") * kKiB, 'b')}})));
  if (!put.ok()) r->Fail("the large row was not written (" + put.Why() + ")");
  hbase::GetRequest big;
  *big.mutable_region() = UserRegion();
  big.mutable_get()->set_row(row);
  std::string gets = kHBaseHello + HBaseConnectionHeader();
  for (size_t i = 0; i < a.Size("gets"); ++i) gets += Call(uint32_t(i + 1), "Get", big);
  std::vector<std::unique_ptr<RawPeer>> flooders;
  size_t sent = 0;
  for (size_t c = 0; c < a.Size("connections") && t.TimeLeft(); ++c) {
    flooders.push_back(Connect(t, /*handshake=*/false));
    sent += flooders.back()->SendSome(gets);
  }
  r->Set("flood_connections", flooders.size());
  r->Set("flood_bytes_sent", sent);
  Hold(t);
  return r->Print();
}

// 3. One Delete of --delete-cells DeleteColumn cells on a new row, and a Get
// naming --get-columns columns of a --row-cells-cell row, repeated
// --pause-ms after each answer.
int WideDelete(const Args& a, Report* r) {
  const Target t = TargetOf(a);
  const std::string family = a.Str("family");
  auto peer = ConnectOrExit(t);
  uint32_t id = 0;
  std::vector<std::pair<std::string, std::string>> cells;
  for (size_t i = 0; i < a.Size("row-cells"); ++i) cells.emplace_back(Numbered("c", i, 6), "v");
  const Outcome wide =
      Ask(peer.get(),
          MutateCall(++id, CellsMutation(hbase::MutationProto::PUT, "attack-wide", family, cells)));
  if (!wide.ok()) r->Fail("the wide row was not written (" + wide.Why() + ")");
  hbase::GetRequest g;
  *g.mutable_region() = UserRegion();
  g.mutable_get()->set_row("attack-wide");
  auto* col = g.mutable_get()->add_column();
  col->set_family(family);
  for (size_t i = 0; i < a.Size("get-columns"); ++i) col->add_qualifier(Numbered("c", i, 6));
  hbase::MutationProto del;
  del.set_mutate_type(hbase::MutationProto::DELETE);
  auto* cv = del.add_column_value();
  cv->set_family(family);
  for (size_t i = 0; i < a.Size("delete-cells"); ++i) {
    auto* qv = cv->add_qualifier_value();
    qv->set_qualifier(Numbered("d", i, 6));
    qv->set_delete_type(hbase::MutationProto::DELETE_MULTIPLE_VERSIONS);
  }
  uint64_t rounds = 0, unanswered = 0;
  double max_delete_ms = 0, max_get_ms = 0;
  std::string refused;
  for (size_t i = 0; t.TimeLeft(); ++i) {
    del.set_row(Numbered("attack-del-", i));
    const Outcome d = Ask(peer.get(), MutateCall(++id, del));
    if (!d.ok() && refused.empty()) refused = d.Why();
    max_delete_ms = std::max(max_delete_ms, d.ms);
    const Outcome gt = Ask(peer.get(), Call(++id, "Get", g));
    max_get_ms = std::max(max_get_ms, gt.ms);
    if (!d.answered || !gt.answered) {
      ++unanswered;
      peer = Connect(t);
    }
    ++rounds;
    Pause(t, a);
  }
  r->Set("rounds", rounds);
  r->Set("delete_call_mib", double(MutateCall(0, del).size()) / kMiB);
  r->Set("max_delete_ms", max_delete_ms);
  r->Set("max_get_ms", max_get_ms);
  if (!refused.empty()) r->Set("delete_refused", refused);
  if (unanswered > 0)
    r->Fail(std::to_string(unanswered) + " calls not answered within --timeout-ms");
  return r->Print();
}

// 4. With the region full (puts of --fill-kib until refused), DeleteFamily
// on new rows in Multis of --batch until refused or --mib sent.
int DeleteFlood(const Args& a, Report* r) {
  const Target t = TargetOf(a);
  const std::string family = a.Str("family");
  auto peer = ConnectOrExit(t);
  uint32_t id = 0;
  size_t filled = 0;
  if (a.Num("fill-kib") > 0) {
    const std::string full = FillMemstore(t, peer.get(), family, a.Size("fill-kib") * kKiB,
                                          size_t(a.Num("fill-max-mib") * kMiB), &filled, &id);
    r->Set("filled_mib", double(filled) / kMiB);
    r->Set("fill_refused", full.empty() ? "never" : full);
  }
  const size_t limit = size_t(a.Num("mib") * kMiB);
  size_t sent = 0, row = 0;
  uint64_t accepted = 0, refused = 0;
  std::string refusal;
  while (t.TimeLeft() && sent < limit) {
    hbase::MultiRequest multi;
    hbase::RegionAction* ra = multi.add_regionaction();
    *ra->mutable_region() = UserRegion();
    for (size_t i = 0; i < a.Size("batch"); ++i) {
      hbase::Action* act = ra->add_action();
      act->set_index(uint32_t(i));
      hbase::MutationProto* m = act->mutable_mutation();
      m->set_row(Numbered("attack-df-", row++, 10));
      m->set_mutate_type(hbase::MutationProto::DELETE);
      auto* cv = m->add_column_value();
      cv->set_family(family);
      cv->add_qualifier_value()->set_delete_type(hbase::MutationProto::DELETE_FAMILY);
    }
    const std::string call = Call(++id, "Multi", multi);
    const Outcome o = Ask(peer.get(), call);
    sent += call.size();
    hbase::MultiResponse resp;
    if (!o.ok() || !resp.ParseFromString(o.message) || resp.regionactionresult_size() != 1) {
      refusal = o.Why();
      if (!o.answered) peer = Connect(t);
      break;
    }
    uint64_t batch_refused = 0;
    for (const auto& roe : resp.regionactionresult(0).resultorexception()) {
      if (roe.has_exception()) {
        ++batch_refused;
        if (refusal.empty()) refusal = roe.exception().name();
      }
    }
    refused += batch_refused;
    accepted += uint64_t(a.Size("batch")) - batch_refused;
    if (batch_refused == a.Size("batch")) break;  // Refused: the limit holds.
  }
  r->Set("deletes_mib_sent", double(sent) / kMiB);
  r->Set("deletes_accepted", accepted);
  r->Set("deletes_refused", refused);
  r->Set("refusal", refusal.empty() ? "never" : refusal);
  if (refusal.empty() && sent >= limit)
    r->Fail("deletes were never refused past the memstore limit");
  Hold(t);
  return r->Print();
}

// 5. --connections connections announcing calls of --sizes bytes (in turn)
// and sending one byte every --interval-ms; one the server closes is opened
// again.
int Trickle(const Args& a, Report* r) {
  const Target t = TargetOf(a);
  std::vector<size_t> sizes;
  for (std::string s = a.Str("sizes"); !s.empty();) {
    const size_t comma = s.find(',');
    sizes.push_back(size_t(std::strtoull(s.substr(0, comma).c_str(), nullptr, 10)));
    s = comma == std::string::npos ? "" : s.substr(comma + 1);
  }
  if (sizes.empty()) sizes.push_back(kMiB);
  struct Slow {
    std::unique_ptr<RawPeer> peer;
    size_t size = 0;
    Clock::time_point next;
  };
  const auto interval = std::chrono::milliseconds(int64_t(a.Num("interval-ms")));
  auto open = [&](Slow* s) {
    s->peer = Connect(t, /*handshake=*/false);
    // Within --max-frame's default (16 MiB): the announcement is taken.
    const uint32_t length = uint32_t(std::min<size_t>(s->size, 16 * kMiB - 64));
    s->peer->SendSome(kHBaseHello + HBaseConnectionHeader() + testing::Be32(length) + "xxxx");
    s->next = Clock::now() + interval;
  };
  std::vector<Slow> slow(a.Size("connections"));
  for (size_t i = 0; i < slow.size(); ++i) {
    slow[i].size = sizes[i % sizes.size()];
    open(&slow[i]);
  }
  uint64_t closed = 0, bytes = 0;
  while (t.TimeLeft()) {
    for (Slow& s : slow) {
      pollfd p{s.peer->fd(), POLLIN | POLLRDHUP, 0};
      const bool gone = !s.peer->connected() || (poll(&p, 1, 0) == 1 && (p.revents != 0));
      if (gone) {  // Refused (an answer) or closed: again.
        ++closed;
        open(&s);
        continue;
      }
      if (Clock::now() >= s.next) {
        if (s.peer->SendSome("x") == 1) ++bytes;
        s.next += interval;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  r->Set("connections", slow.size());
  r->Set("trickled_bytes", bytes);
  r->Set("closed_by_server", closed);
  return r->Print();
}

// 6. --connections connections each sending a Get every --interval-ms, to
// keep the server over half its --max-connections.
int IdleCrowd(const Args& a, Report* r) {
  const Target t = TargetOf(a);
  std::vector<std::unique_ptr<RawPeer>> peers;
  for (size_t i = 0; i < a.Size("connections"); ++i) peers.push_back(Connect(t));
  const auto interval = std::chrono::milliseconds(int64_t(a.Num("interval-ms")));
  uint64_t gets = 0, lost = 0;
  uint32_t id = 0;
  double max_ms = 0;
  while (t.TimeLeft()) {
    const auto round = Clock::now();
    for (auto& p : peers) {
      const Outcome o = Ask(p.get(), testing::HBaseGetCall(++id));
      max_ms = std::max(max_ms, o.ms);
      ++gets;
      if (!o.ok()) {
        ++lost;
        p = Connect(t);
      }
    }
    std::this_thread::sleep_until(round + interval);
  }
  r->Set("connections", peers.size());
  r->Set("gets", gets);
  r->Set("reconnects", lost);
  r->Set("max_get_ms", max_ms);
  return r->Print();
}

// 7. Filtered scans of about --scan-ms each (a FilterList of regex
// ValueFilters, as many as make a scan that long: found from the first
// scans, at most --max-filters), from a client without heartbeats; beside
// them, a filtered Get every 100 ms must be answered within a second.
int SlowScan(const Args& a, Report* r) {
  const Target t = TargetOf(a);
  auto peer = ConnectOrExit(t);
  Probe probe(
      t, std::chrono::milliseconds(100),
      [](RawPeer* p, uint32_t* id) { return Ask(p, FilteredGet(++*id)); },
      /*fresh_connection=*/false);
  const double target_ms = a.Num("scan-ms");
  const int max_filters = int(a.Num("max-filters"));
  int filters = std::max(1, std::min(max_filters, int(a.Num("filters"))));
  uint32_t id = 0;
  ScanTally tally;
  double max_scan_ms = 0;
  while (t.TimeLeft()) {
    const std::string filter = testing::RegexFilterList("(x|y)*zq", filters);
    const ScanRound round = FilteredScanRound(t, &peer, &id, filter);
    if (!tally.Count(round)) continue;
    const double ms = round.next.ms;
    max_scan_ms = std::max(max_scan_ms, ms);
    // Towards --scan-ms: scale the filter count by how far off this scan was.
    if (ms < target_ms * 0.8 && filters < max_filters)
      filters =
          std::min(max_filters, int(filters * std::min(10.0, target_ms / std::max(1.0, ms))) + 1);
    Pause(t, a);
  }
  tally.Into(r);
  r->Set("filters", filters);
  r->Set("max_scan_ms", max_scan_ms);
  probe.Into(r, "filtered_get");
  return r->Print();
}

// 8. Scanners with --filter-mib MultipleColumnPrefixFilters opened until the
// server refuses one (at most --max-scanners), held to the deadline; and a
// Get with a --get-filter-mib TimestampsFilter.
int ScannerFilters(const Args& a, Report* r) {
  const Target t = TargetOf(a);
  auto peer = ConnectOrExit(t);
  pbw::MultipleColumnPrefixFilter prefixes;
  const size_t count = std::max<size_t>(1, size_t(a.Num("filter-mib") * kMiB) / 11);
  for (size_t i = 0; i < count; ++i) prefixes.add_sorted_prefixes(Numbered("p", i, 8));
  pbw::Filter f;
  f.set_name("org.apache.hadoop.hbase.filter.MultipleColumnPrefixFilter");
  f.set_serialized_filter(prefixes.SerializeAsString());
  const std::string open_call_filter = f.SerializeAsString();
  r->Set("scanner_filter_mib", double(open_call_filter.size()) / kMiB);
  uint32_t id = 0;
  std::vector<uint64_t> scanners;
  std::string refusal;
  while (scanners.size() < a.Size("max-scanners") && t.TimeLeft()) {
    const Outcome o =
        Ask(peer.get(), Call(++id, "Scan", testing::OpenFilteredScan(open_call_filter, 0, false)));
    hbase::ScanResponse resp;
    if (!o.ok() || !resp.ParseFromString(o.message)) {
      refusal = o.Why();
      if (!o.answered) peer = Connect(t);
      break;
    }
    scanners.push_back(resp.scanner_id());
  }
  r->Set("scanners_accepted", scanners.size());
  r->Set("scanner_refusal", refusal.empty() ? "never" : refusal);
  if (refusal.empty() && scanners.size() >= a.Size("max-scanners"))
    r->Fail("--max-scanners scanners accepted, none refused");

  pbw::TimestampsFilter ts;
  const size_t stamps = std::max<size_t>(1, size_t(a.Num("get-filter-mib") * kMiB) / 6);
  for (size_t i = 0; i < stamps; ++i) ts.add_timestamps(int64_t(1000000000000LL + int64_t(i)));
  pbw::Filter tf;
  tf.set_name("org.apache.hadoop.hbase.filter.TimestampsFilter");
  tf.set_serialized_filter(ts.SerializeAsString());
  hbase::GetRequest g;
  *g.mutable_region() = UserRegion();
  g.mutable_get()->set_row("r");
  g.mutable_get()->set_filter(tf.SerializeAsString());
  auto get_peer = Connect(t);
  const Outcome got = Ask(get_peer.get(), Call(1, "Get", g));
  r->Set("timestamps_get_mib", double(g.ByteSizeLong()) / kMiB);
  r->Set("timestamps_get", got.Why());
  r->Set("timestamps_get_ms", got.ms);
  if (!got.answered) r->Fail("the TimestampsFilter Get was not answered");

  auto last_renew = Clock::now();
  while (t.TimeLeft()) {
    if (Clock::now() - last_renew > std::chrono::seconds(20)) {  // Leases are 60 s.
      for (uint64_t s : scanners) {
        hbase::ScanRequest renew;
        renew.set_scanner_id(s);
        renew.set_renew(true);
        Ask(peer.get(), Call(++id, "Scan", renew));
      }
      last_renew = Clock::now();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (uint64_t s : scanners) CloseUnlessDone(peer.get(), &id, s, Outcome{});
  return r->Print();
}

// 9. Puts of --put-kib on new rows until the region refuses one, then one
// every 100 ms to the deadline: each refusal must name
// org.apache.hadoop.hbase.RegionTooBusyException.
int MemstoreFull(const Args& a, Report* r) {
  const Target t = TargetOf(a);
  const std::string family = a.Str("family");
  const std::string expected = "org.apache.hadoop.hbase.RegionTooBusyException";
  auto peer = ConnectOrExit(t);
  uint32_t id = 0;
  size_t put = 0;
  const std::string first = FillMemstore(t, peer.get(), family, a.Size("put-kib") * kKiB,
                                         size_t(a.Num("max-mib") * kMiB), &put, &id);
  r->Set("put_mib", double(put) / kMiB);
  r->Set("refusal", first.empty() ? "never" : first);
  if (first != expected)
    r->Fail("past the limit the put got " + (first.empty() ? "no refusal" : first));
  uint64_t refused = 0, other = 0;
  for (size_t i = 0; t.TimeLeft() && !first.empty(); ++i) {
    const Outcome o =
        Ask(peer.get(),
            MutateCall(++id, CellsMutation(hbase::MutationProto::PUT, Numbered("attack-over-", i),
                                           family, {{"v", std::string(1024, 'o')}})));
    if (o.exception == expected)
      ++refused;
    else
      ++other;
    if (!o.answered) peer = Connect(t);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  r->Set("later_refused", refused);
  r->Set("later_other", other);
  return r->Print();
}

// 10. Waits until ZooKeeper's meta-region-server names --expect-port.
int ZooKeeperMeta(const Args& a, Report* r) {
#ifdef WIREBENCH_HAVE_ZOOKEEPER
  const auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(a.Num("seconds") * 1000));
  auto target = hbase::ParseZooKeeperFlag(a.Str("zookeeper"));
  if (!target.ok()) {
    std::fprintf(stderr, "wirebench_attack: --zookeeper: %s\n", target.status().ToString().c_str());
    return 2;
  }
  const uint16_t want = uint16_t(a.Num("expect-port"));
  const auto start = Clock::now();
  std::string named = "nothing";
  bool found = false;
  while (!g_stop && Clock::now() < deadline) {
    auto meta = hbase::LookupMetaRegionServer(*target, std::chrono::milliseconds(5000));
    if (meta.ok()) {
      named = meta->host + ":" + std::to_string(meta->port);
      if (meta->port == want) {
        found = true;
        break;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  r->Set("meta_region_server", named);
  r->Set("waited_ms", std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  if (!found) r->Fail("meta-region-server never named port " + std::to_string(want));
  return r->Print();
#else
  std::fprintf(stderr,
               "wirebench_attack: built without ZooKeeper's C client (libzookeeper-mt-dev)\n");
  return 2;
#endif
}

// 11. Scans with caching 0 and no number_of_rows, over and over: each must
// end (more_results false) within --max-calls calls.
int CachingZero(const Args& a, Report* r) {
  const Target t = TargetOf(a);
  auto peer = ConnectOrExit(t);
  uint32_t id = 0;
  uint64_t scans = 0, rows = 0, calls = 0, endless = 0;
  while (t.TimeLeft()) {
    hbase::ScanRequest open;
    *open.mutable_region() = UserRegion();
    open.mutable_scan()->set_caching(0);
    Outcome o = Ask(peer.get(), Call(++id, "Scan", open));
    hbase::ScanResponse resp;
    if (!o.ok() || !resp.ParseFromString(o.message)) {
      r->Fail("the scan was not opened (" + o.Why() + ")");
      break;
    }
    const uint64_t scanner = resp.scanner_id();
    size_t n = 1;
    for (; resp.more_results() && n < a.Size("max-calls") && t.TimeLeft(); ++n) {
      rows += uint64_t(resp.results_size());
      hbase::ScanRequest next;
      next.set_scanner_id(scanner);
      o = Ask(peer.get(), Call(++id, "Scan", next));
      if (!o.ok() || !resp.ParseFromString(o.message)) break;
    }
    rows += uint64_t(resp.results_size());
    calls += n;
    if (n >= a.Size("max-calls")) {
      ++endless;
      CloseUnlessDone(peer.get(), &id, scanner, Outcome{});
    } else if (!resp.more_results()) {
      ++scans;
    }
    Pause(t, a);
  }
  r->Set("scans_ended", scans);
  r->Set("calls", calls);
  r->Set("rows", rows);
  if (endless > 0)
    r->Fail(std::to_string(endless) + " scans still had more after --max-calls calls");
  if (scans == 0) r->Fail("no scan ended");
  return r->Print();
}

struct Attack {
  const char* name;
  int item;
  const char* what;
  std::map<std::string, std::string> sizes;
  int (*run)(const Args&, Report*);
};

const std::vector<Attack>& Attacks() {
  static const std::vector<Attack> all = {
      {"scan-stall",
       1,
       "filtered scan with a MultiRowRangeFilter matching nothing; meta lookups beside",
       {{"ranges-mib", "6"}, {"pause-ms", "1000"}},
       ScanStall},
      {"reply-flood",
       2,
       "appends past the cell limit; pipelined Gets of a large row, never read",
       {{"connections", "3"},
        {"gets", "1500"},
        {"row-kib", "1024"},
        {"appends", "6"},
        {"append-mib", "4"},
        {"family", "family"}},
       ReplyFlood},
      {"wide-delete",
       3,
       "one Delete of many DeleteColumn cells; a Get naming many columns of a wide row",
       {{"delete-cells", "80000"},
        {"get-columns", "100000"},
        {"row-cells", "20000"},
        {"family", "family"},
        {"pause-ms", "1000"}},
       WideDelete},
      {"delete-flood",
       4,
       "region filled, then DeleteFamily on new rows until refused",
       {{"mib", "488"},
        {"batch", "10000"},
        {"fill-kib", "1024"},
        {"fill-max-mib", "4096"},
        {"family", "family"}},
       DeleteFlood},
      {"trickle",
       5,
       "connections announcing large calls, trickling a byte every interval",
       {{"connections", "12"}, {"sizes", "16777216,1048576,131072,65536"}, {"interval-ms", "5000"}},
       Trickle},
      {"idle-crowd",
       6,
       "connections each sending a Get every interval, crowding the server",
       {{"connections", "51"}, {"interval-ms", "500"}},
       IdleCrowd},
      {"slow-scan",
       7,
       "long filtered scans; a filtered Get beside them",
       {{"scan-ms", "5000"}, {"filters", "20"}, {"max-filters", "20000"}, {"pause-ms", "0"}},
       SlowScan},
      {"scanner-filters",
       8,
       "scanners with large MultipleColumnPrefixFilters until refused; a large TimestampsFilter "
       "Get",
       {{"filter-mib", "13"}, {"get-filter-mib", "12"}, {"max-scanners", "32"}},
       ScannerFilters},
      {"memstore-full",
       9,
       "puts past the memstore limit: the refusal's exception class",
       {{"put-kib", "1024"}, {"max-mib", "4096"}, {"family", "family"}},
       MemstoreFull},
      {"zk-meta",
       10,
       "waits until ZooKeeper's meta-region-server names --expect-port",
       {{"zookeeper", ""}, {"expect-port", "0"}, {"port", "1"}},
       ZooKeeperMeta},
      {"caching-zero",
       11,
       "scans with caching 0 and no number_of_rows must end",
       {{"max-calls", "100000"}, {"pause-ms", "1000"}},
       CachingZero},
  };
  return all;
}

void Usage(FILE* out) {
  std::fprintf(out,
               "usage: wirebench_attack SUBCOMMAND --port P [--host 127.0.0.1] [--seconds 10] "
               "[--timeout-ms 15000] [sizes]\n"
               "       wirebench_attack free-port   (prints a free loopback port)\n");
  for (const Attack& at : Attacks()) {
    std::fprintf(out, "  %-16s item %2d: %s\n  %16s", at.name, at.item, at.what, "");
    for (const auto& [k, v] : at.sizes)
      if (k != "port") std::fprintf(out, " --%s %s", k.c_str(), v.empty() ? "?" : v.c_str());
    std::fprintf(out, "\n");
  }
}

int Main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "help" || std::string(argv[1]) == "--help") {
    Usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string sub = argv[1];
  if (sub == "free-port") {
    std::printf("%u\n", testing::FreeLoopbackPort());
    return 0;
  }
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  for (const Attack& at : Attacks()) {
    if (sub != at.name && sub != std::to_string(at.item)) continue;
    Args args(at.sizes);
    if (const std::string err = args.Parse(argc - 2, argv + 2); !err.empty()) {
      std::fprintf(stderr, "wirebench_attack %s: %s\n", at.name, err.c_str());
      return 2;
    }
    Report report(at.name);
    report.Set("with", args.Sizes());
    return at.run(args, &report);
  }
  std::fprintf(stderr, "wirebench_attack: unknown subcommand '%s'\n", sub.c_str());
  Usage(stderr);
  return 2;
}

}  // namespace
}  // namespace wirebench::attack

int main(int argc, char** argv) { return wirebench::attack::Main(argc, argv); }
