#include "ycsb/workload_config.h"

#include "common/str_cat.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace wirebench::ycsb {

const char* RequestDistributionName(RequestDistribution d) {
  switch (d) {
    case RequestDistribution::kUniform:
      return "uniform";
    case RequestDistribution::kZipfian:
      return "zipfian";
    case RequestDistribution::kLatest:
      return "latest";
    case RequestDistribution::kHotspot:
      return "hotspot";
    case RequestDistribution::kSequential:
      return "sequential";
    case RequestDistribution::kExponential:
      return "exponential";
  }
  return "?";
}

namespace {

// Assigns `out` the value of `expr`, a StatusOr, or returns its error.
#define WB_ASSIGN_OR_RETURN(out, expr)      \
  do {                                      \
    auto wb_v_ = (expr);                    \
    if (!wb_v_.ok()) return wb_v_.status(); \
    out = decltype(out)(*wb_v_);            \
  } while (0)
// Assigns `out` props[key], read by the getter, or returns the getter's error.
#define WB_GET(getter, key, out) WB_ASSIGN_OR_RETURN(out, props.getter(key))

Status Invalid(const std::string& msg) { return Status::InvalidArgument(msg); }

StatusOr<LengthDistribution> ParseLength(const Properties& props, const char* key,
                                         bool allow_constant) {
  StatusOr<std::string> s = props.GetString(key);
  if (!s.ok()) return s.status();
  if (allow_constant && *s == "constant") return LengthDistribution::kConstant;
  if (*s == "uniform") return LengthDistribution::kUniform;
  if (*s == "zipfian") return LengthDistribution::kZipfian;
  if (*s == "histogram") {
    return Status::Unimplemented(std::string("property '") + key +
                                 "': the histogram distribution is not supported; use " +
                                 (allow_constant ? "constant, " : "") + "uniform or zipfian");
  }
  return Invalid(std::string("property '") + key + "' must be " +
                 (allow_constant ? "constant, " : "") + "uniform or zipfian, got '" + *s + "'");
}

// Refuses any workload class but CoreWorkload, naming the time-series one.
Status CheckWorkloadClass(const Properties& props) {
  StatusOr<std::string> w = props.GetString("workload");
  if (!w.ok()) return w.status();
  if (w->find("TimeSeriesWorkload") != std::string::npos) {
    return Status::Unimplemented(
        "property 'workload' is " + *w + " (set at " + props.SourceOf("workload") +
        "): YCSB's time-series workload is not implemented in wirebench, which runs "
        "CoreWorkload only (workloads a-f, workload_template)");
  }
  if (*w != "site.ycsb.workloads.CoreWorkload" && *w != "com.yahoo.ycsb.workloads.CoreWorkload") {
    return Invalid(
        "property 'workload' must be site.ycsb.workloads.CoreWorkload (or "
        "com.yahoo.ycsb.workloads.CoreWorkload), got '" +
        *w + "'; wirebench implements only CoreWorkload");
  }
  return Status::Ok();
}

StatusOr<RequestDistribution> ParseRequestDistribution(const Properties& props) {
  StatusOr<std::string> s = props.GetString("requestdistribution");
  if (!s.ok()) return s.status();
  static constexpr RequestDistribution kAll[] = {
      RequestDistribution::kUniform,    RequestDistribution::kZipfian,
      RequestDistribution::kLatest,     RequestDistribution::kHotspot,
      RequestDistribution::kSequential, RequestDistribution::kExponential};
  for (RequestDistribution d : kAll)
    if (*s == RequestDistributionName(d)) return d;
  return Invalid(
      "property 'requestdistribution' must be uniform, zipfian, latest, hotspot, "
      "sequential or exponential, got '" +
      *s + "'");
}

// How the keys are made: insertorder (ordered unless "hashed") and zeropadding.
Status ReadKeyFormat(const Properties& props, CoreWorkloadConfig* c) {
  StatusOr<std::string> s = props.GetString("insertorder");
  if (!s.ok()) return s.status();
  // YCSB: "hashed" hashes the keys; any other value orders them.
  if (*s != "hashed" && *s != "ordered")
    props.Note("property 'insertorder' = '" + *s + "' (set at " + props.SourceOf("insertorder") +
               "): YCSB orders the keys for any value but 'hashed'; so does wirebench");
  c->ordered_inserts = *s != "hashed";
  int64_t padding = 1;
  WB_GET(GetInt, "zeropadding", padding);
  // YCSB pads to zeropadding digits; 0 or less pads nothing, as 1 does.
  c->zero_padding = int(std::clamp<int64_t>(padding, 1, int64_t(kMaxZeroPadding) + 1));
  return Status::Ok();
}

// The load phase's keys: insertstart and insertcount (recordcount's when unset).
Status ReadInsertRange(const Properties& props, bool record_count_unset, CoreWorkloadConfig* c) {
  WB_GET(GetInt, "insertstart", c->insert_start);
  if (props.Has("insertcount")) {
    WB_GET(GetInt, "insertcount", c->insert_count);
    if (c->insert_count < 0) return Invalid("property 'insertcount' must be >= 0");
  } else if (c->insert_start > 0 && !record_count_unset) {
    c->notes.push_back("insertstart=" + std::to_string(c->insert_start) +
                       " without insertcount: the load phase inserts recordcount (" +
                       std::to_string(c->record_count) + ") records, keys " +
                       std::to_string(c->insert_start) + " to " +
                       std::to_string(c->insert_start + c->record_count - 1) +
                       ", as YCSB's Client does; set insertcount to insert fewer");
  }
  return Status::Ok();
}

// HBaseClient2 buffers only for exactly "true" (String.equals); YCSB's
// BasicDB (the basic binding) has no buffer: each put is a call.
StatusOr<bool> ParseClientBuffering(const Properties& props) {
  StatusOr<std::string> b = props.GetString("clientbuffering");
  if (!b.ok()) return b.status();
  StatusOr<std::string> db = props.GetString("db");
  if (*b == "true" && props.Has("db") && db.ok() &&
      (*db == "site.ycsb.BasicDB" || *db == "com.yahoo.ycsb.BasicDB")) {
    props.Note(StrCat("property 'clientbuffering' = 'true' (set at ",
                      props.SourceOf("clientbuffering"), ") is YCSB's HBase binding's; ", *db,
                      " has no buffer and ignores it, so every put is its own call"));
    return false;
  }
  if (*b != "true" && *b != "false")
    props.Note("property 'clientbuffering' = '" + *b + "' (set at " +
               props.SourceOf("clientbuffering") +
               "): YCSB's HBase binding buffers only for exactly 'true'; so does wirebench");
  return *b == "true";
}

Status CheckDurability(const Properties& props, const std::string& durability) {
  static constexpr const char* kDurabilities[] = {"USE_DEFAULT", "SKIP_WAL", "ASYNC_WAL",
                                                  "SYNC_WAL", "FSYNC_WAL"};
  if (std::find(std::begin(kDurabilities), std::end(kDurabilities), durability) ==
      std::end(kDurabilities))
    return Invalid("property 'durability' must be an HBase Durability name (USE_DEFAULT, "
                   "SKIP_WAL, ASYNC_WAL, SYNC_WAL or FSYNC_WAL), got '" + durability +
                   "' (set at " + props.SourceOf("durability") +
                   "); YCSB's HBase binding fails on it too");
  return Status::Ok();
}

// The record's shape: field count, names, lengths and what reads and writes touch.
Status ReadRecordShape(const Properties& props, CoreWorkloadConfig* c) {
  WB_GET(GetString, "table", c->table);
  WB_GET(GetString, "columnfamily", c->column_family);
  WB_GET(GetInt, "fieldcount", c->field_count);
  WB_GET(GetString, "fieldnameprefix", c->field_name_prefix);
  WB_ASSIGN_OR_RETURN(c->field_length_distribution,
                      ParseLength(props, "fieldlengthdistribution", true));
  WB_GET(GetInt, "fieldlength", c->field_length);
  WB_GET(GetInt, "minfieldlength", c->min_field_length);
  c->read_all_fields = props.GetYcsbBool("readallfields");
  c->write_all_fields = props.GetYcsbBool("writeallfields");
  c->data_integrity = props.GetYcsbBool("dataintegrity");
  return Status::Ok();
}

// The operation mix and how keys and scan lengths are chosen.
Status ReadOperations(const Properties& props, bool record_count_unset, CoreWorkloadConfig* c) {
  WB_GET(GetDouble, "readproportion", c->read_proportion);
  WB_GET(GetDouble, "updateproportion", c->update_proportion);
  WB_GET(GetDouble, "insertproportion", c->insert_proportion);
  WB_GET(GetDouble, "scanproportion", c->scan_proportion);
  WB_GET(GetDouble, "readmodifywriteproportion", c->read_modify_write_proportion);
  WB_ASSIGN_OR_RETURN(c->request_distribution, ParseRequestDistribution(props));
  if (record_count_unset && c->request_distribution == RequestDistribution::kLatest) {
    // YCSB would sum zeta over 2^31-1 items (minutes of CPU) before starting.
    return Invalid(
        "requestdistribution=latest needs property 'recordcount' set (> 0); with "
        "recordcount=0 YCSB uses 2^31-1 records");
  }
  WB_GET(GetDouble, "hotspotdatafraction", c->hotspot_data_fraction);
  WB_GET(GetDouble, "hotspotopnfraction", c->hotspot_opn_fraction);
  WB_GET(GetDouble, "exponential.percentile", c->exponential_percentile);
  WB_GET(GetDouble, "exponential.frac", c->exponential_frac);
  WB_GET(GetInt, "minscanlength", c->min_scan_length);
  WB_GET(GetInt, "maxscanlength", c->max_scan_length);
  WB_ASSIGN_OR_RETURN(c->scan_length_distribution,
                      ParseLength(props, "scanlengthdistribution", false));
  return Status::Ok();
}

// What the HBase binding reads: buffering, durability, the column family's note, the buffer size.
Status ReadBindingOptions(const Properties& props, CoreWorkloadConfig* c) {
  WB_ASSIGN_OR_RETURN(c->client_buffering, ParseClientBuffering(props));
  WB_GET(GetString, "durability", c->durability);
  WB_RETURN_IF_ERROR(CheckDurability(props, c->durability));
  if (!props.Has("columnfamily"))
    c->notes.push_back(std::string(kColumnFamilyNotSetNote) +
                       ": YCSB's HBase binding refuses to start without it "
                       "(\"must specify a columnfamily\"); wirebench uses its default, '" +
                       c->column_family + "'");
  WB_GET(GetInt, "writebuffersize", c->write_buffer_size);
  WB_GET(GetInt, "wirebench.batch", c->batch_ops);
  if (c->batch_ops > 0) c->client_buffering = true;
  return Status::Ok();
}

// Validate's parts.

Status CheckFields(const CoreWorkloadConfig& c) {
  if (c.field_count < 1 || c.field_count > kMaxFieldCount) {
    return Invalid("property 'fieldcount' must be in [1, " + std::to_string(kMaxFieldCount) +
                   "], got " + std::to_string(c.field_count));
  }
  if (c.field_length < 0 || c.field_length > kMaxFieldLength) {
    return Invalid("property 'fieldlength' must be in [0, " + std::to_string(kMaxFieldLength) +
                   "], got " + std::to_string(c.field_length));
  }
  if (c.field_length_distribution != LengthDistribution::kConstant &&
      (c.min_field_length < 0 || c.min_field_length > c.field_length)) {
    return Invalid("property 'minfieldlength' must be in [0, fieldlength=" +
                   std::to_string(c.field_length) + "], got " +
                   std::to_string(c.min_field_length));
  }
  if (c.data_integrity && c.field_length_distribution != LengthDistribution::kConstant) {
    return Invalid(
        "dataintegrity=true needs fieldlengthdistribution=constant (YCSB: \"Must have "
        "constant field size to check data integrity.\")");
  }
  return Status::Ok();
}

Status CheckProportions(const CoreWorkloadConfig& c) {
  const double props[] = {c.read_proportion, c.update_proportion, c.insert_proportion,
                          c.scan_proportion, c.read_modify_write_proportion};
  static const char* kNames[] = {"readproportion", "updateproportion", "insertproportion",
                                 "scanproportion", "readmodifywriteproportion"};
  double sum = 0;
  for (int i = 0; i < 5; ++i) {
    if (!(props[i] >= 0) || !std::isfinite(props[i])) {
      return Invalid(std::string("property '") + kNames[i] + "' must be a number >= 0, got " +
                     std::to_string(props[i]));
    }
    sum += props[i];
  }
  if (!(sum > 0)) {
    return Invalid(
        "the operation proportions (readproportion, updateproportion, insertproportion, "
        "scanproportion, readmodifywriteproportion) are all 0; set at least one");
  }
  return Status::Ok();
}

// The key and scan-length distributions' parameters, and the keys' padding.
Status CheckDistributions(const CoreWorkloadConfig& c) {
  if (c.hotspot_data_fraction < 0 || c.hotspot_data_fraction > 1) {
    return Invalid("property 'hotspotdatafraction' must be in [0, 1], got " +
                   std::to_string(c.hotspot_data_fraction));
  }
  if (c.hotspot_opn_fraction < 0 || c.hotspot_opn_fraction > 1) {
    return Invalid("property 'hotspotopnfraction' must be in [0, 1], got " +
                   std::to_string(c.hotspot_opn_fraction));
  }
  if (!(c.exponential_percentile > 0 && c.exponential_percentile < 100)) {
    return Invalid("property 'exponential.percentile' must be in (0, 100), got " +
                   std::to_string(c.exponential_percentile));
  }
  if (!(c.exponential_frac > 0)) {
    return Invalid("property 'exponential.frac' must be > 0, got " +
                   std::to_string(c.exponential_frac));
  }
  if (c.min_scan_length < 1 || c.max_scan_length < c.min_scan_length ||
      c.max_scan_length > std::numeric_limits<uint32_t>::max()) {
    return Invalid(
        "properties 'minscanlength' and 'maxscanlength' must satisfy 1 <= minscanlength "
        "<= maxscanlength < 2^32, got " +
        std::to_string(c.min_scan_length) + " and " + std::to_string(c.max_scan_length));
  }
  if (c.zero_padding < 1 || c.zero_padding > kMaxZeroPadding) {
    return Invalid("property 'zeropadding' must be in [1, " + std::to_string(kMaxZeroPadding) +
                   "], got " + std::to_string(c.zero_padding));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<CoreWorkloadConfig> CoreWorkloadConfig::FromProperties(const Properties& props) {
  CoreWorkloadConfig c;
  WB_RETURN_IF_ERROR(CheckWorkloadClass(props));
  WB_GET(GetInt, "recordcount", c.record_count);
  const bool record_count_unset = c.record_count == 0;
  if (record_count_unset) c.record_count = std::numeric_limits<int32_t>::max();
  WB_GET(GetInt, "operationcount", c.operation_count);
  WB_RETURN_IF_ERROR(ReadRecordShape(props, &c));
  WB_RETURN_IF_ERROR(ReadOperations(props, record_count_unset, &c));
  WB_RETURN_IF_ERROR(ReadKeyFormat(props, &c));
  WB_RETURN_IF_ERROR(ReadInsertRange(props, record_count_unset, &c));
  WB_RETURN_IF_ERROR(ReadBindingOptions(props, &c));
  int64_t seed = 0;
  WB_GET(GetInt, "seed", seed);
  c.seed = uint64_t(seed);
  WB_RETURN_IF_ERROR(c.Validate());
  return c;
}

Status CoreWorkloadConfig::Validate() {
  if (record_count < 0) return Invalid("property 'recordcount' must be >= 0");
  if (operation_count < 0) return Invalid("property 'operationcount' must be >= 0");
  WB_RETURN_IF_ERROR(CheckFields(*this));
  WB_RETURN_IF_ERROR(CheckProportions(*this));
  WB_RETURN_IF_ERROR(CheckDistributions(*this));
  if (insert_start < 0) return Invalid("property 'insertstart' must be >= 0");
  if (load_count < 0) load_count = insert_count >= 0 ? insert_count : record_count;
  if (insert_count < 0) insert_count = record_count - insert_start;
  if (insert_count < 0 || record_count < insert_start + insert_count) {
    return Invalid("invalid combination of insertstart (" + std::to_string(insert_start) +
                   "), insertcount (" + std::to_string(insert_count) + ") and recordcount (" +
                   std::to_string(record_count) +
                   "): recordcount must be at least insertstart + insertcount");
  }
  if (request_distribution != RequestDistribution::kLatest &&
      request_distribution != RequestDistribution::kExponential && insert_count < 1 &&
      read_proportion + update_proportion + scan_proportion + read_modify_write_proportion > 0) {
    return Invalid(
        "insertcount (recordcount - insertstart) is 0, so reads, updates and scans have "
        "no keys to choose from");
  }
  if (write_buffer_size < 1) return Invalid("property 'writebuffersize' must be >= 1");
  if (batch_ops < 0 || batch_ops > kMaxBatchOps)
    return Invalid("--batch (wirebench.batch) must be from 0 (off) to " +
                   std::to_string(kMaxBatchOps) + " operations per call, got " +
                   std::to_string(batch_ops));
  return Status::Ok();
}

}  // namespace wirebench::ycsb
