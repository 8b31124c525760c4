// What every connection of an `--rpc hbase` server shares (hbase_protocol.h
// reads the bytes, hbase_calls.h answers the calls): HBase's constants and
// exception classes, the server's identity and regions (with its peers',
// when it is one of a null cluster's servers), the I/O threads' counters,
// the scanner table, and the exception reply both of them write.
//
// Thread-safety: HBaseService is shared by every connection: its scanner
// table is locked (briefly: never across a scan), each scanner has a lock of
// its own, the rest is immutable once serving.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/message.h"
#include "codecs/schemas/RPC.pb.h"
#include "common/bytes.h"
#include "common/counters.h"
#include "common/status.h"
#include "common/thread_stats.h"
#include "nullregion/cluster.h"
#include "nullregion/region.h"
#include "rpc/service.h"
#include "transports/hbase/hbase_filters.h"

namespace google::protobuf {
class MessageLite;
}  // namespace google::protobuf
namespace wirebench::hbase {
class ResponseHeader;
}  // namespace wirebench::hbase

namespace wirebench::hbaserpc {

// HConstants.RPC_HEADER and RpcServer.CURRENT_VERSION.
inline constexpr uint8_t kRpcHeader[4] = {'H', 'B', 'a', 's'};
inline constexpr uint8_t kRpcVersion = 0;
inline constexpr size_t kPreambleSize = 6;
// AuthMethod codes.
inline constexpr uint8_t kAuthSimple = 80;
inline constexpr uint8_t kAuthKerberos = 81;
inline constexpr uint8_t kAuthDigest = 82;
// HBase 2.6's RpcClient special preambles (six bytes each).
inline constexpr uint8_t kRegistryPreamble[6] = {'R', 'e', 'g', 'i', 's', 't'};
inline constexpr uint8_t kSecurityPreamble[6] = {'S', 'e', 'c', 'u', 'r', 'i'};
// The call id of replies that belong to no call (Java's -1 as uint32).
inline constexpr uint32_t kNoCallId = 0xFFFFFFFFu;

inline constexpr std::string_view kKeyValueCodecClass = "org.apache.hadoop.hbase.codec.KeyValueCodec";
inline constexpr std::string_view kClientService = "ClientService";
inline constexpr std::string_view kClientMetaService = "ClientMetaService";
inline constexpr std::string_view kMetaTable = "hbase:meta";
// The meta region every client knows by name (old-format region name).
inline constexpr std::string_view kMetaRegionName = "hbase:meta,,1";
// The region id of the one region per table the catalog hands out: with the
// empty start key its (old-format) name is "T,,1", the region name the
// pb/cellblock codecs write (codecs/hbase/pb_mapping.h).
inline constexpr uint64_t kUserRegionId = 1;

// The exception classes HBase's server sends, by name.
namespace exceptions {
inline constexpr std::string_view kFatalConnection =
    "org.apache.hadoop.hbase.ipc.FatalConnectionException";
inline constexpr std::string_view kWrongVersion = "org.apache.hadoop.hbase.ipc.WrongVersionException";
inline constexpr std::string_view kBadAuth = "org.apache.hadoop.hbase.ipc.BadAuthException";
inline constexpr std::string_view kAccessDenied =
    "org.apache.hadoop.hbase.security.AccessDeniedException";
inline constexpr std::string_view kSecurityNotEnabled =
    "org.apache.hadoop.hbase.ipc.SecurityNotEnabledException";
inline constexpr std::string_view kUnsupportedCellCodec =
    "org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException";
inline constexpr std::string_view kUnsupportedCompressionCodec =
    "org.apache.hadoop.hbase.ipc.UnsupportedCompressionCodecException";
inline constexpr std::string_view kUnknownService =
    "org.apache.hadoop.hbase.ipc.UnknownServiceException";
inline constexpr std::string_view kEmptyServiceName =
    "org.apache.hadoop.hbase.ipc.EmptyServiceNameException";
inline constexpr std::string_view kRequestTooBig =
    "org.apache.hadoop.hbase.exceptions.RequestTooBigException";
inline constexpr std::string_view kDoNotRetry = "org.apache.hadoop.hbase.DoNotRetryIOException";
inline constexpr std::string_view kUnknownProtocol =
    "org.apache.hadoop.hbase.exceptions.UnknownProtocolException";
inline constexpr std::string_view kWrongRegion =
    "org.apache.hadoop.hbase.regionserver.WrongRegionException";
inline constexpr std::string_view kNotServingRegion =
    "org.apache.hadoop.hbase.NotServingRegionException";
inline constexpr std::string_view kUnknownScanner = "org.apache.hadoop.hbase.UnknownScannerException";
inline constexpr std::string_view kOutOfOrderScannerNext =
    "org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException";
inline constexpr std::string_view kIOException = "java.io.IOException";
inline constexpr std::string_view kRegionTooBusy = "org.apache.hadoop.hbase.RegionTooBusyException";
inline constexpr std::string_view kCallQueueTooBig = "org.apache.hadoop.hbase.CallQueueTooBigException";
}  // namespace exceptions

// Who this server is, as the catalog, ClientMetaService and (with
// --zookeeper) the registry nodes name it: HBase's ServerName and cluster id.
struct ServerIdentity {
  std::string host;         // The host clients connect to.
  uint16_t port = 0;
  // Milliseconds since the epoch when the server started; a cluster
  // member's is its plan's (ClusterPlan::StartCode).
  uint64_t start_code = 0;
  // A UUID: fresh per server process, or a cluster's (ClusterIdOf).
  std::string cluster_id;
  // "host,port,startcode", HBase's ServerName string.
  std::string ServerNameString() const;
};

// A fresh random UUID string (8-4-4-4-12 hex digits).
std::string NewClusterId();
// A null cluster's id, UUID-shaped: a hash of the plan's start code base,
// so every server of the cluster (each in its own process, never asking
// another) answers GetClusterId and writes hbaseid alike, as HBase's
// servers share the id the master wrote.
std::string ClusterIdOf(const ClusterPlan& plan);

// Counters of one I/O thread (BumpShared by it, AddShared by Stats).
struct HBaseIoStats {
  uint64_t calls[kMaxMethod + 1] = {};  // By wirebench Method, for Mutate..Ping.
  uint64_t meta_calls = 0;              // Calls on hbase:meta (the catalog).
  uint64_t registry_calls = 0;          // ClientMetaService and the registry preamble.
  uint64_t fast_calls = 0;              // Answered by the codec's own handler.
  uint64_t other_calls = 0;             // Methods HBase has that wirebench refuses.
  uint64_t handler_calls = 0;           // Calls run on a handler thread (they evaluate a filter).
  uint64_t failed_calls = 0;            // Replies carrying an exception.
  uint64_t frames_in = 0, frames_out = 0;
  uint64_t bytes_in = 0, bytes_out = 0;
  uint64_t accepted = 0, closed = 0, refused = 0;
  uint64_t idle_closed = 0;  // Closed for sitting idle while the server was crowded.
  uint64_t budget_refused = 0;  // Closed for want of room in --max-buffered-bytes.
  int64_t active = 0;
  using Fields =
      FieldList<&HBaseIoStats::calls, &HBaseIoStats::meta_calls, &HBaseIoStats::registry_calls,
                &HBaseIoStats::fast_calls, &HBaseIoStats::other_calls,
                &HBaseIoStats::handler_calls,
                &HBaseIoStats::failed_calls, &HBaseIoStats::frames_in,
                &HBaseIoStats::frames_out, &HBaseIoStats::bytes_in, &HBaseIoStats::bytes_out,
                &HBaseIoStats::accepted, &HBaseIoStats::closed, &HBaseIoStats::refused,
                &HBaseIoStats::idle_closed, &HBaseIoStats::budget_refused,
                &HBaseIoStats::active>;
};

// An open scanner (ScanRequest without scanner_id opens one).
struct Scanner {
  bool meta = false;     // A scan of the catalog.
  std::string table;     // The table scanned (meta scans: the table whose rows are answered).
  std::string next_row;  // The last row returned; the next batch starts after it.
  bool started = false;  // next_row is set (else: the scan's own start).
  std::string start_row, stop_row;
  bool include_start = true;
  bool include_stop = false;
  bool reversed = false;
  std::vector<std::pair<std::string, std::string>> columns;
  uint64_t rows_left = 0;  // limit_of_rows; 0 = no limit.
  uint64_t next_call_seq = 0;
  uint32_t max_versions = 1;
  TimeRange time_range;
  uint32_t batch = 0;    // Scan.batch_size: the most cells per Result; 0 = a whole row.
  uint32_t caching = 0;  // Scan.caching: rows per call when a call names none.
  uint64_t max_result_size = 0;  // A reply's bytes at most (Scan.max_result_size).
  std::shared_ptr<Filter> filter;  // Scan.filter, or null.
  uint64_t last_used_ms = 0;       // For the lease.
  uint64_t owner = 0;              // The connection that opened it (HBaseService::NewOwner).
  size_t bytes = 0;                // What it holds, about (see HBaseService's budget).
  std::string region_end;  // The region's end key: where a forward scan stops ("" = none).
  std::string region_start;  // Its start key: where a reversed scan stops.
  bool cut_by_region = false;  // The scan's range goes past the region's.
};

// HBase's default scanner lease, and the clock it is kept by.
inline constexpr uint64_t kScannerLeaseMs = 60000;
uint64_t ScannerNowMs();

// How long one Scan call runs for a client that handles heartbeats
// (ScanRequest.client_handles_heartbeats) before it answers what it has,
// flagged heartbeat_message (HBase's ScannerContext time limit). HBase takes
// half its RPC timeout or scanner lease (30 s by default), as its 30 handlers
// each serve one client; here a filtered call waits for a free handler
// thread (--handlers, one by default) behind whatever scans hold them, so
// the limit is what such a call may wait behind each: 100 ms keeps that
// well under a second while costing the scanning client one round trip per
// 100 ms of scanning (under 0.1% on loopback). HBase's floor for it is
// 10 ms (hbase.region.server.rpc.minimum.scan.time.limit.delta).
inline constexpr std::chrono::milliseconds kScanTimeLimit{100};

// Server-wide state every connection shares.
class HBaseService {
 public:
  // `region` and `codec_service` must outlive the service.
  HBaseService(Region* region, rpc::Service* codec_service, ServerIdentity identity)
      : region_(region), codec_service_(codec_service), identity_(std::move(identity)) {
    members_.push_back(identity_);
  }

