// `--instructions` (bench/loadgen/instructions.h): the callgrind output
// parser and the layer attribution on hand-written profiles, then the real
// binary under Valgrind: two runs of a cell agree within 1% on each side, pb
// costs more instructions per op than raw on both sides (through `compare`,
// which also checks its instruction rows), and the null region's known-cost
// knob shows up as +N +-2% in the server's region layer. The Valgrind tests
// skip, saying why, when valgrind is not installed.
#include "bench/loadgen/instructions.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "codecs/codec.h"
#include "regions/registry.h"
#include "rpc/symbol_prefixes.h"
#include "tests/expect_text.h"
#include "tests/sanitized_build.h"
#include "tests/shell.h"
#include "tests/wirebench_paths.h"
#include "transports/transport.h"

namespace wirebench {
namespace {

const std::string kWorkload = std::string(WIREBENCH_SOURCE_DIR) + "/workloads/workloada";

// A profile in callgrind's uncompressed format: main -> ReadLoop (rpc) ->
// Dispatch (rpc) -> RawCodec::DecodeRequest (codec) -> memcpy; ReadLoop ->
// memcpy too; NullRegion::Get (region) under Dispatch; a codec function
// whose file is a common/ header; and a recursive codec call.
constexpr char kProfile[] = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 42
desc: Trigger: Client Request: wirebench-server-stats-call
positions: line
events: Ir
summary: 1000
totals: 1000

ob=/bin/wirebench
fl=???
fn=main
1 10
cfl=/src/transports/wirebench/server_connection.cc
cfn=wirebench::rpc::ServerConnection::ReadLoop()
calls=1 0
1 990

fl=/src/transports/wirebench/server_connection.cc
fn=wirebench::rpc::ServerConnection::ReadLoop()
5 100
cfn=wirebench::wbrpc::WirebenchConnection::Dispatch(wirebench::wbrpc::Frame const&)
calls=10 0
6 790
cfl=???
cfn=memcpy
calls=10 0
7 100

fn=wirebench::wbrpc::WirebenchConnection::Dispatch(wirebench::wbrpc::Frame const&)
9 200
cfl=/src/codecs/raw/raw_codec.cc
cfn=wirebench::(anonymous namespace)::RawCodec::DecodeRequest(wirebench::ByteView, wirebench::GetRequest*)
calls=10 0
10 500
cfl=/src/nullregion/null_region.cc
cfn=wirebench::(anonymous namespace)::NullRegion::Get(wirebench::GetRequest const&)
calls=10 0
11 90

fl=/src/codecs/raw/raw_codec.cc
fn=wirebench::(anonymous namespace)::RawCodec::DecodeRequest(wirebench::ByteView, wirebench::GetRequest*)
20 100
cfn=wirebench::(anonymous namespace)::RawCodec::DecodeRequest(wirebench::ByteView, wirebench::GetRequest*)'2
calls=10 0
21 200
cfl=/src/common/bytes.h
cfn=wirebench::(anonymous namespace)::RawCodec::ReadResult(wirebench::WireReader&)
calls=10 0
22 100
cfl=???
cfn=memcpy
calls=10 0
23 100

fn=wirebench::(anonymous namespace)::RawCodec::DecodeRequest(wirebench::ByteView, wirebench::GetRequest*)'2
25 200

fl=/src/common/bytes.h
fn=wirebench::(anonymous namespace)::RawCodec::ReadResult(wirebench::WireReader&)
30 100

fl=/src/nullregion/null_region.cc
fn=wirebench::(anonymous namespace)::NullRegion::Get(wirebench::GetRequest const&)
40 90

fl=???
fn=memcpy
50 200
)";

TEST(CallgrindParser, ReadsSelfCostsCallsTotalsAndTrigger) {
  std::istringstream in(kProfile);
  auto p = ParseCallgrindOutput(in);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->trigger, "Client Request: wirebench-server-stats-call");
  EXPECT_EQ(p->totals, 1000u);
  EXPECT_EQ(p->SelfSum(), 1000u);
  EXPECT_EQ(p->functions.at("memcpy").self, 200u);
  EXPECT_EQ(p->functions.at("wirebench::rpc::ServerConnection::ReadLoop()").file,
            "/src/transports/wirebench/server_connection.cc");
  uint64_t readloop_to_dispatch = 0;
  for (const auto& c : p->calls)
    if (c.caller == "wirebench::rpc::ServerConnection::ReadLoop()" &&
        c.callee.find("Dispatch") != std::string::npos)
      readloop_to_dispatch = c.inclusive;
  EXPECT_EQ(readloop_to_dispatch, 790u);
}

