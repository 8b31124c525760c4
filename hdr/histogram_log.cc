#include "hdr/histogram_log.h"

#include <time.h>

#include <charconv>
#include <ctime>
#include <cstdio>
#include <iterator>
#include <sstream>

#include "hdr/histogram_encoding.h"
#include "common/str_cat.h"

namespace wirebench::hdr {

std::string FormatLogVersionLine() {
  return "#[Histogram log format version " + std::string(kHistogramLogFormatVersion) + "]\n";
}

std::string FormatStartTimeLine(int64_t start_time_ms) {
  // Java's Date.toString() shape ("EEE MMM dd HH:mm:ss zzz yyyy"), in UTC.
  const time_t secs = static_cast<time_t>(start_time_ms / 1000);
  struct tm tm_utc;
  gmtime_r(&secs, &tm_utc);
  char date[64];
  std::strftime(date, sizeof(date), "%a %b %d %H:%M:%S UTC %Y", &tm_utc);
  char line[160];
  std::snprintf(line, sizeof(line), "#[StartTime: %.3f (seconds since epoch), %s]\n",
                static_cast<double>(start_time_ms) / 1000.0, date);
  return line;
}

std::string FormatBaseTimeLine(int64_t base_time_ms) {
  char line[96];
  std::snprintf(line, sizeof(line), "#[BaseTime: %.3f (seconds since epoch)]\n",
                static_cast<double>(base_time_ms) / 1000.0);
  return line;
}

std::string FormatLegendLine() {
  return "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n";
}

Status ValidateLogTag(std::string_view tag) {
  if (tag.find_first_of(", \r\n") != std::string_view::npos) {
    return Status::InvalidArgument("hlog: tag '" + std::string(tag) +
                                   "' contains a comma, space or line break; use a plain name like READ");
  }
  return Status::Ok();
}

std::string FormatIntervalLine(std::string_view tag, double start_sec, double length_sec,
                               double max_column, std::string_view base64_histogram) {
  char numbers[128];
  std::snprintf(numbers, sizeof(numbers), "%.3f,%.3f,%.3f,", start_sec, length_sec, max_column);
  std::string line;
  line.reserve(tag.size() + 5 + sizeof(numbers) + base64_histogram.size() + 1);
  if (!tag.empty()) {
    line += "Tag=";
    line += tag;
    line += ',';
  }
  line += numbers;
  line += base64_histogram;
  line += '\n';
  return line;
}

HistogramLogWriter::HistogramLogWriter(std::ostream* out, const HistogramLogWriterOptions& options)
    : out_(out), options_(options) {}

HistogramLogWriter::HistogramLogWriter(std::unique_ptr<std::ofstream> file,
                                       const HistogramLogWriterOptions& options)
    : file_(std::move(file)), out_(file_.get()), options_(options) {}

StatusOr<std::unique_ptr<HistogramLogWriter>> HistogramLogWriter::Open(
    const std::string& path, const HistogramLogWriterOptions& options) {
  auto file = std::make_unique<std::ofstream>(path, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!file->is_open()) {
    return Status::IoError("hlog: cannot open '" + path + "' for writing; check the directory exists");
  }
  return std::unique_ptr<HistogramLogWriter>(new HistogramLogWriter(std::move(file), options));
}

Status HistogramLogWriter::Put(const std::string& line) {
  out_->write(line.data(), static_cast<std::streamsize>(line.size()));
  if (!*out_) return Status::IoError("hlog: write failed (disk full or stream closed?)");
  return Status::Ok();
}

Status HistogramLogWriter::WriteComment(std::string_view comment) {
  if (comment.find_first_of("\r\n") != std::string_view::npos) {
    return Status::InvalidArgument("hlog: a comment must be a single line");
  }
  return Put(StrCat("#", comment, "\n"));
}

Status HistogramLogWriter::WriteHeader(int64_t start_time_ms, int64_t base_time_ms) {
  WB_RETURN_IF_ERROR(Put(FormatLogVersionLine()));
  WB_RETURN_IF_ERROR(Put(FormatStartTimeLine(start_time_ms)));
  WB_RETURN_IF_ERROR(Put(FormatBaseTimeLine(base_time_ms)));
  return Put(FormatLegendLine());
}

Status HistogramLogWriter::WriteInterval(std::string_view tag, double start_sec, double length_sec,
                                         const Histogram& histogram) {
  WB_RETURN_IF_ERROR(ValidateLogTag(tag));
  const double max_column = static_cast<double>(histogram.Max()) / options_.max_value_unit_ratio;
  return Put(FormatIntervalLine(tag, start_sec, length_sec, max_column,
                                EncodeCompressedBase64(histogram, options_.zlib_level)));
}

Status HistogramLogWriter::Flush() {
  out_->flush();
  if (!*out_) return Status::IoError("hlog: flush failed");
  return Status::Ok();
}

namespace {

bool ParseDouble(std::string_view s, double* out) {
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

// The number that follows `prefix` up to the next space or ']'.
bool ParseHeaderNumber(std::string_view line, std::string_view prefix, double* out) {
  std::string_view rest = line.substr(prefix.size());
  const size_t stop = rest.find_first_of(" ]");
  return ParseDouble(rest.substr(0, stop), out);
}

Status LineError(size_t line_no, const std::string& what) {
  return Status::Corruption("hlog line " + std::to_string(line_no) + ": " + what);
}

Status ParseDataLine(std::string_view line, size_t line_no, HistogramLogEntry* entry) {
  constexpr std::string_view kTag = "Tag=";
  if (line.substr(0, kTag.size()) == kTag) {
    const size_t comma = line.find(',');
    if (comma == std::string_view::npos) return LineError(line_no, "Tag= without a following comma");
    entry->tag = std::string(line.substr(kTag.size(), comma - kTag.size()));
    line.remove_prefix(comma + 1);
  }
  std::string_view fields[4];
  for (int i = 0; i < 3; ++i) {
    const size_t comma = line.find(',');
    if (comma == std::string_view::npos) {
      return LineError(line_no, "expected 4 comma-separated columns (start, length, max, histogram)");
    }
    fields[i] = line.substr(0, comma);
    line.remove_prefix(comma + 1);
  }
  fields[3] = line;
  if (!ParseDouble(fields[0], &entry->start_sec)) return LineError(line_no, "bad start timestamp");
  if (!ParseDouble(fields[1], &entry->length_sec)) return LineError(line_no, "bad interval length");
  if (!ParseDouble(fields[2], &entry->max_column)) return LineError(line_no, "bad interval max");
  StatusOr<Histogram> h = DecodeCompressedBase64(fields[3]);
  if (!h.ok()) return LineError(line_no, h.status().ToString());
  entry->histogram = std::move(h).value();
  return Status::Ok();
}

}  // namespace

StatusOr<HistogramLog> ParseHistogramLog(std::string_view text) {
  constexpr std::string_view kVersion = "#[Histogram log format version ";
  constexpr std::string_view kStartTime = "#[StartTime: ";
  constexpr std::string_view kBaseTime = "#[BaseTime: ";
  HistogramLog log;
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '"') continue;  // Blank or legend.
    if (line.front() == '#') {
      if (line.substr(0, kVersion.size()) == kVersion) {
        const size_t close = line.find(']', kVersion.size());
        log.format_version = std::string(line.substr(kVersion.size(), close - kVersion.size()));
      } else if (line.substr(0, kStartTime.size()) == kStartTime) {
        double v;
        if (!ParseHeaderNumber(line, kStartTime, &v)) return LineError(line_no, "bad StartTime");
        log.start_time_sec = v;
      } else if (line.substr(0, kBaseTime.size()) == kBaseTime) {
        double v;
        if (!ParseHeaderNumber(line, kBaseTime, &v)) return LineError(line_no, "bad BaseTime");
        log.base_time_sec = v;
      }
      continue;
    }
    HistogramLogEntry entry;
    WB_RETURN_IF_ERROR(ParseDataLine(line, line_no, &entry));
    log.intervals.push_back(std::move(entry));
  }
  return log;
}

StatusOr<HistogramLog> ReadHistogramLogFile(const std::string& path) {
  std::ifstream in(path, std::ios::in | std::ios::binary);
  if (!in.is_open()) return Status::IoError("hlog: cannot open '" + path + "' for reading");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Status::IoError("hlog: read of '" + path + "' failed");
  return ParseHistogramLog(text);
}

}  // namespace wirebench::hdr
