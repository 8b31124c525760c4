// Recording and encoding cost of the HdrHistogram-compatible Histogram:
// BM_Histogram_Record is the per-value cost the latency path pays;
// BM_Histogram_EncodeCompressed / _Decode are the per-interval costs of
// writing and merging .hlog lines.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "hdr/histogram.h"
#include "hdr/histogram_encoding.h"

namespace wirebench::hdr {
namespace {

constexpr uint64_t kSeed = 20240601;

// Log-uniform latencies from 1 us to 100 ms, pre-generated so the loop
// measures Record() and nothing else.
std::vector<int64_t> MakeLatencies(size_t n) {
  std::mt19937_64 rng(kSeed);
  std::uniform_real_distribution<double> exponent(3.0, 8.0);
  std::vector<int64_t> v(n);
  for (auto& x : v) x = static_cast<int64_t>(std::pow(10.0, exponent(rng)));
  return v;
}

void BM_Histogram_Record(benchmark::State& state) {
  const std::vector<int64_t> values = MakeLatencies(1 << 16);
  Histogram h;
  size_t i = 0;
  for (auto _ : state) {
    h.Record(values[i]);
    i = (i + 1) & (values.size() - 1);
  }
  benchmark::DoNotOptimize(h.total_count());
  state.SetItemsProcessed(state.iterations());
  state.counters["seed"] = static_cast<double>(kSeed);
}
BENCHMARK(BM_Histogram_Record);

Histogram Filled() {
  Histogram h;
  for (int64_t v : MakeLatencies(1 << 16)) h.Record(v);
  return h;
}

void BM_Histogram_EncodeCompressed(benchmark::State& state) {
  const Histogram h = Filled();
  size_t bytes = 0;
  for (auto _ : state) {
    std::vector<uint8_t> out = EncodeCompressed(h);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["compressed_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Histogram_EncodeCompressed);

void BM_Histogram_DecodeCompressed(benchmark::State& state) {
  const std::vector<uint8_t> encoded = EncodeCompressed(Filled());
  for (auto _ : state) {
    StatusOr<Histogram> h = DecodeCompressed(ByteView(encoded.data(), encoded.size()));
    if (!h.ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(h->total_count());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * encoded.size()));
}
BENCHMARK(BM_Histogram_DecodeCompressed);

}  // namespace
}  // namespace wirebench::hdr

BENCHMARK_MAIN();