TEST(CallgrindParser, RejectsCompressedOrNonCallgrindInput) {
  std::istringstream compressed("events: Ir\nfn=(1) main\n1 5\n");
  auto a = ParseCallgrindOutput(compressed);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().ToString().find("--compress-strings=no"), std::string::npos);
  std::istringstream junk("hello\nworld\n");
  EXPECT_FALSE(ParseCallgrindOutput(junk).ok());
}

// When the server's closing Stats call did not happen
// (server killed, Ctrl-C, a cut compare cell), its newest dump is the
// warm-up's: its figure is unavailable, saying why, never that number.
TEST(CollectInstructions, ServerFigureIsUnavailableWithoutTheClosingStatsCall) {
  const std::string dir = std::string(WIREBENCH_BINARY_DIR) + "/instructions_collect_test";
  std::filesystem::remove_all(dir);
  const int kServerPid = 999999;  // No such process: only its dump's name matters.
  auto write_dump = [&] {
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/callgrind.out." + std::to_string(kServerPid) + ".1") << kProfile;
  };
  write_dump();
  InstructionFigures f = CollectInstructions(dir, kServerPid, 10, "killed by signal 9");
  EXPECT_FALSE(f.server.available);
  EXPECT_EQ(f.server.total, 0);
  EXPECT_NE(f.server.unavailable_reason.find("closing Stats call"), std::string::npos)
      << f.server.unavailable_reason;
  EXPECT_NE(f.server.unavailable_reason.find("killed by signal 9"), std::string::npos)
      << f.server.unavailable_reason;
  // The dump was read all the same (and deleted): none is left behind.
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  // With the closing call, the dump is the measured phase.
  write_dump();
  f = CollectInstructions(dir, kServerPid, 10);
  EXPECT_TRUE(f.server.available) << f.server.unavailable_reason;
  EXPECT_DOUBLE_EQ(f.server.total, 100);
  std::filesystem::remove_all(dir);
}

// A stripped binary (the .deb's) leaves callgrind no names or files: every
// instruction lands in `other`, silently. The run now says so.
TEST(CollectInstructions, AllInOtherIsNamedAsAStrippedBinary) {
  InstructionFigures f;
  f.client.available = f.server.available = true;
  f.client.total = f.client.other = 3442;
  f.server.total = 2000;
  f.server.codec = 500;
  f.server.other = 1500;
  const std::string w = NoSymbolsWarning(f);
  EXPECT_NE(w.find("every client instruction fell in the 'other' layer"), std::string::npos) << w;
  EXPECT_NE(w.find("wirebench-dbgsym"), std::string::npos) << w;
  f.client.harness = 100;
  EXPECT_EQ(NoSymbolsWarning(f), "");
}

