// Codec microbenchmarks: encode, decode and round trip of every registered
// codec on three messages (a 1 KB put, a canned 1 KB Get response, a Multi of
// 100 puts), against a 1 KiB memcpy baseline.
//
// Benchmarks are registered at startup from Codecs(), named
// BM_Codec_<Op>/<codec>/<message>, so a new codec is measured without
// touching this file. Counters per operation: allocs/op, alloc_bytes/op,
// copied/op (payload bytes the codec copied, encode + decode), wire_bytes
// (payload size), and x_memcpy (the loop's CPU time per op over the CPU time of one
// 1 KiB memcpy: BM_Memcpy_1KB's fastest run when it ran first, as it does unless
// filtered out; else a measurement made in main()). Bytes processed are the logical
// content bytes (row + family + qualifier + value over all cells), the same
// for every codec.
#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "codecs/codec.h"
#include "common/thread_stats.h"

namespace wirebench {
namespace {

constexpr size_t kFrameHeaderSize = 12;  // Where the RPC layer puts a payload.
constexpr size_t kMemcpySize = 1024;

double g_memcpy_seconds = 0;  // CPU seconds of one 1 KiB memcpy; set in main().
// The same from BM_Memcpy_1KB, its fastest repetition; 0 until it has run.
// Preferred: it is the figure a reader of the report divides by (the one in
// main() runs before the CPU has settled and read up to 25% slower).
double g_memcpy_bench_seconds = 0;

// ---- Messages ----

// Owns the bytes and arrays the benchmark messages point at.
struct Storage {
  std::deque<std::string> strings;
  std::deque<std::vector<Cell>> cells;
  std::deque<std::vector<Action>> actions;
  ByteView Keep(std::string s) {
    strings.push_back(std::move(s));
    return ByteView(strings.back());
  }
};

std::string Key(uint64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "user%019llu", static_cast<unsigned long long>(n));
  return buf;
}

// Ten fields field0..field9 of 100 bytes, family "family": the YCSB record.
std::span<const Cell> Record(Storage* st, ByteView row, uint64_t timestamp) {
  ByteView family = st->Keep("family");
  std::vector<Cell> cells;
  for (int i = 0; i < 10; ++i) {
    std::string value(100, '\0');
    for (size_t j = 0; j < value.size(); ++j) value[j] = char('a' + (i * 7 + j) % 26);
    cells.push_back(Cell{row, family, st->Keep("field" + std::to_string(i)), timestamp,
                         CellType::kPut, st->Keep(std::move(value))});
  }
  st->cells.push_back(std::move(cells));
  return st->cells.back();
}

Mutation Put(Storage* st, uint64_t key) {
  ByteView row = st->Keep(Key(key));
  return Mutation{row, MutationType::kPut, 0, Record(st, row, 0)};
}

uint64_t ContentBytes(std::span<const Cell> cells) {
  uint64_t n = 0;
  for (const Cell& c : cells) n += c.row.size() + c.family.size() + c.qualifier.size() + c.value.size();
  return n;
}

struct Messages {
  Storage storage;
  MutateRequest put1k;
  GetResponse get1k;
  MultiRequest multi100;
};

const Messages& TheMessages() {
  static const Messages* m = [] {
    auto* out = new Messages();
    out->put1k.mutation = Put(&out->storage, 1234567890123ull);
    ByteView row = out->storage.Keep(Key(42));
    out->get1k.result = Result{Record(&out->storage, row, 1700000000123ull), true};
    std::vector<Action> actions;
    for (uint32_t i = 0; i < 100; ++i)
      actions.push_back(Action{i, ActionKind::kMutation, Put(&out->storage, 1000 + i), {}});
    out->storage.actions.push_back(std::move(actions));
    out->multi100.actions = out->storage.actions.back();
    return out;
  }();
  return *m;
}

uint64_t ContentBytes(const MutateRequest& m) { return ContentBytes(m.mutation.cells); }
uint64_t ContentBytes(const GetResponse& r) { return ContentBytes(r.result.cells); }
uint64_t ContentBytes(const MultiRequest& m) {
  uint64_t n = 0;
  for (const Action& a : m.actions) n += ContentBytes(a.mutation.cells);
  return n;
}

// Encodes after a frame header's worth of bytes, as the RPC layer does.
template <typename M>
Status EncodeFramed(Codec& c, const M& m, ByteBuffer* out) {
  out->Clear();
  std::memset(out->Extend(kFrameHeaderSize), 0, kFrameHeaderSize);
  return EncodeMessage(c, 1, m, out);
}

template <typename M>
void Touch(const M& m) {
  if constexpr (std::is_same_v<M, MutateRequest>) {
    benchmark::DoNotOptimize(m.mutation.cells.data());
  } else if constexpr (std::is_same_v<M, GetResponse>) {
    benchmark::DoNotOptimize(m.result.cells.data());
  } else {
    benchmark::DoNotOptimize(m.actions.data());
  }
  benchmark::ClobberMemory();
}

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// The loop's CPU time per iteration over one 1 KiB memcpy's.
double TimesMemcpy(const benchmark::State& state, double cpu_seconds) {
  const double base = g_memcpy_bench_seconds > 0 ? g_memcpy_bench_seconds : g_memcpy_seconds;
  if (state.iterations() == 0 || base <= 0) return 0;
  return cpu_seconds / double(state.iterations()) / base;
}

void SetCounters(benchmark::State& state, const CounterTotals& before, double cpu_seconds,
                 uint64_t wire_bytes, uint64_t content_bytes) {
  CounterTotals d = ThisThreadTotals() - before;
  using C = benchmark::Counter;
  state.counters["allocs/op"] = C(double(d.allocs), C::kAvgIterations);
  state.counters["alloc_bytes/op"] = C(double(d.alloc_bytes), C::kAvgIterations);
  state.counters["copied/op"] = C(double(d.encode_copied + d.decode_copied), C::kAvgIterations);
  state.counters["wire_bytes"] = C(double(wire_bytes));
  state.counters["x_memcpy"] = C(TimesMemcpy(state, cpu_seconds));
  state.SetBytesProcessed(int64_t(state.iterations() * content_bytes));
}

enum class Op { kEncode, kDecode, kRoundTrip };

template <typename M>
void RunCodec(benchmark::State& state, const CodecInfo* info, Op op, const M* msg) {
  std::unique_ptr<Codec> encoder = info->factory();
  std::unique_ptr<Codec> decoder = info->factory();
  ByteBuffer out(64 << 10);
  if (Status s = EncodeFramed(*encoder, *msg, &out); !s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  const uint64_t wire = out.size() - kFrameHeaderSize;
  // The receive side: the frame as it lands in a connection's buffer.
  ByteBuffer received(out.size());
  received.Append(out.view());
  const ByteView payload(received.data() + kFrameHeaderSize, wire);
  M decoded;
  if (Status s = DecodeMessage(*decoder, payload, &decoded); !s.ok()) {  // Warm-up, and a check.
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  bool failed = false;
  const CounterTotals before = ThisThreadTotals();
  const double cpu_start = ThreadCpuSeconds();
  for (auto _ : state) {
    if (op != Op::kDecode) {
      failed |= !EncodeFramed(*encoder, *msg, &out).ok();
      benchmark::DoNotOptimize(out.data());
    }
    if (op == Op::kDecode) failed |= !DecodeMessage(*decoder, payload, &decoded).ok();
    if (op == Op::kRoundTrip)
      failed |=
          !DecodeMessage(*decoder, ByteView(out.data() + kFrameHeaderSize, wire), &decoded).ok();
    if (op != Op::kEncode) Touch(decoded);
  }
  const double cpu_seconds = ThreadCpuSeconds() - cpu_start;
  if (failed) state.SkipWithError("an encode or decode failed inside the timed loop");
  SetCounters(state, before, cpu_seconds, wire, ContentBytes(*msg));
}

void BM_Memcpy_1KB(benchmark::State& state) {
  std::vector<uint8_t> src(kMemcpySize, 0x5A), dst(kMemcpySize);
  const double cpu_start = ThreadCpuSeconds();
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kMemcpySize);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  const double seconds = ThreadCpuSeconds() - cpu_start;
  if (state.iterations() > 0) {
    const double per_copy = seconds / double(state.iterations());
    if (g_memcpy_bench_seconds <= 0 || per_copy < g_memcpy_bench_seconds)
      g_memcpy_bench_seconds = per_copy;
  }
  state.counters["x_memcpy"] = TimesMemcpy(state, seconds);
  state.SetBytesProcessed(int64_t(state.iterations() * kMemcpySize));
}

// CPU seconds of one 1 KiB memcpy: the best of 7 runs of 2^20 copies.
double MeasureMemcpySeconds() {
  std::vector<uint8_t> src(kMemcpySize, 0x5A), dst(kMemcpySize);
  constexpr int kCopies = 1 << 20;
  double best = 1e9;
  for (int run = 0; run < 7; ++run) {
    const double t0 = ThreadCpuSeconds();
    for (int i = 0; i < kCopies; ++i) {
      std::memcpy(dst.data(), src.data(), kMemcpySize);
      benchmark::DoNotOptimize(dst.data());
      benchmark::ClobberMemory();
    }
    best = std::min(best, (ThreadCpuSeconds() - t0) / kCopies);
  }
  return best;
}

template <typename M>
void RegisterFor(const CodecInfo& info, const char* msg_name, const M* msg) {
  static constexpr struct {
    const char* name;
    Op op;
  } kOps[] = {{"Encode", Op::kEncode}, {"Decode", Op::kDecode}, {"RoundTrip", Op::kRoundTrip}};
  for (const auto& o : kOps) {
    std::string name =
        std::string("BM_Codec_") + o.name + "/" + std::string(info.name()) + "/" + msg_name;
    const CodecInfo* ip = &info;
    const Op op = o.op;
    benchmark::RegisterBenchmark(name.c_str(), [ip, op, msg](benchmark::State& state) {
      RunCodec(state, ip, op, msg);
    });
  }
}

void RegisterAll() {
  benchmark::RegisterBenchmark("BM_Memcpy_1KB", BM_Memcpy_1KB);
  const Messages& m = TheMessages();
  for (const CodecInfo* entry : Codecs()) {
    const CodecInfo& info = *entry;
    RegisterFor(info, "put1k", &m.put1k);
    RegisterFor(info, "get1k", &m.get1k);
    RegisterFor(info, "multi100", &m.multi100);
  }
}

}  // namespace
}  // namespace wirebench

int main(int argc, char** argv) {
  using namespace wirebench;
  g_memcpy_seconds = MeasureMemcpySeconds();
  std::printf("memcpy 1 KiB baseline: %.2f ns (CPU time, best of 7 x 2^20 copies)\n",
              g_memcpy_seconds * 1e9);
  RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("memcpy_1k_ns", std::to_string(g_memcpy_seconds * 1e9));
  benchmark::AddCustomContext("codecs", CodecNames());
  benchmark::AddCustomContext("allocation_counting",
                              AllocationCountingActive() ? "active" : "unavailable");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
