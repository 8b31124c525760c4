// HdrHistogram interval logs (.hlog, "Histogram log format version 1.3"), as
// HdrHistogram's Java HistogramLogWriter writes them and HistogramLogReader /
// HistogramLogProcessor read them:
//
//   #[Histogram log format version 1.3]
//   #[StartTime: 1700000000.000 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]
//   #[BaseTime: 1700000000.000 (seconds since epoch)]
//   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
//   Tag=READ,0.000,10.000,1.234,HISTFAAAA...
//
// Data line columns: optional `Tag=<tag>,`; the interval start in seconds
// since BaseTime (%.3f); the interval LENGTH in seconds (%.3f, not its end);
// the interval's max value divided by max_value_unit_ratio (%.3f; 1e6 by
// default, HdrHistogram's default, so with nanosecond values the column is in
// milliseconds, which is what HistogramLogProcessor and jHiccup's plots
// assume); the base64 V2 compressed histogram (histogram_encoding.h).
// Numbers are printed in the C locale (wirebench never calls setlocale).
//
// Thread-safety: a writer or a parse is used by one thread at a time.
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "hdr/histogram.h"
#include "common/status.h"

namespace wirebench::hdr {

inline constexpr std::string_view kHistogramLogFormatVersion = "1.3";

struct HistogramLogWriterOptions {
  // The Interval_Max column is the histogram's Max() divided by this.
  // Default 1e6, HdrHistogram's default: nanoseconds are logged as ms.
  double max_value_unit_ratio = 1e6;
  // zlib level of the compressed histograms (9, as HistogramLogWriter).
  int zlib_level = 9;
};

class HistogramLogWriter {
 public:
  // Writes to *out, which must outlive the writer; the writer does not own it.
  explicit HistogramLogWriter(std::ostream* out, const HistogramLogWriterOptions& options = {});
  // Opens (truncates) `path` and writes to it; the writer owns the file.
  [[nodiscard]] static StatusOr<std::unique_ptr<HistogramLogWriter>> Open(
      const std::string& path, const HistogramLogWriterOptions& options = {});

  HistogramLogWriter(const HistogramLogWriter&) = delete;
  HistogramLogWriter& operator=(const HistogramLogWriter&) = delete;

  // "#<comment>", e.g. WriteComment("[Logging for: READ]") as YCSB does.
  [[nodiscard]] Status WriteComment(std::string_view comment);
  // The format-version line, "#[StartTime: ...]", "#[BaseTime: ...]" and the
  // legend. Interval start times are then given relative to base_time_ms.
  [[nodiscard]] Status WriteHeader(int64_t start_time_ms_since_epoch, int64_t base_time_ms_since_epoch);
  // One interval line. `tag` may be empty (no Tag= column); otherwise it
  // must not contain commas, spaces or line breaks (HdrHistogram's rule).
  [[nodiscard]] Status WriteInterval(std::string_view tag, double start_sec_since_base,
                                     double length_sec, const Histogram& histogram);
  [[nodiscard]] Status Flush();

 private:
  HistogramLogWriter(std::unique_ptr<std::ofstream> file, const HistogramLogWriterOptions& options);
  Status Put(const std::string& line);

  std::unique_ptr<std::ofstream> file_;  // Set when opened by path.
  std::ostream* out_;
  HistogramLogWriterOptions options_;
};

// The individual lines (each ending in '\n'), for callers that write
// elsewhere and for tests.
std::string FormatLogVersionLine();
std::string FormatStartTimeLine(int64_t start_time_ms_since_epoch);
std::string FormatBaseTimeLine(int64_t base_time_ms_since_epoch);
std::string FormatLegendLine();
// REQUIRES: tag contains no ',', ' ', '\r' or '\n' (see ValidateLogTag).
std::string FormatIntervalLine(std::string_view tag, double start_sec_since_base, double length_sec,
                               double max_column, std::string_view base64_histogram);
[[nodiscard]] Status ValidateLogTag(std::string_view tag);

// One interval read back from a log.
struct HistogramLogEntry {
  std::string tag;          // Empty when the line has no Tag= column.
  double start_sec = 0;     // As written (seconds since BaseTime).
  double length_sec = 0;    // Interval length in seconds.
  double max_column = 0;    // The Interval_Max column as written.
  Histogram histogram;
};

struct HistogramLog {
  std::string format_version;          // e.g. "1.3"; empty if the line is missing.
  std::optional<double> start_time_sec;  // From #[StartTime: ...].
  std::optional<double> base_time_sec;   // From #[BaseTime: ...].
  std::vector<HistogramLogEntry> intervals;
};

// Parses a whole log. Comment lines other than the three known headers and
// the legend are skipped; a malformed data line or histogram is an error
// naming the line number.
[[nodiscard]] StatusOr<HistogramLog> ParseHistogramLog(std::string_view text);
[[nodiscard]] StatusOr<HistogramLog> ReadHistogramLogFile(const std::string& path);

}  // namespace wirebench::hdr