// Layers come from the registries' entries (their symbol prefixes), the
// network core's prefixes and the seams' interfaces, never from source
// paths: a Release binary without line tables splits the same way.
TEST(LayerAttribution, LayersComeFromTheEntriesSymbolPrefixes) {
  EXPECT_EQ(LayerOfFunction("wirebench::(anonymous namespace)::RawCodec::ReadResult(int)"),
            Layer::kCodec);
  EXPECT_EQ(LayerOfFunction("wirebench::CodecAdapter<wirebench::Raw>::EncodeRequest(int)"),
            Layer::kCodec);
  EXPECT_EQ(LayerOfFunction("wirebench::hbase::Cell::_InternalParse(char const*)"), Layer::kCodec);
  EXPECT_EQ(LayerOfFunction("wirebench::(anonymous namespace)::NullRegion::Get(int)"),
            Layer::kRegion);
  EXPECT_EQ(LayerOfFunction("wirebench::Region::Multi(int)"), Layer::kRegion);
  EXPECT_EQ(LayerOfFunction("boost::asio::detail::socket_ops::recv1(int)"), Layer::kRpcCore);
  EXPECT_EQ(LayerOfFunction("wirebench::rpc::NetServer::Accept(int)"), Layer::kRpcCore);
  EXPECT_EQ(LayerOfFunction("wirebench::hbaserpc::HBaseConnection::Consume(int)"),
            Layer::kRpcTransport);
  EXPECT_EQ(LayerOfFunction("wirebench::wbrpc::WirebenchConnection::Consume(int)"),
            Layer::kRpcTransport);
  EXPECT_EQ(LayerOfFunction("wirebench::ycsb::BuildKeyName(long)"), Layer::kHarness);
  // Every entry's prefixes put its functions in its layer.
  for (const CodecInfo* c : Codecs())
    for (std::string_view prefix : c->symbol_prefixes())
      EXPECT_EQ(LayerOfFunction(std::string(prefix) + "X::f()"), Layer::kCodec) << prefix;
  for (const RegionEntry* r : Regions())
    for (std::string_view prefix : r->symbol_prefixes())
      EXPECT_EQ(LayerOfFunction(std::string(prefix) + "X::f()"), Layer::kRegion) << prefix;
  for (const Transport* t : Transports()) {
    EXPECT_FALSE(t->symbol_prefixes().empty()) << t->name();
    for (std::string_view prefix : t->symbol_prefixes())
      EXPECT_EQ(LayerOfFunction(std::string(prefix) + "X::f()"), Layer::kRpcTransport) << prefix;
  }
  // No transport claims the core's code: the core and each transport are
  // told apart by their namespaces.
  for (const Transport* t : Transports())
    for (std::string_view prefix : t->symbol_prefixes())
      for (std::string_view core : rpc::kCoreSymbolPrefixes)
        EXPECT_FALSE(prefix.starts_with(core) || core.starts_with(prefix)) << t->name() << " " << prefix;
  // The service glue, template arguments naming a layer, and helpers have
  // no layer of their own: they take their callers'.
  EXPECT_FALSE(LayerOfFunction("wirebench::(anonymous namespace)::CodecCallHandler::Handle(int)"));
  EXPECT_FALSE(LayerOfFunction(
      "void boost::asio::detail::executor_function::complete<wirebench::rpc::X>(int)"));
  EXPECT_FALSE(LayerOfFunction("memcpy"));
}

TEST(LayerAttribution, InnermostLayerOwnsEachInstructionAndPartsSumToTotal) {
  std::istringstream in(kProfile);
  auto p = ParseCallgrindOutput(in);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const LayerInstructions l = AttributeLayers(*p, 10);
  ASSERT_TRUE(l.available);
  EXPECT_DOUBLE_EQ(l.total, 100.0);
  // codec: DecodeRequest 100 + its recursion 200 (counted once) + ReadResult
  // 100 + its half of memcpy (100 of 200 by call cost) = 500.
  EXPECT_NEAR(l.codec, 50.0, 1e-9);
  // rpc: ReadLoop 100 + Dispatch 200 + the other half of memcpy 100 = 400.
  EXPECT_NEAR(l.rpc, 40.0, 1e-9);
  // ...of which the core's ReadLoop and its memcpy, and the transport's Dispatch.
  EXPECT_NEAR(l.rpc_core, 20.0, 1e-9);
  EXPECT_NEAR(l.rpc_transport, 20.0, 1e-9);
  EXPECT_NEAR(l.region, 9.0, 1e-9);
  EXPECT_NEAR(l.other, 1.0, 1e-9);  // main: nobody calls it.
  EXPECT_NEAR(l.codec + l.rpc + l.region + l.harness + l.other, l.total, 1e-9);
}

// --- The real binary under Valgrind. ---

bool HaveValgrind() { return std::system("command -v valgrind >/dev/null 2>&1") == 0; }

// Sanitizer runtimes and Valgrind do not run together.
constexpr bool kSanitized = testing::kSanitizedBuild;

#define SKIP_WITHOUT_VALGRIND()                                                             \
  if (kSanitized) GTEST_SKIP() << "a sanitizer build does not run under Valgrind";           \
  if (!HaveValgrind())                                                                      \
  GTEST_SKIP() << "valgrind is not installed (scripts/install-deps installs it); the "      \
                  "--instructions checks need it"

using Outcome = testing::ShellOutcome;
using testing::RunShell;

Outcome RunWirebench(const std::string& args) { return RunShell(kBinary + " " + args); }

