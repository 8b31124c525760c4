// The calls of one HBase connection (its bytes read by hbase_protocol.h):
// ClientService's Get, Mutate, Multi and Scan over the region, the
// hbase:meta catalog, ClientMetaService, and wirebench's Stats and Ping.
// One class, its members in a file per kind of call: hbase_calls.cc (the way
// in and the codec's hot path), hbase_get_calls.cc, hbase_mutate_calls.cc,
// hbase_multi_calls.cc, hbase_scan_calls.cc, hbase_meta_calls.cc.
// Thread-safety: one instance per connection, used by its thread only.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "codecs/schemas/Client.pb.h"
#include "codecs/wire_reader.h"
#include "nullregion/region_service.h"
#include "transports/hbase/hbase_service.h"

namespace wirebench::hbaserpc {

class CallHandler final : private RequestGate {
 public:
  // `cell_blocks`: the connection announced KeyValueCodec. `meta_service`:
  // its service is ClientMetaService (else ClientService).
  CallHandler(HBaseService* service, StatsSource* stats_source, HBaseIoStats* stats,
              bool cell_blocks, bool meta_service);
  ~CallHandler();

  // Handles one call: `body` is everything after the call's length word.
  // Appends the whole reply (its length word included) to `out` and returns
  // true; or, when filters are deferred and the call would evaluate one,
  // returns false having written, counted and changed nothing: the caller
  // runs it again on a handler thread with filters not deferred.
  [[gnu::flatten]] bool Handle(ByteView body, ByteBuffer* out);

  // Whether calls that evaluate a filter (a Get or a Multi's Get with one, a
  // Scan opening or continuing a filtered scanner) are handed back (see
  // Handle). The I/O thread defers them: a filter's cost depends on the
  // caller's pattern and the data, and must not hold every connection.
  void set_defer_filters(bool defer) { defer_filters_ = defer; }
  // Where the handler's counters go (the thread it runs on owns them).
  void set_stats(HBaseIoStats* stats) { stats_ = stats; }

 private:
  // The parsed call: id, method, param, cell block.
  struct Call {
    uint32_t id = kNoCallId;
    std::string_view method;
    bool has_param = false;
    ByteView param;
    ByteView block;
  };

  // The codec's path: the codec decodes the call (refusing what it cannot
  // carry), Admit checks what it read, the region answers; false (nothing
  // written) when either refused, and the full path answers.
  bool TryFast(Method m, const Call& c, ByteView body, ByteBuffer* out);
  // RequestGate: the requests the codec's path answers (hbase_calls.cc says which).
  bool Admit(MutateRequest* r) override;
  bool Admit(GetRequest* r) override;
  bool Admit(ScanRequest* r) override;
  bool Admit(MultiRequest* r) override;
  // The table of `region` when the codec's path answers calls on it: the
  // table's one region (not the catalog's), or with several regions per
  // table one this server holds (HeldRegion).
  bool RegionTable(ByteView region, ByteView* table);
  // With several regions per table: `region` names one this server holds;
  // known_region_ and known_index_ then name it, for InRegion.
  bool HeldRegion(ByteView region, ByteView* table);
  // Whether `row` is in the region RegionTable admitted last (always, with
  // one region per table); else the full path answers WrongRegionException.
  bool InRegion(ByteView row) const;
  // With one region per table: `name` is its region's name in the new
  // format, "T,,1.ENCODED." (`table`: the length of T); RegionTable checks
  // the old, "T,,1", itself.
  bool NewFormatRegionName(ByteView name, size_t table);
  void HandleClient(const Call& c, ByteBuffer* out);
  void HandleMeta(const Call& c, ByteBuffer* out);
  void HandleWirebench(const Call& c, ByteBuffer* out);

  Status DoGet(const Call& c, hbase::GetResponse* resp);
  Status DoMutate(const Call& c, hbase::MutateResponse* resp);
  Status DoMulti(const Call& c, hbase::MultiResponse* resp);
  Status DoScan(const Call& c, hbase::ScanResponse* resp);

  // A Scan that opens a scanner, and one that continues (or closes, or
  // renews) an open one.
  Status OpenScan(const hbase::ScanRequest& req, hbase::ScanResponse* resp);
  Status ContinueScan(const hbase::ScanRequest& req, hbase::ScanResponse* resp);
  // The scanner a ScanRequest opens: its bounds, columns, filter, limits.
  Status ReadScan(const hbase::ScanRequest& req, Scanner* out);
  // With several regions per table: the scan kept within the named region
  // (NotServingRegionException when the name is none of the table's).
  Status BoundToRegion(ByteView region, Scanner* s);
  // A Multi's region action under a condition: all of its mutations or
  // none, in one atomic step; *processed when they were applied.
  Status ConditionalActions(const hbase::RegionAction& ra, const hbase::Condition& cond,
                            WireReader* block, hbase::RegionActionResult* rar,
                            bool* processed);
  // A Multi's region action without a condition: each action on its own.
  Status RegionActions(const hbase::RegionAction& ra, WireReader* block,
                       hbase::RegionActionResult* rar);

