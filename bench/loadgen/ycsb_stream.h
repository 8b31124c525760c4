// Binds the YCSB CoreWorkload (ycsb/) to the driver: one OpStream per
// logical client that plans YCSB operations as RPC calls (read = Get,
// update/insert = put, scan = Scan, read-modify-write = Get then put,
// clientbuffering = puts collected into Multi calls), acknowledges inserts,
// and verifies reads when dataintegrity=true.
// Thread-safety: YcsbWorkload::NewStream may be called from one thread;
// each stream is used by one logical client.
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "bench/loadgen/driver.h"
#include "ycsb/core_workload.h"

namespace wirebench {

enum class YcsbPhase { kLoad, kRun };

// YCSB's BasicDB (ycsb/basic_db.h). basicdb.verbose: each logical
// client prints BasicDB.init's properties block as it is made, and a line
// per database call it plans (a read-modify-write's READ, then its UPDATE),
// to `out`, whole lines under `mu`. basicdb.count: the distinct hashes of
// the calls of each kind, printed by Uniques().
struct BasicDbOutput {
  bool verbose = false;
  bool count = false;
  std::FILE* out = stdout;
  std::string table;
  std::string properties_block;
  std::mutex mu;
  std::unordered_set<int32_t> reads, scans, updates, inserts;
  void Print(const std::string& text);
  void Count(std::unordered_set<int32_t>* set, int32_t hash);
  // BasicDB.cleanup's lines: "[READS], Uniques, N" ... "[DELETES], Uniques, 0".
  std::string Uniques();
};

class YcsbWorkload final : public Workload {
 public:
  // `core` (and `verbose`, unless null) must outlive this object and its streams.
  YcsbWorkload(ycsb::CoreWorkload* core, YcsbPhase phase, BasicDbOutput* verbose = nullptr)
      : core_(core), phase_(phase), verbose_(verbose) {}
  std::unique_ptr<OpStream> NewStream(int client_index, int client_count) override;

 private:
  ycsb::CoreWorkload* core_;
  YcsbPhase phase_;
  BasicDbOutput* verbose_;
};

}  // namespace wirebench