// The `[SECTION], name, value` lines of a report, as numbers.
std::map<std::string, double> Figures(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '[') continue;
    const size_t a = line.find(", "), b = line.rfind(", ");
    if (a == std::string::npos || b == a) continue;
    char* end = nullptr;
    const std::string v = line.substr(b + 2);
    const double d = std::strtod(v.c_str(), &end);
    if (end != v.c_str()) out[line.substr(0, b)] = d;
  }
  return out;
}

std::map<std::string, double> InstructionRun(const std::string& extra) {
  Outcome o = RunWirebench("run --instructions -P " + kWorkload + " -threads 8 --ops 1500 " +
                  "--instruction-warmup-ops 300 " + extra);
  EXPECT_EQ(o.exit_code, 0) << o.out;
  return Figures(o.out);
}

void ExpectWithin(double a, double b, double fraction, const std::string& what) {
  EXPECT_LE(std::fabs(a - b), fraction * std::max(std::fabs(a), std::fabs(b)))
      << what << ": " << a << " vs " << b;
}

TEST(InstructionsUnderValgrind, TwoRunsOfACellAgreeWithinOnePercentOnEachSide) {
  SKIP_WITHOUT_VALGRIND();
  auto a = InstructionRun("--codec raw");
  auto b = InstructionRun("--codec raw");
  for (const char* side : {"[CLIENT]", "[SERVER]"}) {
    const std::string key = std::string(side) + ", InstructionsPerOp";
    ASSERT_TRUE(a.count(key) && b.count(key)) << "no " << key << " line";
    EXPECT_GT(a[key], 100.0) << key;
    ExpectWithin(a[key], b[key], 0.01, key);
  }
  // The layers of each side sum to its total.
  for (auto [side, layers] :
       {std::pair{std::string("[CLIENT]"), std::vector<std::string>{"codec", "rpc", "harness", "other"}},
        std::pair{std::string("[SERVER]"), std::vector<std::string>{"codec", "rpc", "region", "other"}}}) {
    double sum = 0;
    for (const auto& l : layers) sum += a[side + ", InstructionsPerOp." + l];
    EXPECT_NEAR(sum, a[side + ", InstructionsPerOp"], 0.5) << side;
    EXPECT_GT(a[side + ", InstructionsPerOp.codec"], 0) << side;
    EXPECT_GT(a[side + ", InstructionsPerOp.rpc"], 0) << side;
  }
  EXPECT_EQ(a["[INSTRUCTIONS], MeasuredOperations"], 1500);
}

TEST(InstructionsUnderValgrind, KnownCostRegionShowsUpAsPlusNInTheRegionLayer) {
  SKIP_WITHOUT_VALGRIND();
  constexpr double kSpin = 20000;
  auto base = InstructionRun("--codec raw");
  auto spun = InstructionRun("--codec raw --spin-instructions 20000");
  const double rise = spun["[SERVER], InstructionsPerOp.region"] -
                      base["[SERVER], InstructionsPerOp.region"];
  EXPECT_NEAR(rise, kSpin, 0.02 * kSpin);
  EXPECT_NEAR(spun["[SERVER], InstructionsPerOp"] - base["[SERVER], InstructionsPerOp"], kSpin,
              0.02 * kSpin);
  // The client does not pay for it. A slower server changes how many replies
  // one client read brings (the batching), which moves the client's figure
  // by about 1%: the same cell twice is held to 1% above, this to 5%.
  ExpectWithin(base["[CLIENT], InstructionsPerOp"], spun["[CLIENT], InstructionsPerOp"], 0.05,
               "client");
}

// A guard on counts, not time: the raw codec's share of a workload A
// operation with canned reads (a 10-cell Get reply for half the operations).
// In this build type it was 766 instructions/op on the server and 617 on the
// client once a Result's row travelled once and small fields were copied
// inline (from 1,004 and 763), then 756 and 461 once its family travelled
// once too and the client read each cell with two bounds checks, then 603
// and 394 once a Result's qualifiers and values followed all its cells' fixed
// fields (the canned record's in one copy, read in one pass), then 434 and
// 390 once the null region said its canned cells are one block (no pass
// over them to find out); the budgets leave about 10% for compilers.
TEST(InstructionsUnderValgrind, TheRawCodecStaysWithinItsInstructionBudget) {
  SKIP_WITHOUT_VALGRIND();
  auto f = InstructionRun("--codec raw");
  ASSERT_TRUE(f.count("[SERVER], InstructionsPerOp.codec") && f.count("[CLIENT], InstructionsPerOp.codec"));
  EXPECT_LE(f["[SERVER], InstructionsPerOp.codec"], 480.0);
  EXPECT_LE(f["[CLIENT], InstructionsPerOp.codec"], 430.0);
}

