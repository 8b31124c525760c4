// Tests for ycsb/core_workload.h and client_workload.h: load and run
// phase operation choice (mix, key bounds, reproducibility) and the request
// views built for each operation.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ycsb/client_workload.h"
#include "ycsb/core_workload.h"
#include "ycsb/fnv.h"
#include "ycsb/properties.h"
#include "ycsb/value_pool.h"

namespace wirebench::ycsb {
namespace {

constexpr uint64_t kSeed = 77;

std::unique_ptr<CoreWorkload> Make(std::vector<std::pair<std::string, std::string>> kv) {
  Properties p;
  p.Set("seed", std::to_string(kSeed));
  for (auto& [k, v] : kv) p.Set(k, v);
  EXPECT_TRUE(p.CheckAllKnown().ok());
  StatusOr<std::unique_ptr<CoreWorkload>> w = CoreWorkload::Create(p);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  return w.ok() ? std::move(w).value() : nullptr;
}

// wirebench.batch (`--batch B`): a flush every B puts, counted, whatever
// writebuffersize says (here a buffer of one byte, which alone would flush
// every put) and whatever the record's size.
TEST(YcsbWorkload, ABatchFlushesEveryBPutsWhateverTheBufferSize) {
  for (const char* length : {"100", "4000"}) {
    SCOPED_TRACE(length);
    auto w = Make({{"recordcount", "1000"}, {"wirebench.batch", "7"}, {"writebuffersize", "1"},
                   {"fieldlength", length}, {"updateproportion", "1"}, {"readproportion", "0"}});
    ASSERT_NE(w, nullptr);
    EXPECT_TRUE(w->config().client_buffering);
    auto c = w->NewClient(0);
    for (int flush = 0; flush < 5; ++flush) {
      for (int i = 1; i < 7; ++i) ASSERT_FALSE(c->BufferPut(c->NextOperation())) << i;
      ASSERT_TRUE(c->BufferPut(c->NextOperation()));
      EXPECT_EQ(c->BufferedMulti().actions.size(), 7u);
      ASSERT_TRUE(c->FinishFlush().ok());
    }
  }
}

// Reads share the batch with puts, in the order they were drawn: each get
// names its own row and the columns its read would, and stays valid until
// the flush.
TEST(YcsbWorkload, ABatchCarriesReadsAndPutsInDrawOrder) {
  auto w = Make({{"recordcount", "1000"}, {"wirebench.batch", "6"}, {"readproportion", "0.5"},
                 {"updateproportion", "0.5"}, {"readallfields", "false"}});
  ASSERT_NE(w, nullptr);
  auto c = w->NewClient(0);
  std::vector<std::string> rows;
  std::vector<ActionKind> kinds;
  bool full = false;
  while (!full) {
    const Operation op = c->NextOperation();
    if (op.type == OpType::kRead) {
      full = c->BufferRead(op);
      kinds.push_back(ActionKind::kGet);
    } else {
      full = c->BufferPut(op);
      kinds.push_back(ActionKind::kMutation);
    }
    std::string key(w->max_key_length(), '\0');
    rows.push_back(w->KeyName(op.keynum, key.data()).ToString());
    EXPECT_EQ(c->buffered_ops(), rows.size());
  }
  ASSERT_EQ(rows.size(), 6u);
  const MultiRequest& m = c->BufferedMulti();
  ASSERT_EQ(m.actions.size(), 6u);
  int gets = 0;
  for (size_t i = 0; i < m.actions.size(); ++i) {
    const Action& a = m.actions[i];
    EXPECT_EQ(a.index, i);
    ASSERT_EQ(a.kind, kinds[i]) << i;
    if (a.kind == ActionKind::kGet) {
      ++gets;
      EXPECT_EQ(a.get.row.ToString(), rows[i]);
      ASSERT_EQ(a.get.columns.size(), 1u);  // readallfields=false: one field.
      EXPECT_EQ(a.get.columns[0].family.ToString(), w->config().column_family);
    } else {
      EXPECT_EQ(a.mutation.row.ToString(), rows[i]);
    }
  }
  EXPECT_GT(gets, 0);
  ASSERT_TRUE(c->FinishFlush().ok());
  EXPECT_EQ(c->buffered_ops(), 0u);
}

TEST(YcsbWorkload, LoadPhaseInsertsEachKeyOnceInOrder) {
  auto w = Make({{"recordcount", "1000"}, {"insertstart", "100"}, {"insertcount", "500"}});
  ASSERT_NE(w, nullptr);
  auto a = w->NewClient(0), b = w->NewClient(1);
  std::vector<int64_t> keys;
  Operation op;
  for (;;) {
    const bool got_a = a->NextLoadOperation(&op);
    if (got_a) {
      EXPECT_EQ(op.type, OpType::kInsert);
      EXPECT_FALSE(op.needs_ack);
      keys.push_back(op.keynum);
    }
    const bool got_b = b->NextLoadOperation(&op);
    if (got_b) keys.push_back(op.keynum);
    if (!got_a && !got_b) break;
  }
  ASSERT_EQ(keys.size(), 500u);
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(keys[i], 100 + int64_t(i));
}

TEST(YcsbWorkload, OperationMixMatchesProportions) {
  SCOPED_TRACE(kSeed);
  auto w = Make({{"recordcount", "10000"},
                 {"operationcount", "100000"},
                 {"readproportion", "0.4"},
                 {"updateproportion", "0.2"},
                 {"insertproportion", "0.1"},
                 {"scanproportion", "0.2"},
                 {"readmodifywriteproportion", "0.1"},
                 {"requestdistribution", "zipfian"}});
  ASSERT_NE(w, nullptr);
  auto c = w->NewClient(0);
  int counts[kNumOpTypes] = {};
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const Operation op = c->NextOperation();
    ++counts[int(op.type)];
    if (op.type == OpType::kScan) {
      ASSERT_GE(op.scan_length, 1u);
      ASSERT_LE(op.scan_length, 1000u);
    }
    ASSERT_TRUE(c->Acknowledge(op).ok());
  }
  const double want[kNumOpTypes] = {0.4, 0.2, 0.1, 0.2, 0.1};
  for (int t = 0; t < kNumOpTypes; ++t) {
    EXPECT_NEAR(counts[t] / double(n), want[t], 0.01) << OpTypeName(OpType(t));
  }
}

TEST(YcsbWorkload, ReadsNeverPassTheLastAcknowledgedInsert) {
  SCOPED_TRACE(kSeed);
  for (const char* dist : {"latest", "zipfian", "uniform", "exponential", "hotspot"}) {
    SCOPED_TRACE(dist);
    auto w = Make({{"recordcount", "200"},
                   {"operationcount", "20000"},
                   {"readproportion", "0.5"},
                   {"updateproportion", "0"},
                   {"insertproportion", "0.5"},
                   {"requestdistribution", dist}});
    ASSERT_NE(w, nullptr);
    auto c = w->NewClient(0);
    std::vector<Operation> pending;  // Inserts in flight, acknowledged late.
    int64_t max_read = -1;
    for (int i = 0; i < 20000; ++i) {
      const Operation op = c->NextOperation();
      if (op.type == OpType::kInsert) {
        ASSERT_TRUE(op.needs_ack);
        pending.push_back(op);
        if (pending.size() == 8) {
          // Acknowledge out of order: newest first.
          for (auto it = pending.rbegin(); it != pending.rend(); ++it) {
            ASSERT_TRUE(c->Acknowledge(*it).ok());
          }
          pending.clear();
        }
      } else {
        ASSERT_LE(op.keynum, w->LastAcknowledgedInsert());
        ASSERT_GE(op.keynum, 0);
        max_read = std::max(max_read, op.keynum);
      }
    }
    // Distributions that follow the inserts reached keys inserted in the run.
    if (std::string(dist) != "uniform" && std::string(dist) != "hotspot") {
      EXPECT_GT(max_read, 199);
    } else {
      EXPECT_LE(max_read, 199);
    }
  }
}

TEST(YcsbWorkload, LatestAcrossThreadsStaysBelowAcknowledged) {
  SCOPED_TRACE(kSeed);
  // Workload D's mix on four threads, two clients each: the shared zeta sum
  // and the acknowledged counter are exercised concurrently.
  auto w = Make({{"recordcount", "1000"},
                 {"operationcount", "40000"},
                 {"readproportion", "0.9"},
                 {"updateproportion", "0"},
                 {"insertproportion", "0.1"},
                 {"requestdistribution", "latest"}});
  ASSERT_NE(w, nullptr);
  constexpr int kThreads = 4, kOps = 5000;
  std::atomic<int> bad{0}, inserts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto c1 = w->NewClient(uint32_t(2 * t)), c2 = w->NewClient(uint32_t(2 * t + 1));
      for (int i = 0; i < kOps; ++i) {
        ClientWorkload& c = (i % 2) ? *c1 : *c2;
        const Operation op = c.NextOperation();
        if (op.type == OpType::kInsert) {
          inserts.fetch_add(1);
          if (!c.Acknowledge(op).ok()) bad.fetch_add(1);
        } else if (op.keynum > w->LastAcknowledgedInsert() || op.keynum < 0) {
          bad.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(inserts.load(), 0);
  EXPECT_EQ(w->LastAcknowledgedInsert(), 999 + inserts.load());
}

TEST(YcsbWorkload, SameSeedSameOperations) {
  auto w1 = Make({{"recordcount", "1000"}, {"requestdistribution", "zipfian"}});
  auto w2 = Make({{"recordcount", "1000"}, {"requestdistribution", "zipfian"}});
  auto a = w1->NewClient(5), b = w2->NewClient(5), other = w1->NewClient(6);
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    const Operation x = a->NextOperation(), y = b->NextOperation(), z = other->NextOperation();
    ASSERT_EQ(x.keynum, y.keynum);
    ASSERT_EQ(int(x.type), int(y.type));
    differ += x.keynum != z.keynum;
  }
  EXPECT_GT(differ, 500);
}

// The key table holds the loaded records' names; keys outside it (run-phase
// inserts, keys below insertstart) are built on demand. Both give exactly
// BuildKeyName's bytes.
TEST(YcsbWorkload, KeyTableGivesTheSameNamesAsBuildingThem) {
  for (const char* order : {"hashed", "ordered"}) {
    auto w = Make({{"recordcount", "300"}, {"insertstart", "100"}, {"insertcount", "150"},
                   {"insertorder", order}, {"zeropadding", "7"}});
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->key_table_count(), 150u);
    std::string built(w->max_key_length(), '\0');
    std::string scratch(w->max_key_length(), '\0');
    for (int64_t k = 0; k < 400; ++k) {
      const size_t n = w->BuildKeyName(k, built.data(), built.size());
      const ByteView v = w->KeyName(k, scratch.data());
      EXPECT_EQ(v.str(), std::string_view(built.data(), n)) << order << " key " << k;
      const bool tabled = k >= 100 && k < 250;
      EXPECT_EQ(v.data() == reinterpret_cast<const uint8_t*>(scratch.data()), !tabled) << k;
    }
  }
}

// A table is capped at kMaxKeyTableBytes: the first keys are tabled, the rest built.
TEST(YcsbWorkload, KeyTableIsCappedAndTheRestIsBuilt) {
  auto w = Make({{"recordcount", "100000000"}});
  ASSERT_NE(w, nullptr);
  const uint64_t n = w->key_table_count();
  const size_t stride = w->key_table_stride();
  EXPECT_GE(stride, w->max_key_length() + sizeof(uint16_t));
  EXPECT_EQ(64 % stride, 0u) << "an entry must not straddle a cache line";
  EXPECT_EQ(n, CoreWorkload::kMaxKeyTableBytes / stride);
  std::string built(w->max_key_length(), '\0');
  std::string scratch(w->max_key_length(), '\0');
  for (int64_t k : {int64_t(0), int64_t(n) - 1, int64_t(n), int64_t(99999999)}) {
    const size_t len = w->BuildKeyName(k, built.data(), built.size());
    EXPECT_EQ(w->KeyName(k, scratch.data()).str(), std::string_view(built.data(), len)) << k;
  }
}

TEST(YcsbRequests, InsertIsAFullRecordOverThePool) {
  auto w = Make({{"recordcount", "1000"}});
  auto c = w->NewClient(0);
  Operation op;
  op.type = OpType::kInsert;
  op.keynum = 0;
  const MutateRequest& req = c->BuildInsert(op);
  EXPECT_EQ(req.mutation.row.str(), "user6284781860667377211");
  EXPECT_EQ(req.mutation.type, MutationType::kPut);
  ASSERT_EQ(req.mutation.cells.size(), 10u);
  const ValuePool& pool = w->value_pool();
  std::set<const uint8_t*> offsets;
  for (size_t i = 0; i < 10; ++i) {
    const Cell& cell = req.mutation.cells[i];
    EXPECT_EQ(cell.row, req.mutation.row);
    EXPECT_EQ(cell.family.str(), "family");
    EXPECT_EQ(cell.qualifier.str(), "field" + std::to_string(i));
    EXPECT_EQ(cell.timestamp, 0u);
    EXPECT_EQ(cell.type, CellType::kPut);
    EXPECT_EQ(cell.value.size(), 100u);
    EXPECT_TRUE(cell.value.Within(pool.data(), pool.size()));
    for (uint8_t ch : cell.value) ASSERT_TRUE(ch >= ' ' && ch <= 0x7F);  // YCSB's range.
    offsets.insert(cell.value.data());
  }
  EXPECT_EQ(offsets.size(), 10u);  // Fields get different slices.
}

// The pool holds RandomByteIterator's bytes: in each group
// of six, byte k comes from its own bits of one 32-bit draw with its own
// mask, so byte 0 and 3 take 32 values, 1 and 4 take 64, 2 and 5 take 64
// (95 = 0b1011111) up to 0x7F.
TEST(YcsbValues, PoolIsFilledByRandomByteIteratorsMethod) {
  EXPECT_EQ(RandomByteIteratorByte(0, 0), ' ');
  EXPECT_EQ(RandomByteIteratorByte(0xFFFFFFFFu, 0), ' ' + 31);
  EXPECT_EQ(RandomByteIteratorByte(0xFFFFFFFFu, 1), ' ' + 63);
  EXPECT_EQ(RandomByteIteratorByte(0xFFFFFFFFu, 2), ' ' + 95);
  EXPECT_EQ(RandomByteIteratorByte(0xFFFFFFFFu, 5), ' ' + 95);
  EXPECT_EQ(RandomByteIteratorByte(uint32_t(1) << 5, 1), ' ' + 1);
  EXPECT_EQ(RandomByteIteratorByte(uint32_t(0x20) << 10, 2), ' ');  // Bit 5 is masked off.
  ValuePool pool(1, 100, 6 * 10000);
  std::set<uint8_t> seen[6];
  for (size_t i = 0; i < pool.size(); ++i) seen[i % 6].insert(pool.data()[i]);
  const size_t kinds[6] = {32, 64, 64, 32, 64, 64};
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(seen[k].size(), kinds[k]) << k;
    EXPECT_EQ(*seen[k].begin(), ' ') << k;
  }
  EXPECT_EQ(*seen[0].rbegin(), ' ' + 31);
  EXPECT_EQ(*seen[2].rbegin(), ' ' + 95);
  EXPECT_EQ(seen[2].count(' ' + 32), 0u);  // 95 masks bit 5 off.
}