  Region* region() const { return region_; }
  // A heartbeat client's time per Scan call (kScanTimeLimit); set before serving.
  std::chrono::milliseconds scan_time_limit() const { return scan_time_limit_; }
  void set_scan_time_limit(std::chrono::milliseconds limit) { scan_time_limit_ = limit; }

  // Where every table's regions split and which of them this server holds;
  // set before serving. Without a cluster (null, or a plan of one server)
  // the server holds every region of `layout` (--regions-per-table) and
  // hbase:meta; a cluster member holds the regions of its plan's layout
  // that the plan gives it, and hbase:meta only as server 0.
  void Configure(RegionLayout layout, const ClusterMember* cluster);
  const RegionLayout& layout() const { return layout_; }
  uint32_t regions_per_table() const { return layout_.regions(); }
  // This server's place in its cluster; null without one.
  const ClusterMember* cluster() const { return cluster_ ? &*cluster_ : nullptr; }
  bool Holds(uint32_t region) const { return !cluster_ || cluster_->Holds(region); }
  bool ServesMeta() const { return !cluster_ || cluster_->ServesMeta(); }
  // Whether the codec's path answers calls: with one region per table, as
  // ever, or on a cluster member, whose gate (CallHandler::Admit) checks the
  // region is held and the row in it. A single server split in several
  // regions keeps the full path, its cost as it was.
  bool codec_path() const { return codec_path_; }

