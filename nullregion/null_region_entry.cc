// `--region null`: the HBASE-10001 empty region and its calibration knobs.
#include <limits>

#include "nullregion/null_region.h"
#include "nullregion/region_entry.h"
#include "rpc/call_header.h"

namespace wirebench {

namespace {

constexpr uint32_t kMax32 = std::numeric_limits<uint32_t>::max();

StatusOr<NullRegionOptions> OptionsFrom(const RegionSettings& s) {
  NullRegionOptions o;
  auto reads = ParseNullReads(s.Get("--null-reads"));
  if (!reads.ok()) return reads.status();
  o.reads = *reads;
  auto spin = s.GetUint32("--spin-us", 0, kMax32);
  if (!spin.ok()) return spin.status();
  o.spin_us = *spin;
  auto delay = s.GetUint32("--delay-us", 0, kMax32);
  if (!delay.ok()) return delay.status();
  o.delay_us = *delay;
  auto instructions = s.GetUint32("--spin-instructions", 0, 1000000000u);
  if (!instructions.ok()) return instructions.status();
  o.spin_instructions = *instructions;
  // The canned record's shape; unset: YCSB's default 10 x 100 B (a
  // co-located run sets both from its workload's fieldcount and fieldlength).
  if (!s.Get("--canned-fields").empty()) {
    auto fields = s.GetUint32("--canned-fields", 1, 4096);
    if (!fields.ok()) return fields.status();
    o.canned_fields = int(*fields);
  }
  if (!s.Get("--canned-field-length").empty()) {
    auto length = s.GetUint32("--canned-field-length", 0, 64u << 20);
    if (!length.ok()) return length.status();
    o.canned_field_length = int(*length);
  }
  // A canned Get reply carries the whole record: past what a client takes in
  // one frame every read would fail (and 4096 fields of 64 MiB would exhaust
  // memory before the first call).
  constexpr uint64_t kPerFieldOverhead = 64;  // Its name, family, key and codec framing, at most.
  const uint64_t record = uint64_t(o.canned_fields) * (uint64_t(o.canned_field_length) + kPerFieldOverhead);
  if (o.reads == NullRegionOptions::Reads::kCanned && record + 4096 > rpc::kDefaultMaxCallBytes)
    return Status::InvalidArgument(
        "--canned-fields " + std::to_string(o.canned_fields) + " x --canned-field-length " +
        std::to_string(o.canned_field_length) + " makes a canned record of about " +
        std::to_string(record >> 20) + " MiB, more than one reply frame carries (" +
        std::to_string(rpc::kDefaultMaxCallBytes >> 20) +
        " MiB, what a client accepts): lower either so that fields x (length + 64) stays under "
        "it");
  return o;
}

Status Check(const RegionSettings& s) { return OptionsFrom(s).status(); }

StatusOr<std::unique_ptr<Region>> Make(const RegionSettings& s) {
  auto o = OptionsFrom(s);
  if (!o.ok()) return o.status();
  return NewNullRegion(*o);
}

}  // namespace

const RegionEntry& NullRegionEntry() {
  static const RegionEntry entry{
      {"null",
       "writes discarded, reads empty or canned (HBASE-10001)",
       {"wirebench::NullRegion::", "wirebench::SpinCpu", "wirebench::SpinInstructions"}},
      {{"--null-reads",
        "What the null region answers to Get: empty (HBASE-10001) or canned (one pre-built "
        "record of --canned-fields x --canned-field-length bytes)",
        "empty"},
       {"--canned-fields",
        "Fields of the canned record (1-4096; default 10, or the workload's fieldcount when "
        "co-located)",
        ""},
       {"--canned-field-length",
        "Bytes per field of the canned record (0-67108864; default 100, or the workload's "
        "fieldlength when co-located)",
        ""},
       {"--spin-us", "Calibration: burn this many us of CPU per operation in the null region", "0"},
       {"--delay-us", "Calibration: hold every reply this many us without using CPU", "0"},
       {"--spin-instructions",
        "Calibration for --instructions: execute this many instructions per operation in the "
        "null region (0-1000000000)",
        "0"}},
      &Check,
      &Make,
      nullptr};
  return entry;
}

}  // namespace wirebench