// A guard on counts: the default one-server path stays within 1% of what it
// cost once the null cluster's fan-out was built into it (a logical client's
// routing, a server's ownership check, HBase's codecs naming a region, all
// one untaken branch on one server). In this build type (RelWithDebInfo, g++
// 12) two runs gave 1,953 and 1,956 client and 1,649 and 1,657 server
// instructions/op; then 1,890 and 1,508 once raw's Result put its cells'
// bytes after their fixed fields (read in one pass on the client) and the
// handler read the region's reply delay once; then 1,715 and 1,261 once the
// canned record was written without a pass over its cells and the calls on
// every operation's path were inlined (the driver's chain from a reply to
// the next call, the server's from a frame to the codec); then 1,690 and
// 1,233 once the reader checked the reply queue's room once per read, not
// per call, and raw tested a Result's cell types once after its cells. The
// budgets are each plus 1%.
TEST(InstructionsUnderValgrind, TheOneServerPathStaysWithinOnePercentOfItsCount) {
  SKIP_WITHOUT_VALGRIND();
  auto f = InstructionRun("--codec raw");
  ASSERT_TRUE(f.count("[SERVER], InstructionsPerOp") && f.count("[CLIENT], InstructionsPerOp"));
  EXPECT_LE(f["[CLIENT], InstructionsPerOp"], 1690.0 * 1.01);
  EXPECT_LE(f["[SERVER], InstructionsPerOp"], 1233.0 * 1.01);
}

TEST(InstructionsUnderValgrind, CompareShowsPbCostingMoreThanRawOnBothSides) {
  SKIP_WITHOUT_VALGRIND();
  const std::string out = ::testing::TempDir() + "/instructions-compare";
  std::filesystem::remove_all(out);
  Outcome o = RunWirebench("compare --instructions --codecs raw,pb --threads 8 --ops 1000 "
                  "--instruction-warmup-ops 300 --records 1000 --out " + out);
  ASSERT_EQ(o.exit_code, 0) << o.out;
  std::ifstream in(out + "/comparison.json");
  auto j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  const nlohmann::json& m = j["tables"][0]["metrics"];
  for (const char* row : {"Client instructions/op", "Server instructions/op"}) {
    ASSERT_TRUE(m.contains(row)) << row << " missing: " << m.dump();
    EXPECT_GT(m[row]["pb"]["median"].get<double>(), m[row]["raw"]["median"].get<double>()) << row;
  }
  EXPECT_TRUE(m.contains("Server instructions/op: region"));
  EXPECT_TRUE(m.contains("Client instructions/op: harness"));
  std::ifstream md(out + "/comparison.md");
  std::stringstream text;
  text << md.rdbuf();
  EXPECT_NE(text.str().find("| Total instructions/op vs pb |"), std::string::npos);
}

TEST(Instructions, MissingValgrindSaysHowToInstallIt) {
  // An empty PATH, so valgrind cannot be found (this one runs without it).
  Outcome o = RunShell("env PATH=/nonexistent " + kBinary + " run --instructions -P " + kWorkload +
                    " --ops 10");
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.out.find("install it"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("InstructionsPerOp"), std::string::npos) << o.out;
  // So few operations get a warning (said before Valgrind
  // is looked for) that the figures are inflated by the phase's fixed costs.
  EXPECT_NE(o.out.find("warning: --instructions with --ops 10: the measured phase's fixed costs"),
            std::string::npos)
      << o.out;
}

// --ops 0 (no limit) under --instructions (no time limit)
// would never end; refused before Valgrind starts.
TEST(Instructions, OpsZeroIsRefused) {
  Outcome o = RunShell(kBinary + " run --instructions -P " + kWorkload + " --ops 0");
  EXPECT_EQ(o.exit_code, 2) << o.out;
  testing::ExpectHoldsAll(
      o.out, {"--instructions needs a fixed number of operations: --ops must be 1 or more"});
  EXPECT_EQ(o.out.find("callgrind"), std::string::npos) << o.out;
}

}  // namespace
}  // namespace wirebench
