// What the YCSB binding sends, pinned byte for byte: for fixed seeds, the
// first 10,000 operations of several workloads are planned by YcsbWorkload,
// encoded with the raw codec (what goes on the wire, call id 0), and digested.
// The digests in tests/golden/ycsb_stream_digests.txt were recorded from the
// generator before any optimisation of it, so a faster generator must still
// produce the same keys, field selection and values for the same seed.
// WIREBENCH_UPDATE_GOLDEN=1 rewrites the file (only when the change to what
// is sent is intended).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "bench/loadgen/ycsb_stream.h"
#include "ycsb/core_workload.h"
#include "ycsb/properties.h"
#include "codecs/codec.h"

namespace wirebench {
namespace {

const std::string kGolden = std::string(WIREBENCH_SOURCE_DIR) + "/tests/golden/ycsb_stream_digests.txt";
constexpr int kOps = 10000;

struct Case {
  std::string name;
  std::string workload;  // File under workloads/.
  YcsbPhase phase;
  std::vector<std::string> props;
  int client_index;
  int client_count;
};

std::vector<Case> Cases() {
  return {
      {"a-run-c0of1", "workloada", YcsbPhase::kRun, {"seed=42"}, 0, 1},
      {"a-run-c3of4", "workloada", YcsbPhase::kRun, {"seed=7"}, 3, 4},
      {"a-load-c1of2", "workloada", YcsbPhase::kLoad, {"seed=42", "recordcount=30000"}, 1, 2},
      {"b-run-c0of1", "workloadb", YcsbPhase::kRun, {"seed=42"}, 0, 1},
      {"d-run-c0of1", "workloadd", YcsbPhase::kRun, {"seed=42"}, 0, 1},
      {"e-run-c0of1", "workloade", YcsbPhase::kRun, {"seed=42"}, 0, 1},
      {"f-run-c0of1", "workloadf", YcsbPhase::kRun, {"seed=42"}, 0, 1},
      {"a-run-readallfields-false", "workloada", YcsbPhase::kRun,
       {"seed=3", "readallfields=false", "writeallfields=true"}, 0, 1},
      {"a-run-buffered", "workloada", YcsbPhase::kRun,
       {"seed=5", "clientbuffering=true"}, 0, 1},
  };
}

void Fnv(uint64_t* h, const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    *h ^= p[i];
    *h *= 1099511628211ull;
  }
}

// Digest of the first kOps operations: op type, calls and their raw-encoded
// requests, in order.
std::string Digest(const Case& c) {
  ycsb::Properties props;
  std::vector<std::string> files = {std::string(WIREBENCH_SOURCE_DIR) + "/workloads/" + c.workload};
  Status s = props.Load(files, c.props);
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto core = ycsb::CoreWorkload::Create(props);
  EXPECT_TRUE(core.ok()) << core.status().ToString();
  if (!core.ok()) return "";
  YcsbWorkload workload(core->get(), c.phase);
  auto stream = workload.NewStream(c.client_index, c.client_count);
  auto codec = NewCodec("raw");
  EXPECT_TRUE(codec.ok());
  uint64_t h = 14695981039346656037ull;
  uint64_t bytes = 0;
  int ops = 0;
  PlannedOp op;
  ByteBuffer buf;
  for (; ops < kOps && stream->Next(&op); ++ops) {
    const uint8_t head[2] = {uint8_t(op.type), uint8_t(op.ncalls)};
    Fnv(&h, head, sizeof(head));
    for (int k = 0; k < op.ncalls; ++k) {
      const PlannedCall& call = op.calls[k];
      buf.Clear();
      Status e;
      switch (call.method) {
        case Method::kMutate: e = (*codec)->EncodeRequest(0, call.mutate, &buf); break;
        case Method::kGet: e = (*codec)->EncodeRequest(0, call.get, &buf); break;
        case Method::kScan: e = (*codec)->EncodeRequest(0, call.scan, &buf); break;
        case Method::kMulti: e = (*codec)->EncodeRequest(0, call.multi, &buf); break;
        default: ADD_FAILURE() << "unexpected method " << int(call.method);
      }
      EXPECT_TRUE(e.ok()) << e.ToString();
      const uint8_t m = uint8_t(call.method);
      Fnv(&h, &m, 1);
      Fnv(&h, buf.data(), buf.size());
      bytes += buf.size();
    }
    stream->Finish(op, OpResult::kOk);
  }
  char out[96];
  std::snprintf(out, sizeof(out), "%016llx %d ops %llu bytes", static_cast<unsigned long long>(h),
                ops, static_cast<unsigned long long>(bytes));
  return out;
}

std::map<std::string, std::string> ReadGolden() {
  std::map<std::string, std::string> m;
  std::ifstream in(kGolden);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.find(' ');
    m[line.substr(0, sp)] = line.substr(sp + 1);
  }
  return m;
}

TEST(YcsbStreamGolden, FirstTenThousandOperationsAreUnchanged) {
  std::ostringstream now;
  now << "# name digest ops bytes: first " << kOps
      << " operations, raw-encoded (tests/ycsb_stream_golden_test.cc)\n";
  std::map<std::string, std::string> digests;
  for (const Case& c : Cases()) {
    digests[c.name] = Digest(c);
    now << c.name << " " << digests[c.name] << "\n";
  }
  if (std::getenv("WIREBENCH_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(kGolden) << now.str();
    GTEST_SKIP() << "rewrote " << kGolden;
  }
  const auto golden = ReadGolden();
  ASSERT_FALSE(golden.empty()) << "missing " << kGolden;
  for (const Case& c : Cases()) {
    auto it = golden.find(c.name);
    ASSERT_NE(it, golden.end()) << c.name << " not in " << kGolden;
    EXPECT_EQ(digests[c.name], it->second) << c.name << ": what the YCSB binding sends changed";
  }
}

}  // namespace
}  // namespace wirebench