  rpc::Service* codec_service() const { return codec_service_; }
  const ServerIdentity& identity() const { return identity_; }
  // Sets who this server is, once it is bound (the port) and before it
  // serves; a cluster member's peers are named from the plan with the same
  // cluster id.
  void set_identity(ServerIdentity id);
  // Server k of the cluster as the catalog and the registry name it (k = 0
  // alone without a cluster: this server).
  const ServerIdentity& Member(uint32_t k) const { return members_[k]; }
  uint32_t members() const { return uint32_t(members_.size()); }
  // The server holding region `i` of every table.
  const ServerIdentity& HolderOf(uint32_t i) const {
    return members_[cluster_ ? cluster_->plan.ServerOfRegion(i) : 0];
  }

  // The scanner table: ids are never reused within a process. Open
  // scanners are bounded three ways: kMaxOpenScanners in all,
  // kMaxScannersPerConnection per connection, kMaxScannerBytes of keys,
  // columns and filters in all. A scan that ends in the call that opens it
  // (a region lookup, a small scan) never takes a slot (see FinishedId).
  static constexpr size_t kMaxOpenScanners = 10000;
  static constexpr size_t kMaxScannersPerConnection = 1000;
  static constexpr size_t kMaxScannerBytes = size_t{256} << 20;
  // An id for a connection's scanners.
  uint64_t NewOwner();
  // Opens `s` for s.owner; on a limit, 0 and `why` says which.
  uint64_t OpenScanner(Scanner s, std::string* why);
  // A fresh id, remembered as finished: for a scan that ended in its first call.
  uint64_t FinishedId();
  // Runs f(Scanner*) holding that scanner's own lock, never the table's:
  // the pointer is null for an unknown id. While f runs the scanner is
  // checked out (as RSRpcServices removes a scanner's lease for the length
  // of a call): its lease cannot run out and a close from another call
  // leaves it whole until f returns. Only calls on the same scanner wait for
  // each other; every other scanner, and hbase:meta, go on.
  template <typename F>
  auto WithScanner(uint64_t id, F&& f) {
    std::shared_ptr<ScannerSlot> slot = CheckOut(id);
    if (slot == nullptr) return f(static_cast<Scanner*>(nullptr));
    struct CheckInOnExit {
      HBaseService* service;
      ScannerSlot* slot;
      ~CheckInOnExit() { service->CheckIn(slot); }
    } check_in{this, slot.get()};
    std::lock_guard<std::mutex> run(slot->run);
    return f(&slot->scanner);
  }
  // Whether a call on scanner `id` may have to wait (a filter to evaluate,
  // or another call running it): the I/O thread hands such calls to a
  // handler thread. Takes the table's lock only.
  bool MayBlock(uint64_t id) const;
  // Renews scanner `id`'s lease (ScanRequest.renew); false when unknown.
  bool Renew(uint64_t id);
  // Closes a scanner at the client's request (ScanRequest.close_scanner)
  // and, as FinishScanner, remembers its id.
  void CloseScanner(uint64_t id);
  // Closes a scanner that ran out of rows and remembers its id (the last
  // kRememberedScanners of them), as HBase 2's RSRpcServices keeps its
  // closedScanners: a later call on it (a 0.96/0.98-protocol client such as
  // the npm client calls once more; an old client's close) is answered with
  // an empty ScanResponse, not UnknownScannerException.
  void FinishScanner(uint64_t id);
  bool WasFinished(uint64_t id) const;
  static constexpr size_t kRememberedScanners = 4096;
  // Closes scanners unused for longer than the lease (HBase's
  // hbase.client.scanner.timeout.period, 60 s); OpenScanner calls it.
  void ExpireScanners(uint64_t now_ms);
  size_t open_scanners() const;

