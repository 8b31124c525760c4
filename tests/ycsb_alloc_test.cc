// The YCSB hot path allocates nothing: after a ClientWorkload is built,
// choosing and building 10,000 operations (and buffering, verifying and
// acknowledging them) makes no heap allocation, for every request
// distribution and record option.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "ycsb/client_workload.h"
#include "ycsb/core_workload.h"
#include "ycsb/properties.h"
#include "common/thread_stats.h"

namespace wirebench::ycsb {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

// Runs `ops` operations the way a driver would and returns the allocations
// the calling thread made meanwhile.
uint64_t AllocationsOverOps(const Settings& settings, int ops) {
  Properties p;
  p.Set("seed", "4242");
  p.Set("recordcount", "10000");
  p.Set("operationcount", std::to_string(ops));
  for (const auto& [k, v] : settings) p.Set(k, v);
  StatusOr<std::unique_ptr<CoreWorkload>> w = CoreWorkload::Create(p);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (!w.ok()) return ~0ull;
  std::unique_ptr<ClientWorkload> c = (*w)->NewClient(3);
  const bool buffering = (*w)->config().client_buffering;
  const bool integrity = (*w)->config().data_integrity;
  const bool batch = (*w)->config().batch_ops > 0;
  uint64_t sink = 0;
  auto flush = [&] {
    for (const Action& a : c->BufferedMulti().actions)
      sink += a.kind == ActionKind::kGet ? a.get.row.size() + a.get.columns.size() : 1;
    return c->FinishFlush().ok();
  };
  const CounterTotals before = ThisThreadTotals();
  for (int i = 0; i < ops; ++i) {
    const Operation op = c->NextOperation();
    switch (op.type) {
      case OpType::kRead: {
        if (batch) {
          if (c->BufferRead(op) && !flush()) return ~0ull;
          break;
        }
        const GetRequest& g = c->BuildRead(op);
        sink += g.row.size() + g.columns.size();
        break;
      }
      case OpType::kScan:
        sink += c->BuildScan(op).number_of_rows;
        break;
      case OpType::kReadModifyWrite:
        sink += c->BuildRead(op).columns.size();
        [[fallthrough]];
      case OpType::kUpdate:
      case OpType::kInsert: {
        if (buffering) {
          if (c->BufferPut(op) && !flush()) return ~0ull;
          continue;  // Acknowledged by FinishFlush.
        }
        const MutateRequest& m =
            op.type == OpType::kInsert ? c->BuildInsert(op) : c->BuildUpdate(op);
        sink += m.mutation.cells.size();
        if (integrity) {
          Result r;
          r.cells = m.mutation.cells;
          if (!c->VerifyRead(r).ok()) return ~0ull;
        }
        break;
      }
    }
    if (!c->Acknowledge(op).ok()) return ~0ull;
  }
  const CounterTotals after = ThisThreadTotals();
  EXPECT_GT(sink, 0u);
  return after.allocs - before.allocs;
}

TEST(YcsbAllocations, ZeroPerOperationInSteadyState) {
  ASSERT_TRUE(AllocationCountingActive() || ThisThreadTotals().allocs == 0);
  // The hook counts: a deliberate allocation shows up.
  const uint64_t probe_before = ThisThreadTotals().allocs;
  auto* probe = new std::string(100, 'x');
  delete probe;
  ASSERT_GT(ThisThreadTotals().allocs, probe_before);

  const std::vector<Settings> cases = {
      {{"requestdistribution", "zipfian"}, {"readproportion", "0.5"}, {"updateproportion", "0.5"}},
      {{"requestdistribution", "latest"},
       {"readproportion", "0.95"},
       {"updateproportion", "0"},
       {"insertproportion", "0.05"}},
      {{"requestdistribution", "zipfian"},
       {"readproportion", "0"},
       {"updateproportion", "0"},
       {"scanproportion", "0.95"},
       {"insertproportion", "0.05"},
       {"maxscanlength", "100"}},
      {{"requestdistribution", "uniform"},
       {"readproportion", "0.5"},
       {"updateproportion", "0"},
       {"readmodifywriteproportion", "0.5"},
       {"readallfields", "false"}},
      {{"requestdistribution", "hotspot"},
       {"writeallfields", "true"},
       {"fieldlengthdistribution", "uniform"}},
      {{"requestdistribution", "exponential"},
       {"fieldlengthdistribution", "zipfian"},
       {"insertproportion", "0.1"}},
      {{"requestdistribution", "sequential"}, {"insertorder", "ordered"}, {"zeropadding", "12"}},
      {{"dataintegrity", "true"},
       {"updateproportion", "0.3"},
       {"insertproportion", "0.2"},
       {"readproportion", "0.5"}},
      {{"clientbuffering", "true"},
       {"readproportion", "0.2"},
       {"updateproportion", "0.4"},
       {"insertproportion", "0.4"},
       {"writebuffersize", "65536"}},
      {{"wirebench.batch", "100"}, {"readproportion", "0.5"}, {"updateproportion", "0.5"}},
      {{"wirebench.batch", "10"},
       {"dataintegrity", "true"},
       {"readproportion", "0.6"},
       {"insertproportion", "0.4"}},
  };
  for (const Settings& s : cases) {
    std::string name;
    for (const auto& [k, v] : s) name += k + "=" + v + " ";
    SCOPED_TRACE(name);
    EXPECT_EQ(AllocationsOverOps(s, 10000), 0u);
  }
}

}  // namespace
}  // namespace wirebench::ycsb
