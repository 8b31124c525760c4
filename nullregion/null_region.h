// The null region (docs/design.md, HBASE-10001's WriteSinkCoprocessor): it
// discards every mutation and answers OK; Get and Scan answer empty, or,
// with reads = kCanned, every Get answers one pre-built record of the
// workload's shape so each codec's response path is exercised too. It
// counts operations and bytes, nothing else.
//
// Calibration knobs let the instrument check itself: spin_us burns that
// much CPU per operation on the calling thread, delay_us makes the server
// hold each reply that long without using CPU, spin_instructions executes a
// known number of instructions per operation.
// Thread-safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nullregion/region.h"

namespace wirebench {

struct NullRegionOptions {
  enum class Reads { kEmpty, kCanned };
  // What Get answers: nothing (HBASE-10001), or the canned record.
  Reads reads = Reads::kEmpty;
  // Shape of the canned record (YCSB defaults: 10 fields of 100 bytes).
  int canned_fields = 10;
  int canned_field_length = 100;
  std::string canned_family = "family";
  std::string canned_field_prefix = "field";
  // CPU to burn per operation, in microseconds of thread CPU time. 0 = none.
  uint32_t spin_us = 0;
  // Time to hold each reply, in microseconds, without using CPU. 0 = none.
  uint32_t delay_us = 0;
  // Known-cost check for --instructions: execute this many instructions
  // (exactly, on x86-64) per operation. 0 = none.
  uint32_t spin_instructions = 0;
};

std::unique_ptr<Region> NewNullRegion(const NullRegionOptions& options);

// Parses "empty" / "canned" (for --null-reads).
StatusOr<NullRegionOptions::Reads> ParseNullReads(std::string_view s);

// Burns `us` microseconds of the calling thread's CPU time.
void SpinCpu(uint32_t us);
// Executes `n` instructions (rounded down to even; exact on x86-64, where
// it is a two-instruction loop) and returns.
void SpinInstructions(uint32_t n);

}  // namespace wirebench