  // A filter is held in the scanner budget while it is parsed and used: its
  // parse can take some twenty times its wire size (a million column
  // prefixes, timestamps), so a call reserves kFilterParseFactor times the
  // filter's wire size before parsing it and releases it when done. False,
  // with `why`, when the budget cannot take it.
  static constexpr size_t kFilterParseFactor = 24;
  bool ReserveFilter(size_t wire_bytes, size_t* reserved, std::string* why);
  void ReleaseFilter(size_t reserved);
  // Opens refused at a limit, since start.
  uint64_t refused_scanners() const;

 private:
  // An open scanner: `run` is held by the call running it; `running`,
  // `scanner.last_used_ms`, `.owner` and `.bytes` are the table's (under
  // mu_), the rest the running call's.
  struct ScannerSlot {
    std::mutex run;
    Scanner scanner;
    int running = 0;  // Calls that checked it out and have not checked it in.
  };
  using Table = std::map<uint64_t, std::shared_ptr<ScannerSlot>>;
  // The slot of `id` with its lease renewed and `running` counted, or null.
  std::shared_ptr<ScannerSlot> CheckOut(uint64_t id);
  void CheckIn(ScannerSlot* slot);
  // REQUIRES: mu_. Whether the slot's lease ran out (never while a call runs it).
  static bool Expired(const ScannerSlot& slot, uint64_t now_ms);
  // REQUIRES: mu_. An open scanner by id; end() when unknown or expired
  // (and then freed).
  Table::iterator FindLocked(uint64_t id, uint64_t now_ms);
  void EraseLocked(Table::iterator it);

