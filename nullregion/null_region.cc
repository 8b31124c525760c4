#include "nullregion/null_region.h"

#include <time.h>

#include <array>
#include <atomic>
#include <nlohmann/json.hpp>

#include "common/thread_stats.h"
#include <vector>

namespace wirebench {

namespace {

// Counters striped per thread (cache-line padded) so I/O and handler threads
// do not contend on one line; summed when read.
struct alignas(64) Stripe {
  std::atomic<uint64_t> mutations{0}, deletes{0}, gets{0}, scans{0}, multis{0};
  std::atomic<uint64_t> cells{0}, value_bytes{0};
};
constexpr int kStripes = 64;
std::atomic<int> g_next_stripe{0};
thread_local int t_stripe = -1;

class NullRegion final : public Region {
 public:
  explicit NullRegion(const NullRegionOptions& o) : options_(o) {
    if (o.reads == NullRegionOptions::Reads::kCanned) {
      row_ = "user0000000000000000000";
      // The cells' qualifiers and values in one block, each value after its
      // qualifier, as a row's cells sit in an HBase block or memstore chunk:
      // a codec may copy such a run at once (raw does).
      const std::string value(size_t(o.canned_field_length), 'v');
      std::vector<std::pair<size_t, size_t>> at;  // Each cell's qualifier offset and size.
      for (int i = 0; i < o.canned_fields; ++i) {
        const std::string qualifier = o.canned_field_prefix + std::to_string(i);
        at.emplace_back(block_.size(), qualifier.size());
        block_ += qualifier;
        block_ += value;
      }
      for (const auto& [offset, size] : at) {
        Cell c;
        c.row = ByteView(row_);
        c.family = ByteView(options_.canned_family);
        const auto* q = reinterpret_cast<const uint8_t*>(block_.data()) + offset;
        c.qualifier = ByteView(q, size);
        c.timestamp = 1;
        c.type = CellType::kPut;
        c.value = ByteView(q + size, value.size());
        canned_.push_back(c);
      }
      if (!canned_.empty())
        run_ = CellRun{ByteView(reinterpret_cast<const uint8_t*>(block_.data()), block_.size()),
                       canned_.size()};
    }
  }

  std::string_view name() const override { return "null"; }

  Status Mutate(const Mutation& m, MutateResponse* resp) override {
    Stripe& s = MyStripe();
    Bump(m.type == MutationType::kDelete ? s.deletes : s.mutations, 1);
    uint64_t bytes = 0;
    for (const Cell& c : m.cells) bytes += c.value.size();
    Bump(s.cells, m.cells.size());
    Bump(s.value_bytes, bytes);
    if (options_.spin_us) SpinCpu(options_.spin_us);
    if (options_.spin_instructions) SpinInstructions(options_.spin_instructions);
    resp->processed = true;
    return Status::Ok();
  }

  Status Get(const GetRequest& req, RegionScratch*, GetResponse* resp) override {
    Bump(MyStripe().gets, 1);
    if (options_.spin_us) SpinCpu(options_.spin_us);
    if (options_.spin_instructions) SpinInstructions(options_.spin_instructions);
    if (canned_.empty()) {
      resp->result = Result{};
    } else {
      resp->result.cells = std::span<const Cell>(canned_.data(), canned_.size());
      resp->result.exists = true;
      resp->result.run = run_;
    }
    return Status::Ok();
  }

  Status Scan(const ScanRequest&, RegionScratch*, ScanResponse* resp) override {
    Bump(MyStripe().scans, 1);
    if (options_.spin_us) SpinCpu(options_.spin_us);
    if (options_.spin_instructions) SpinInstructions(options_.spin_instructions);
    resp->results = {};
    resp->more_results = false;
    return Status::Ok();
  }

  Status Multi(const MultiRequest& req, RegionScratch* scratch, MultiResponse* resp) override {
    Bump(MyStripe().multis, 1);
    return Region::Multi(req, scratch, resp);
  }

  uint32_t reply_delay_us() const override { return options_.delay_us; }

  void AppendStats(nlohmann::json* out) const override {
    uint64_t mutations = 0, deletes = 0, gets = 0, scans = 0, multis = 0, cells = 0, bytes = 0;
    for (const Stripe& s : stripes_) {
      mutations += s.mutations.load(std::memory_order_relaxed);
      deletes += s.deletes.load(std::memory_order_relaxed);
      gets += s.gets.load(std::memory_order_relaxed);
      scans += s.scans.load(std::memory_order_relaxed);
      multis += s.multis.load(std::memory_order_relaxed);
      cells += s.cells.load(std::memory_order_relaxed);
      bytes += s.value_bytes.load(std::memory_order_relaxed);
    }
    (*out)["region"] = {{"name", "null"},
                        {"reads", canned_.empty() ? "empty" : "canned"},
                        {"spin_us", options_.spin_us},
                        {"delay_us", options_.delay_us},
                        {"spin_instructions", options_.spin_instructions},
                        {"puts", mutations},
                        {"deletes", deletes},
                        {"gets", gets},
                        {"scans", scans},
                        {"multis", multis},
                        {"cells_discarded", cells},
                        {"value_bytes_discarded", bytes}};
  }

 private:
  Stripe& MyStripe() {
    if (t_stripe < 0) t_stripe = g_next_stripe.fetch_add(1, std::memory_order_relaxed) % kStripes;
    return stripes_[size_t(t_stripe)];
  }

  NullRegionOptions options_;
  std::string row_;
  std::string block_;  // The canned cells' qualifiers and values.
  std::vector<Cell> canned_;
  CellRun run_;  // What canned_ is: block_, in cell order, one row and family.
  std::array<Stripe, kStripes> stripes_;
};

}  // namespace

std::unique_ptr<Region> NewNullRegion(const NullRegionOptions& options) {
  return std::make_unique<NullRegion>(options);
}

StatusOr<NullRegionOptions::Reads> ParseNullReads(std::string_view s) {
  if (s == "empty") return NullRegionOptions::Reads::kEmpty;
  if (s == "canned") return NullRegionOptions::Reads::kCanned;
  return Status::InvalidArgument("--null-reads must be 'empty' or 'canned', got '" +
                                 std::string(s) + "'");
}

void SpinCpu(uint32_t us) {
  timespec start;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  const int64_t target = int64_t(us) * 1000;
  for (;;) {
    timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    int64_t spent = (now.tv_sec - start.tv_sec) * 1000000000LL + (now.tv_nsec - start.tv_nsec);
    if (spent >= target) return;
  }
}

void SpinInstructions(uint32_t n) {
  uint64_t loops = n / 2;
  if (loops == 0) return;
#if defined(__x86_64__)
  asm volatile("1:\n\tsub $1, %0\n\tjnz 1b" : "+r"(loops) : : "cc");
#else
  for (volatile uint64_t i = 0; i < loops; i = i + 1) {
  }
#endif
}

}  // namespace wirebench
