// CoreWorkloadConfig: YCSB CoreWorkload's settings, read from Properties and
// validated (proportions, distributions, ranges), with YCSB's defaults.
// Thread-safety: a plain value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ycsb/generators.h"
#include "ycsb/properties.h"
#include "common/status.h"

namespace wirebench::ycsb {

enum class RequestDistribution : uint8_t {
  kUniform,
  kZipfian,  // Scrambled zipfian (YCSB's "zipfian").
  kLatest,
  kHotspot,
  kSequential,
  kExponential,
};
const char* RequestDistributionName(RequestDistribution d);

// Limits wirebench puts on YCSB's open-ended settings, so per-client scratch
// can be sized once.
inline constexpr int64_t kMaxFieldCount = 4096;
inline constexpr int64_t kMaxFieldLength = 64 << 20;
inline constexpr int kMaxZeroPadding = 256;
// How the note on a workload without columnfamily begins (a built-in
// workload's run leaves it out: bench/loadgen/ycsb_run.cc).
inline constexpr const char* kColumnFamilyNotSetNote = "columnfamily is not set";

struct CoreWorkloadConfig {
  // recordcount; 0 in the properties means 2^31-1, as YCSB does.
  int64_t record_count = 0;
  int64_t operation_count = 0;
  std::string table = "usertable";
  std::string column_family = "family";

  int64_t field_count = 10;
  std::string field_name_prefix = "field";
  LengthDistribution field_length_distribution = LengthDistribution::kConstant;
  int64_t field_length = 100;    // The maximum for non-constant distributions.
  int64_t min_field_length = 1;  // For uniform and zipfian field lengths.
  bool read_all_fields = true;
  bool write_all_fields = false;
  bool data_integrity = false;

  double read_proportion = 0.95;
  double update_proportion = 0.05;
  double insert_proportion = 0;
  double scan_proportion = 0;
  double read_modify_write_proportion = 0;

  RequestDistribution request_distribution = RequestDistribution::kUniform;
  double hotspot_data_fraction = 0.2;
  double hotspot_opn_fraction = 0.8;
  double exponential_percentile = 95;
  double exponential_frac = 0.8571428571;

  int64_t min_scan_length = 1;
  int64_t max_scan_length = 1000;
  LengthDistribution scan_length_distribution =
      LengthDistribution::kUniform;  // Uniform or zipfian.

  bool ordered_inserts = false;  // insertorder=ordered.
  int zero_padding = 1;
  int64_t insert_start = 0;
  int64_t insert_count = -1;  // -1: record_count - insert_start.
  // Inserts of the load phase, as YCSB's Client counts them: insertcount
  // when set, else recordcount (even with insertstart > 0, when the keys
  // then run past recordcount). -1: derived by Validate().
  int64_t load_count = -1;

  bool client_buffering = false;
  int64_t write_buffer_size = 12 << 20;  // HBaseClient2's default.
  // wirebench.batch (`--batch B`): operations per Multi call, counted rather
  // than sized (writebuffersize is then not read); 0 = off. Reads, inserts
  // and updates all go into the batch (a read-modify-write's read and scans
  // do not: each needs its answer before the client goes on). Turns
  // client_buffering on for every binding that sends calls.
  int64_t batch_ops = 0;
  static constexpr int64_t kMaxBatchOps = 4096;
  std::string durability = "USE_DEFAULT";
  uint64_t seed = 1;

  // What YCSB would do silently and surprisingly with these settings (a
  // value read leniently, insertstart without insertcount): one line each,
  // for the driver to print once.
  std::vector<std::string> notes;

  // Reads every CoreWorkload key from `props`, then Validate().
  [[nodiscard]] static StatusOr<CoreWorkloadConfig> FromProperties(const Properties& props);
  // Checks ranges and combinations; fills insert_count when -1. Messages name
  // the property at fault.
  [[nodiscard]] Status Validate();
};

}  // namespace wirebench::ycsb