TEST(YcsbRequests, ReadUpdateScanShapes) {
  auto w = Make({{"recordcount", "1000"},
                 {"readallfields", "false"},
                 {"insertorder", "ordered"},
                 {"zeropadding", "6"},
                 {"columnfamily", "cf"},
                 {"fieldnameprefix", "f"}});
  auto c = w->NewClient(0);
  Operation op;
  op.type = OpType::kRead;
  op.keynum = 42;
  op.read_field = 3;
  const GetRequest& get = c->BuildRead(op);
  EXPECT_EQ(get.row.str(), "user000042");
  ASSERT_EQ(get.columns.size(), 1u);
  EXPECT_EQ(get.columns[0].family.str(), "cf");
  EXPECT_EQ(get.columns[0].qualifier.str(), "f3");
  op.read_field = kAllFields;
  const GetRequest& all = c->BuildRead(op);
  ASSERT_EQ(all.columns.size(), 1u);
  EXPECT_TRUE(all.columns[0].qualifier.empty());  // The whole family.

  op.type = OpType::kUpdate;
  op.write_field = 7;
  const MutateRequest& up = c->BuildUpdate(op);
  ASSERT_EQ(up.mutation.cells.size(), 1u);
  EXPECT_EQ(up.mutation.cells[0].qualifier.str(), "f7");
  op.write_field = kAllFields;
  EXPECT_EQ(c->BuildUpdate(op).mutation.cells.size(), 10u);

  op.type = OpType::kScan;
  op.keynum = 7;
  op.scan_length = 55;
  op.read_field = kAllFields;
  const ScanRequest& scan = c->BuildScan(op);
  EXPECT_EQ(scan.start_row.str(), "user000007");
  EXPECT_TRUE(scan.stop_row.empty());
  EXPECT_EQ(scan.number_of_rows, 55u);
  ASSERT_EQ(scan.columns.size(), 1u);
}