  // Reads a MutationProto (and its cells, from the message or the call's
  // cell block) into `cells` and returns the model's mutation.
  Status ReadMutation(const hbase::MutationProto& p, WireReader* block, Mutation* out,
                      std::vector<Cell>* cells);
  // Applies one mutation as HBase would; fills `result` for increments and
  // appends (the new values).
  Status ApplyMutation(ByteView region_name, const hbase::MutationProto& p,
                       WireReader* block, hbase::Result* result);
  // NotServingRegionException (as a status) unless the region named holds `row`.
  Status CheckRow(ByteView region_name, ByteView row);
  // A Condition message as the model's (its value kept in condition_value_).
  StatusOr<Condition> ReadCondition(const hbase::Condition& c);
  // A Get answered by the region or, on hbase:meta, by the catalog.
  Status GetRow(ByteView region_name, const hbase::Get& g, hbase::Result* out);
  // A Get on hbase:meta: a table's state row or a region's row.
  Status GetMetaRow(const hbase::Get& g, hbase::Result* out);
  // Writes the result's cells into the reply: into the cell block on a
  // KeyValueCodec connection, else into the message. `row` overrides the
  // cells' row when not empty.
  void EmitResult(const Result& r, ByteView row, hbase::Result* out);
  // The catalog's row for `table` ("T,,1"), cells as the catalog answers them.
  void CatalogRow(std::string_view table, uint32_t index, const std::vector<std::string>& families,
                  hbase::Result* out);
  void TableStateRow(ByteView row, hbase::Result* out);
  using ScanClock = std::chrono::steady_clock;
  // One batch of an open scanner; false when the scanner is exhausted. Past
  // `deadline` (after one row at least) it ends early, flagged
  // heartbeat_message, with rows left (true).
  StatusOr<bool> ScanBatch(Scanner* s, uint32_t max_rows, ScanClock::time_point deadline,
                           hbase::ScanResponse* resp);
  // ScanBatch on hbase:meta: the catalog's rows of the scanned table.
  StatusOr<bool> MetaScanBatch(Scanner* s, uint32_t max_rows, hbase::ScanResponse* resp);
  // Adds one Result to a Scan reply (its cells already emitted).
  void AddScanResult(hbase::Result* r, bool partial, hbase::ScanResponse* resp);
  // A Scan call's batch of `rows` rows from `s` (its call sequence checked,
  // its row limit kept); *more when the scanner has rows left.
  Status NextBatch(Scanner* s, const hbase::ScanRequest& req, uint32_t rows,
                   hbase::ScanResponse* resp, bool* more);
  // The reply's more_results and more_results_in_region (ttl: OpenScan).
  void FinishReply(const hbase::ScanRequest& req, bool more, bool cut_by_region,
                   hbase::ScanResponse* resp);

  // Hands the call back (see Handle): the status only ends the call's path.
  Status Defer() {
    deferred_ = true;
    return Status::Aborted("handed to a handler thread");
  }

  void Reply(uint32_t call_id, const google::protobuf::MessageLite& resp, ByteBuffer* out);
  void Fail(uint32_t call_id, std::string_view exception_class, std::string_view message,
            bool do_not_retry, ByteBuffer* out);

  HBaseService* service_;
  StatsSource* stats_source_;
  HBaseIoStats* stats_;
  bool cell_blocks_;
  bool meta_service_;
  uint64_t owner_;  // This connection's scanners' owner id.
  bool split_;      // Several regions per table (the service's layout, fixed while serving).
  bool defer_filters_ = false;
  bool deferred_ = false;  // The current call was handed back (see Handle).
  // The connection's codec (cellblock or pb), for the calls it can answer.
  std::unique_ptr<TableCallHandler> fast_;
  bool fast_failed_ = false;  // The codec could not be made: full path only.
  RegionScratch scratch_;
  // The last region name found good: a new-format name (NewFormatRegionName)
  // with one region per table, else any held region's (HeldRegion), whose
  // index is known_index_.
  std::string known_region_;
  uint32_t known_index_ = 0;
  ByteBuffer block_;  // The reply's cell block, built while the response is.
  std::vector<Cell> mutation_cells_;
  std::string condition_value_;
  std::vector<Cell> filtered_;              // A row's cells that passed a filter.
  std::deque<std::string> filter_storage_;  // Values a filter rewrote.
};

}  // namespace wirebench::hbaserpc