  Region* region_;
  rpc::Service* codec_service_;
  ServerIdentity identity_;
  RegionLayout layout_;
  std::optional<ClusterMember> cluster_;  // Set only for a plan of several servers.
  bool codec_path_ = true;
  std::vector<ServerIdentity> members_;  // By server index; identity_ among them.
  mutable std::mutex mu_;
  uint64_t next_scanner_ = 1;
  std::chrono::milliseconds scan_time_limit_ = kScanTimeLimit;
  Table scanners_;
  std::deque<uint64_t> finished_;  // Oldest first; at most kRememberedScanners.
  uint64_t next_owner_ = 1;
  std::map<uint64_t, size_t> per_owner_;  // Open scanners by owner.
  size_t scanner_bytes_ = 0;
  uint64_t refused_scanners_ = 0;
};

// A filter's reservation in the scanner budget (HBaseService::ReserveFilter),
// released when the hold goes out of scope.
class FilterHold {
 public:
  explicit FilterHold(HBaseService* service) : service_(service) {}
  ~FilterHold() {
    if (reserved_ > 0) service_->ReleaseFilter(reserved_);
  }
  FilterHold(const FilterHold&) = delete;
  FilterHold& operator=(const FilterHold&) = delete;
  // Reserves room to parse a filter of `wire_bytes`; an IOException saying
  // why when the budget cannot take it.
  Status Take(size_t wire_bytes) {
    std::string why;
    if (service_->ReserveFilter(wire_bytes, &reserved_, &why)) return Status::Ok();
    return Status::ResourceExhausted(std::string(exceptions::kIOException) + ": " + why);
  }

 private:
  HBaseService* service_;
  size_t reserved_ = 0;
};

// What a connection asks its server for: the Stats reply (the rpc layer's
// JSON, with `own_at_entry` the calling thread's counters when the call
// arrived, so the reply's own allocations are left out).
class StatsSource {
 public:
  virtual ~StatsSource() = default;
  virtual std::string StatsReply(const CounterTotals& own_at_entry) = 0;
};

// Writing replies. Each appends one whole reply (length word included).
// A ResponseHeader and, when `resp` is set, a response message.
void AppendReply(const hbase::ResponseHeader& h, const google::protobuf::MessageLite* resp,
                 ByteBuffer* out);
// An exception reply: ResponseHeader {call_id, exception {class, text,
// do_not_retry}}, no response message.
void AppendExceptionReply(uint32_t call_id, std::string_view exception_class,
                          std::string_view message, bool do_not_retry, ByteBuffer* out);

}  // namespace wirebench::hbaserpc