TEST(YcsbRequests, DeterministicValuesMatchYcsbAndVerify) {
  // Expected bytes computed with YCSB's buildDeterministicValue algorithm
  // (Java String.hashCode) outside this code base.
  uint8_t buf[100];
  BuildDeterministicValue("user1", "field0", 60, buf);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), 60),
            "user1:field0:-1268391216:957204686:-1707619825:1341038322:17");
  BuildDeterministicValue("user6284781860667377211", "field9", 100, buf);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), 100),
            "user6284781860667377211:field9:-56807598:-1100440855:1189962510:701512652:"
            "-166179663:2032990533:2915");
  BuildDeterministicValue("user1", "field0", 8, buf);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), 8), "user1:fi");

  auto w = Make({{"recordcount", "1000"}, {"dataintegrity", "true"}});
  auto c = w->NewClient(0);
  Operation op;
  op.type = OpType::kInsert;
  op.keynum = 9;
  const MutateRequest& ins = c->BuildInsert(op);
  Result result;
  result.cells = ins.mutation.cells;
  result.exists = true;
  op.type = OpType::kRead;
  const GetRequest& get = c->BuildRead(op);
  EXPECT_EQ(get.columns.size(), 10u);  // dataintegrity reads name every field.
  EXPECT_TRUE(c->VerifyRead(result).ok());
  // A value from another key fails.
  std::vector<Cell> bad(result.cells.begin(), result.cells.end());
  uint8_t other[100];
  BuildDeterministicValue("user5", "field2", 100, other);
  bad[2].value = ByteView(other, 100);
  Result tampered;
  tampered.cells = bad;
  Status s = c->VerifyRead(tampered);
  EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("field2"), std::string_view::npos);
  EXPECT_EQ(c->VerifyRead(Result{}).code(), Status::Code::kNotFound);
}

