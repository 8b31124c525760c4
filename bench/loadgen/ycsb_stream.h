// Binds the YCSB CoreWorkload (bench/ycsb/) to the driver: one OpStream per
// logical client that plans YCSB operations as RPC calls (read = Get,
// update/insert = put, scan = Scan, read-modify-write = Get then put,
// clientbuffering = puts collected into Multi calls), acknowledges inserts,
// and verifies reads when dataintegrity=true.
// Thread-safety: YcsbWorkload::NewStream may be called from one thread;
// each stream is used by one logical client.
#pragma once

#include <memory>

#include "bench/loadgen/driver.h"
#include "bench/ycsb/core_workload.h"

namespace wirebench {

enum class YcsbPhase { kLoad, kRun };

class YcsbWorkload final : public Workload {
 public:
  // `core` must outlive this object and its streams.
  YcsbWorkload(ycsb::CoreWorkload* core, YcsbPhase phase) : core_(core), phase_(phase) {}
  std::unique_ptr<OpStream> NewStream(int client_index, int client_count) override;

 private:
  ycsb::CoreWorkload* core_;
  YcsbPhase phase_;
};

}  // namespace wirebench
