// The table of known YCSB properties and their defaults.
#include "ycsb/properties.h"

#include <iterator>

namespace wirebench::ycsb {

namespace {

// A property with no default.
const auto kNone = std::optional<std::string>();

// YCSB's Client.
std::vector<PropertySpec> ClientSpecs() {
  return {
      {"workload", "site.ycsb.workloads.CoreWorkload",
       "workload class: site.ycsb.workloads.CoreWorkload (or "
       "com.yahoo.ycsb.workloads.CoreWorkload)"},
      {"db", "site.ycsb.BasicDB", "database binding class (recorded, not loaded)"},
      {"exporter", "site.ycsb.measurements.exporter.TextMeasurementsExporter",
       "measurements exporter class"},
      {"exportfile", kNone, "file to write measurements to (default: stdout)"},
      {"threadcount", "1", "number of client threads (-threads)"},
      {"target", "0", "target operations per second, 0 = as fast as possible (-target)"},
      {"recordcount", "0", "records in the table (0 means 2^31-1, as in YCSB)"},
      {"operationcount", "0", "operations in the run phase"},
      {"maxexecutiontime", "0", "stop the run after this many seconds, 0 = no limit"},
      {"dotransactions", "true", "run phase (true, -t) or load phase (false, -load)"},
      {"status", "false", "print status lines (-s)"},
      {"status.interval", "10", "seconds between status lines"},
      {"label", "", "label prefixed to status lines (-l)"},
      {"debug", "false", "verbose output"},
  };
}

// CoreWorkload's, and the basic binding's (YCSB's BasicDB).
std::vector<PropertySpec> WorkloadSpecs() {
  return {
      {"table", "usertable", "table name"},
      {"basicdb.verbose", "true",
       "basic binding: print BasicDB's properties block and a line per database call"},
      {"basicdb.count", "false", "basic binding: print the distinct calls of each kind"},
      {"basicdb.simulatedelay", "0", "basic binding: ms each call waits (inside its latency)"},
      {"basicdb.randomizedelay", "true",
       "basic binding: wait a random whole number of ms below basicdb.simulatedelay"},
      {"fieldcount", "10", "fields per record"},
      {"fieldlength", "100", "field length in bytes (the maximum for non-constant distributions)"},
      {"minfieldlength", "1", "minimum field length for uniform and zipfian field lengths"},
      {"fieldlengthdistribution", "constant",
       "field length distribution: constant, uniform, zipfian"},
      {"fieldlengthhistogram", "hist.txt", "histogram file for fieldlengthdistribution=histogram"},
      {"fieldnameprefix", "field", "prefix of field names"},
      {"readallfields", "true", "reads read all fields (true) or one (false)"},
      {"writeallfields", "false", "updates write all fields (true) or one (false)"},
      {"dataintegrity", "false", "values derived from key and field, and reads verified"},
      {"readproportion", "0.95", "proportion of reads"},
      {"updateproportion", "0.05", "proportion of updates"},
      {"insertproportion", "0", "proportion of inserts"},
      {"scanproportion", "0", "proportion of scans"},
      {"readmodifywriteproportion", "0", "proportion of read-modify-writes"},
      {"requestdistribution", "uniform",
       "key distribution: uniform, zipfian, latest, hotspot, sequential, exponential"},
      {"hotspotdatafraction", "0.2", "fraction of keys in the hot set (hotspot)"},
      {"hotspotopnfraction", "0.8", "fraction of operations on the hot set (hotspot)"},
      {"exponential.percentile", "95", "percent of operations within exponential.frac of the keys"},
      {"exponential.frac", "0.8571428571",
       "fraction of the keys that exponential.percentile covers"},
      {"minscanlength", "1", "minimum rows per scan"},
      {"maxscanlength", "1000", "maximum rows per scan"},
      {"scanlengthdistribution", "uniform", "scan length distribution: uniform, zipfian"},
      {"insertorder", "hashed", "key order of inserts: hashed or ordered"},
      {"zeropadding", "1", "digits the key number is zero-padded to"},
      {"insertstart", "0", "first key number this client inserts"},
      {"insertcount", kNone,
       "number of keys this client inserts (default recordcount - insertstart)"},
      {"core_workload_insertion_retry_limit", "0", "insert retries (recorded, not used)"},
      {"core_workload_insertion_retry_interval", "3", "seconds between insert retries"},
  };
}

std::vector<PropertySpec> MeasurementSpecs() {
  return {
      {"measurementtype", "hdrhistogram",
       "measurement type: hdrhistogram, histogram, hdrhistogram+histogram, hdrhistogram+raw, "
       "timeseries, raw"},
      {"measurement.interval", "op",
       "latency from the actual send (op), the intended start (intended), or both"},
      {"measurement.trackjvm", "false", "track JVM statistics (YCSB only; ignored)"},
      {"measurement.histogram.verbose", "false", "print every histogram bucket"},
      {"measurement.raw.output_file", kNone, "raw measurement output file"},
      {"measurement.raw.no_summary", "false", "no summary for raw measurements"},
      {"histogram.buckets", "1000", "buckets of the plain histogram"},
      {"timeseries.granularity", "1000", "milliseconds per time-series point"},
      {"hdrhistogram.percentiles", "50,95,99", "latency percentiles to report"},
      {"hdrhistogram.fileoutput", "false", "write HdrHistogram interval logs"},
      {"hdrhistogram.output.path", "", "prefix of HdrHistogram interval log files"},
      {"reportlatencyforeacherror", "false", "separate latency for each error status"},
      {"latencytrackederrors", kNone, "error statuses with their own latency"},
  };
}

// The HBase binding's, keys known to have no effect here, and wirebench's own.
std::vector<PropertySpec> BindingSpecs() {
  return {
      {"columnfamily", "family",
       "column family of every cell (HBaseClient2 requires it; wirebench defaults to 'family')"},
      {"clientbuffering", "false", "buffer puts client-side into Multi calls (BufferedMutator)"},
      {"writebuffersize", "12582912",
       "bytes of buffered puts that trigger a flush (HBaseClient2's 12 MiB)"},
      {"wirebench.batch", "0",
       "puts per Multi call (set by --batch): each logical client buffers this many puts "
       "and sends them in one call, whatever the binding; 0 = off"},
      {"durability", "USE_DEFAULT",
       "HBase Durability of puts: USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL or FSYNC_WAL "
       "(checked and recorded; wirebench's requests carry none)"},
      {"hbase.usepagefilter", "true", "page filter on scans (recorded)"},
      // Keys of YCSB's workload files, Client and bindings that have no
      // effect here: known, so they pass without a note.
      {"readallfieldsbyname", "false", "CoreWorkload (master): read fields by name (no effect)"},
      {"core_workload_insertion_keep_going_on_error", "false",
       "CoreWorkload: keep loading after a failed insert (no effect: a failed insert is counted)"},
      {"discardscannedrecord", "false", "scan binding option (no effect)"},
      {"maxscanrate", "0", "scan binding option (no effect)"},
      {"scanoptimelimit", "0", "scan binding option (no effect)"},
      {"spin.sleep", "false", "binding option (no effect)"},
      {"principal", kNone, "HBase binding: Kerberos principal (no effect)"},
      {"keytab", kNone, "HBase binding: Kerberos keytab (no effect)"},
      {"sleepafterload", "0", "sleep after the load phase (no effect)"},
      // wirebench.
      {"seed", "1", "seed of every random choice (per-client generators and the value pool)"},
  };
}

std::vector<PropertySpec> MakeSpecs() {
  std::vector<PropertySpec> specs;
  for (auto part : {ClientSpecs, WorkloadSpecs, MeasurementSpecs, BindingSpecs}) {
    std::vector<PropertySpec> more = part();
    specs.insert(specs.end(), std::make_move_iterator(more.begin()),
                 std::make_move_iterator(more.end()));
  }
  return specs;
}

}  // namespace

const std::vector<PropertySpec>& YcsbPropertySpecs() {
  static const std::vector<PropertySpec> specs = MakeSpecs();
  return specs;
}

}  // namespace wirebench::ycsb