TEST(YcsbRequests, ClientBufferingBatchesIntoMulti) {
  // 1 KB records and a 10 KB buffer: a flush is due after 9 or 10 puts.
  auto w = Make({{"recordcount", "1000"},
                 {"clientbuffering", "true"},
                 {"writebuffersize", "10240"},
                 {"insertproportion", "1"},
                 {"readproportion", "0"},
                 {"updateproportion", "0"}});
  auto c = w->NewClient(0);
  int puts = 0;
  bool flush = false;
  std::vector<int64_t> keys;
  while (!flush) {
    const Operation op = c->NextOperation();
    ASSERT_EQ(op.type, OpType::kInsert);
    keys.push_back(op.keynum);
    flush = c->BufferPut(op);
    ++puts;
    ASSERT_LT(puts, 100);
  }
  EXPECT_GE(c->buffered_bytes(), 10240u);
  EXPECT_EQ(c->buffered_ops(), uint32_t(puts));
  const MultiRequest& multi = c->BufferedMulti();
  ASSERT_EQ(multi.actions.size(), size_t(puts));
  for (size_t i = 0; i < multi.actions.size(); ++i) {
    const Action& a = multi.actions[i];
    EXPECT_EQ(a.kind, ActionKind::kMutation);
    EXPECT_EQ(a.index, i);
    EXPECT_EQ(a.mutation.cells.size(), 10u);
    char key[64];
    const size_t n = w->BuildKeyName(keys[i], key, sizeof(key));
    EXPECT_EQ(a.mutation.row.str(), std::string(key, n));  // Each put kept its own key.
  }
  // Run-phase inserts are acknowledged only when the flush completes.
  EXPECT_EQ(w->LastAcknowledgedInsert(), 999);
  ASSERT_TRUE(c->FinishFlush().ok());
  EXPECT_EQ(w->LastAcknowledgedInsert(), 999 + puts);
  EXPECT_EQ(c->buffered_ops(), 0u);
}

}  // namespace
}  // namespace wirebench::ycsb
