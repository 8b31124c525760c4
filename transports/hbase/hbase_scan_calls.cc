#include "codecs/schemas/Client.pb.h"
#include "transports/hbase/hbase_calls.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/thread_stats.h"
#include "transports/hbase/hbase_regions.h"


namespace wirebench::hbaserpc {

namespace {

// The rows a Scan call asks for, as RSRpcServices.scan reads them:
// number_of_rows when the call carries it (0 included: an opening call that
// reads nothing yet); else none for a close and, for a next, the scan's
// caching or, when that is 0 as well, one row, HBase 2's default. Never none
// for a next without number_of_rows: the client would be told more_results
// with no rows, and ask again, forever.
uint32_t RowsAsked(const hbase::ScanRequest& req, uint32_t caching) {
  if (req.has_number_of_rows()) return req.number_of_rows();
  if (req.close_scanner()) return 0;
  return caching > 0 ? caching : 1;
}

}  // namespace

void CallHandler::AddScanResult(hbase::Result* r, bool partial, hbase::ScanResponse* resp) {
  if (cell_blocks_) {
    resp->add_cells_per_result(uint32_t(r->associated_cell_count()));
  } else {
    resp->add_results()->Swap(r);
  }
  resp->add_partial_flag_per_result(partial);
}

StatusOr<bool> CallHandler::ScanBatch(Scanner* s, uint32_t max_rows,
                                      ScanClock::time_point deadline, hbase::ScanResponse* resp) {
  if (max_rows == 0) return true;
  if (s->meta) return MetaScanBatch(s, max_rows, resp);
  uint64_t bytes = 0;  // The reply's, about (for the size limit).
  std::vector<Column> cols;
  for (const auto& col : s->columns) cols.push_back(Column{ByteView(col.first), ByteView(col.second)});
  uint32_t n = 0;
  bool examined = false;  // A row was read in this call (the time limit lets one through).
  for (;;) {
    if (s->filter && s->filter->FilterAllRemaining()) return false;
    ScanRequest sr;
    sr.table = ByteView(s->table);
    sr.reversed = s->reversed;
    if (s->started) {
      sr.start_row = ByteView(s->next_row);
      sr.include_start = false;
    } else {
      sr.start_row = ByteView(s->start_row);
      sr.include_start = s->include_start;
    }
    sr.stop_row = ByteView(s->stop_row);
    sr.include_stop = s->include_stop;
    if (s->cut_by_region) {  // The region's bound is nearer than the scan's.
      sr.stop_row = ByteView(s->reversed ? s->region_start : s->region_end);
      sr.include_stop = s->reversed;  // A region holds its start key, not its end key.
    }
    // In steps, so that a batch cut short by its size limit reads little more.
    sr.number_of_rows = std::min<uint32_t>(max_rows - n, kScanStepRows);
    sr.columns = std::span<const Column>(cols.data(), cols.size());
    sr.time_range = s->time_range;
    sr.max_versions = s->filter ? UINT32_MAX : s->max_versions;
    ScanResponse r;
    WB_RETURN_IF_ERROR(service_->region()->Scan(sr, &scratch_, &r));
    for (const Result& res : r.results) {
      if (res.cells.empty()) continue;
      // HBase's heartbeat: past the time limit the call answers what it has,
      // between rows (so never a partial row), and the client asks again.
      if (examined && ScanClock::now() >= deadline) {
        resp->set_heartbeat_message(true);
        return true;
      }
      examined = true;
      const ByteView row = res.cells[0].row;
      s->started = true;
      s->next_row = row.ToString();
      std::span<const Cell> cells = res.cells;
      if (s->filter) {
        if (s->filter->FilterAllRemaining()) return false;
        filtered_.clear();
        filter_storage_.clear();
        if (!FilterOneRow(s->filter.get(), row, res.cells, s->max_versions, &filtered_,
                          &filter_storage_))
          continue;
        cells = std::span<const Cell>(filtered_.data(), filtered_.size());
      }
      // Scan.batch: a row's cells in Results of at most `batch` cells; all
      // but the last flagged partial (mayHaveMoreCellsInRow).
      const size_t step = s->batch > 0 ? s->batch : cells.size();
      for (size_t at = 0; at < cells.size(); at += step) {
        const size_t k = std::min(step, cells.size() - at);
        Result part;
        part.cells = cells.subspan(at, k);
        hbase::Result pr;
        EmitResult(part, ByteView(), &pr);
        AddScanResult(&pr, at + k < cells.size(), resp);
      }
      ++n;
      // HBase's ScannerContext size limit (Scan.max_result_size, at most the
      // server's): the batch ends after the row that reaches it, the scanner
      // stays open (more_results_in_region) and the next call goes on.
      for (const Cell& c : cells)
        bytes += c.row.size() + c.family.size() + c.qualifier.size() + c.value.size() +
                  kCellOverheadBytes;
      if (bytes >= s->max_result_size) return true;
    }
    if (!r.more_results) return false;
    if (n >= max_rows) return true;
  }
}

Status CallHandler::DoScan(const Call& c, hbase::ScanResponse* resp) {
  hbase::ScanRequest req;
  if (!req.ParseFromArray(c.param.data(), int(c.param.size())))
    return Status::InvalidArgument("malformed ScanRequest");
  if (!req.has_scanner_id()) return OpenScan(req, resp);
  return ContinueScan(req, resp);
}

Status CallHandler::ReadScan(const hbase::ScanRequest& req, Scanner* out) {
  if (!req.has_scan() || !req.has_region())
    return Status::InvalidArgument("a ScanRequest without scanner_id must carry region and scan");
  const ByteView region(req.region().value());
  const hbase::Scan& scan = req.scan();
  // HBase's Scan refuses these too; a scanner keeps its bounds for its life.
  for (const auto& [what, key] : {std::pair{"startRow", &scan.start_row()},
                                  std::pair{"stopRow", &scan.stop_row()}})
    if (key->size() > kMaxRowBytes)
      return Status::InvalidArgument(std::string("java.lang.IllegalArgumentException: ") + what +
                                     "'s length must be less than or equal to " +
                                     std::to_string(kMaxRowBytes) +
                                     " to meet the rowkey restriction (it is " +
                                     std::to_string(key->size()) + ")");
  Scanner& s = *out;
  s.meta = IsMetaRegion(region);
  if (!s.meta && region.empty())
    return Status::NotFound(std::string(exceptions::kNotServingRegion) +
                            ": the request names no region");
  // What the filter holds: the heap its parsing took, as counted by the
  // allocation hook (a filter of many small parts, say a million column
  // prefixes, takes tens of times its wire size); without the hook, an
  // estimate from its wire size.
  size_t filter_bytes = 4 * scan.filter().size();
  if (scan.has_filter() && !s.meta) {
    if (defer_filters_) return Defer();
    // Held while parsing; once open, the scanner's own bytes count the filter.
    FilterHold hold(service_);
    WB_RETURN_IF_ERROR(hold.Take(scan.filter().size()));
    const uint64_t before = ThisThreadTotals().alloc_bytes;
    auto f = ParseFilter(scan.filter());
    if (!f.ok()) return f.status();
    if (AllocationCountingActive())
      filter_bytes = std::max<size_t>(filter_bytes, ThisThreadTotals().alloc_bytes - before);
    s.filter = std::shared_ptr<Filter>(std::move(f).value());
  }
  auto tr = ReadTimeRange(scan.time_range());
  if (!tr.ok()) return tr.status();
  s.time_range = *tr;
  s.max_versions = std::max<uint32_t>(1, scan.max_versions());
  s.max_result_size = scan.max_result_size() > 0
                          ? std::min<uint64_t>(scan.max_result_size(), kServerMaxResultSize)
                          : kServerMaxResultSize;
  s.batch = scan.batch_size();
  s.caching = scan.caching();
  s.start_row = scan.start_row();
  s.include_start = scan.include_start_row();
  s.stop_row = scan.stop_row();
  s.include_stop = scan.include_stop_row();
  s.reversed = scan.reversed();
  for (const auto& col : scan.column()) {
    if (col.qualifier_size() == 0) s.columns.emplace_back(col.family(), "");
    for (const auto& q : col.qualifier()) s.columns.emplace_back(col.family(), q);
  }
  s.rows_left = req.limit_of_rows();
  if (s.meta) WB_RETURN_IF_ERROR(CheckRegionName(region, *service_));
  if (!s.meta) WB_RETURN_IF_ERROR(BoundToRegion(region, &s));
  if (s.meta) {
    s.table = std::string(TableOf(s.start_row));
    if (s.table.empty()) s.table = std::string(TableOf(s.stop_row));
  } else {
    s.table = std::string(TableOf(region.str()));
  }
  s.owner = owner_;
  s.bytes = sizeof(Scanner) + s.start_row.size() + s.stop_row.size() + s.table.size() +
            kMaxRowBytes /* next_row */ + filter_bytes;
  // A regex comparator's RE2 may grow to its memory budget as it runs.
  if (scan.filter().find("RegexStringComparator") != std::string::npos)
    s.bytes += kRegexMemoryBytes;
  for (const auto& [f, q] : s.columns) s.bytes += 32 + f.size() + q.size();
  return Status::Ok();
}

Status CallHandler::BoundToRegion(ByteView region, Scanner* s) {
  // Called for a name other than hbase:meta's: held, it is a region's.
  int index = -1;
  WB_RETURN_IF_ERROR(CheckRegionName(region, *service_, &index));
  s->region_start = service_->layout().StartKey(uint32_t(index));
  s->region_end = service_->layout().EndKey(uint32_t(index));
  // Start where the scan starts, within the region.
  if (!s->reversed) {
    if (s->start_row < s->region_start) {
      s->start_row = s->region_start;
      s->include_start = true;
    }
    s->cut_by_region = !s->region_end.empty() &&
                       (s->stop_row.empty() || s->stop_row > s->region_end ||
                        (s->stop_row == s->region_end && s->include_stop));
  } else {
    if (!s->region_end.empty() && (s->start_row.empty() || s->start_row >= s->region_end)) {
      // Reversed from the region's last key: its end key is not in it.
      s->start_row = s->region_end;
      s->include_start = false;
    }
    s->cut_by_region =
        !s->region_start.empty() && (s->stop_row.empty() || s->stop_row < s->region_start);
  }
  return Status::Ok();
}

Status CallHandler::OpenScan(const hbase::ScanRequest& req, hbase::ScanResponse* resp) {
  Scanner s;
  WB_RETURN_IF_ERROR(ReadScan(req, &s));
  const uint32_t rows = RowsAsked(req, s.caching);
  // The first batch runs before the scanner takes a slot: a scan that ends
  // here (a region lookup, a small scan, limit 1) never needs one.
  bool more = false;
  WB_RETURN_IF_ERROR(NextBatch(&s, req, rows, resp, &more));
  const bool cut_by_region = s.cut_by_region;
  uint64_t id;
  if (more && !req.close_scanner()) {
    std::string why;
    id = service_->OpenScanner(std::move(s), &why);
    if (id == 0) {
      resp->Clear();
      block_.Clear();
      return Status::ResourceExhausted(
          std::string(exceptions::kIOException) + ": " + why +
          ": close scanners (ScanRequest.close_scanner) when done, or let their leases (60 s) "
          "run out");
    }
  } else {
    id = service_->FinishedId();
  }
  resp->set_scanner_id(id);
  FinishReply(req, more, cut_by_region, resp);
  resp->set_ttl(kScannerLeaseMs);
  return Status::Ok();
}

Status CallHandler::ContinueScan(const hbase::ScanRequest& req, hbase::ScanResponse* resp) {
  const uint64_t id = req.scanner_id();
  // A filter's cost, or a wait for another call on the same scanner, is a
  // handler thread's to bear, never the I/O thread's.
  if (defer_filters_ && !req.renew() && service_->MayBlock(id)) return Defer();
  resp->set_scanner_id(id);
  if (req.renew()) {
    if (!service_->Renew(id))
      return Status::NotFound(std::string(exceptions::kUnknownScanner) + ": Unknown scanner '" +
                              std::to_string(id) + "'; it was closed, its lease expired, or it was never opened");
    return Status::Ok();  // HBase answers a renewal with the scanner id alone.
  }
  // The lease in every answer, as HBase 1.x sends it: the npm client re-arms
  // setTimeout(close, ttl) on each response and its Scan object goes on to
  // the next region after a region's last answer, so an answer without it
  // (ttl 0) closes the whole scan at once. HBase 2.x's Java client reads it
  // only from the opening answer, so both kinds of client work.
  resp->set_ttl(kScannerLeaseMs);
  Status st;
  bool known = true;
  bool cut_by_region = false;
  bool more = service_->WithScanner(id, [&](Scanner* s) {
    cut_by_region = s != nullptr && s->cut_by_region;
    if (s == nullptr) {
      known = false;
      return false;
    }
    bool m = false;
    st = NextBatch(s, req, RowsAsked(req, s->caching), resp, &m);
    return st.ok() && m;
  });
  if (!known) {
    // A call on a scanner that ran out of rows or was closed gets HBase's
    // empty ScanResponse (its scanner id alone: see FinishScanner); closing
    // what is already gone is not an error either.
    if (service_->WasFinished(id)) return Status::Ok();
    if (req.close_scanner()) {
      resp->set_more_results(false);
      resp->set_more_results_in_region(false);
      return Status::Ok();
    }
    return Status::NotFound(std::string(exceptions::kUnknownScanner) + ": Unknown scanner '" +
                            std::to_string(id) +
                            "'. This can happen due to any of the following reasons: the "
                            "scanner was closed, its lease expired, or it was never opened here");
  }
  if (!st.ok()) {
    if (st.message().substr(0, exceptions::kOutOfOrderScannerNext.size()) ==
        exceptions::kOutOfOrderScannerNext)
      service_->CloseScanner(id);
    return st;
  }
  if (req.close_scanner()) {
    service_->CloseScanner(id);
  } else if (!more) {
    service_->FinishScanner(id);
  }
  FinishReply(req, more, cut_by_region, resp);
  return Status::Ok();
}

Status CallHandler::NextBatch(Scanner* s, const hbase::ScanRequest& req, uint32_t rows,
                              hbase::ScanResponse* resp, bool* more) {
  *more = false;
  // As RSRpcServices.checkScanNextCallSeq: only a call that carries
  // next_call_seq is checked and moves it on (the call that opens a scanner
  // carries none: the Java client's first next sends 0).
  if (req.has_next_call_seq()) {
    if (req.next_call_seq() != s->next_call_seq)
      return Status::InvalidArgument(
          std::string(exceptions::kOutOfOrderScannerNext) + ": Expected nextCallSeq: " +
          std::to_string(s->next_call_seq) +
          " But the nextCallSeq got from client: " + std::to_string(req.next_call_seq()));
    ++s->next_call_seq;
  }
  uint32_t n = std::min(rows, kMaxBatchRows);
  if (s->rows_left > 0) n = uint32_t(std::min<uint64_t>(n, s->rows_left));
  const int before = cell_blocks_ ? resp->cells_per_result_size() : resp->results_size();
  // Only a client that handles heartbeats gets a call cut short by time (with
  // no rows, perhaps): HBase's own clients before 1.1 and the npm client take
  // a batch shorter than they asked for as the region's end and would skip
  // its remaining rows. Theirs run to their rows or size, as HBase runs
  // them, on a handler thread when filtered, holding only their scanner.
  const ScanClock::time_point deadline = req.client_handles_heartbeats()
                                             ? ScanClock::now() + service_->scan_time_limit()
                                             : ScanClock::time_point::max();
  auto b = ScanBatch(s, n, deadline, resp);
  if (!b.ok()) return b.status();
  if (s->rows_left > 0) {
    // Rows, not batch parts: count the Results that end a row.
    uint64_t got = 0;
    for (int i = before; i < resp->partial_flag_per_result_size(); ++i)
      if (!resp->partial_flag_per_result(i)) ++got;
    s->rows_left -= std::min<uint64_t>(s->rows_left, got);
    if (s->rows_left == 0) return Status::Ok();
  }
  *more = *b;
  return Status::Ok();
}

void CallHandler::FinishReply(const hbase::ScanRequest& req, bool more, bool cut_by_region,
                              hbase::ScanResponse* resp) {
  // A scan that goes on past its region: HBase 2 says more results, none in
  // this region, and the client moves to the next region.
  resp->set_more_results((more || cut_by_region) && !req.close_scanner());
  resp->set_more_results_in_region(more);
}

}  // namespace wirebench::hbaserpc
