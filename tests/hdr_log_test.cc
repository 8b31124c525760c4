// Tests for .hlog interval logs (format 1.3): the exact header, legend and
// interval lines, writing to a file and reading it back, reading a log
// written by HdrHistogram's Java HistogramLogWriter, and rejection of bad
// tags and malformed lines.
#include "hdr/histogram_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "hdr/histogram_encoding.h"

namespace wirebench::hdr {
namespace {

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(HdrLog, HeaderLinesAreExact) {
  EXPECT_EQ(FormatLogVersionLine(), "#[Histogram log format version 1.3]\n");
  // 1700000000 s since the epoch is Tuesday 2023-11-14 22:13:20 UTC.
  EXPECT_EQ(FormatStartTimeLine(1'700'000'000'123),
            "#[StartTime: 1700000000.123 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]\n");
  EXPECT_EQ(FormatBaseTimeLine(1'700'000'000'120), "#[BaseTime: 1700000000.120 (seconds since epoch)]\n");
  EXPECT_EQ(FormatLegendLine(),
            "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n");
  EXPECT_EQ(FormatIntervalLine("READ", 1.5, 10.0, 0.25, "HISTFAAA"), "Tag=READ,1.500,10.000,0.250,HISTFAAA\n");
  EXPECT_EQ(FormatIntervalLine("", 0.0004, 0.9996, 12.3456, "X"), "0.000,1.000,12.346,X\n");
}

TEST(HdrLog, WriterProducesHdrHistogramLines) {
  Histogram read;
  read.Record(1'234'567);  // Max() = 1234943 ns (top of its bucket) = 1.235 ms.
  read.Record(50'000);
  Histogram update;
  update.Record(2'000'000);
  std::ostringstream out;
  HistogramLogWriter writer(&out);
  ASSERT_TRUE(writer.WriteComment("[Logging for: wirebench]").ok());
  ASSERT_TRUE(writer.WriteHeader(1'700'000'000'000, 1'700'000'000'000).ok());
  ASSERT_TRUE(writer.WriteInterval("READ", 0.0, 10.0, read).ok());
  ASSERT_TRUE(writer.WriteInterval("UPDATE", 10.0, 9.5, update).ok());
  ASSERT_TRUE(writer.WriteInterval("", 19.5, 0.5, update).ok());
  ASSERT_TRUE(writer.Flush().ok());

  const std::vector<std::string> lines = SplitLines(out.str());
  ASSERT_EQ(lines.size(), 8u) << out.str();
  EXPECT_EQ(lines[0], "#[Logging for: wirebench]");
  EXPECT_EQ(lines[1], "#[Histogram log format version 1.3]");
  EXPECT_EQ(lines[2], "#[StartTime: 1700000000.000 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]");
  EXPECT_EQ(lines[3], "#[BaseTime: 1700000000.000 (seconds since epoch)]");
  EXPECT_EQ(lines[4], "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"");
  // Column 2 is the interval length (9.500 for [10.0, 19.5)), not its end.
  EXPECT_EQ(lines[5], "Tag=READ,0.000,10.000,1.235," + EncodeCompressedBase64(read));
  EXPECT_EQ(lines[6], "Tag=UPDATE,10.000,9.500,2.001," + EncodeCompressedBase64(update));
  EXPECT_EQ(lines[7], "19.500,0.500,2.001," + EncodeCompressedBase64(update));

  StatusOr<HistogramLog> log = ParseHistogramLog(out.str());
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  EXPECT_EQ(log->format_version, "1.3");
  ASSERT_TRUE(log->start_time_sec.has_value());
  EXPECT_DOUBLE_EQ(*log->start_time_sec, 1'700'000'000.0);
  ASSERT_TRUE(log->base_time_sec.has_value());
  ASSERT_EQ(log->intervals.size(), 3u);
  EXPECT_EQ(log->intervals[0].tag, "READ");
  EXPECT_EQ(log->intervals[1].tag, "UPDATE");
  EXPECT_EQ(log->intervals[2].tag, "");
  EXPECT_DOUBLE_EQ(log->intervals[1].start_sec, 10.0);
  EXPECT_DOUBLE_EQ(log->intervals[1].length_sec, 9.5);
  EXPECT_DOUBLE_EQ(log->intervals[0].max_column, 1.235);
  const Histogram& back = log->intervals[0].histogram;
  EXPECT_EQ(back.total_count(), 2);
  for (int32_t i = 0; i < read.counts_array_length(); ++i) ASSERT_EQ(back.CountAtIndex(i), read.CountAtIndex(i));
}

TEST(HdrLog, MaxColumnUsesTheConfiguredUnitRatio) {
  Histogram h;
  h.Record(1500);  // Exact below 2048.
  std::ostringstream out;
  HistogramLogWriter writer(&out, {.max_value_unit_ratio = 1000.0});
  ASSERT_TRUE(writer.WriteInterval("R", 0, 1, h).ok());
  EXPECT_EQ(out.str().substr(0, 20), "Tag=R,0.000,1.000,1.");
  EXPECT_EQ(out.str().substr(0, 24), "Tag=R,0.000,1.000,1.500,");
}

TEST(HdrLog, RejectsTagsHdrHistogramCannotRead) {
  std::ostringstream out;
  HistogramLogWriter writer(&out);
  Histogram h;
  for (const char* tag : {"A,B", "A B", "A\nB", "A\rB"}) {
    const Status s = writer.WriteInterval(tag, 0, 1, h);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << tag;
  }
  EXPECT_TRUE(out.str().empty());
  EXPECT_FALSE(writer.WriteComment("two\nlines").ok());
}

TEST(HdrLog, FileRoundTrip) {
  const std::string path = testing::TempDir() + "hdr_log_test_" + std::to_string(getpid()) + ".hlog";
  Histogram h;
  for (int64_t v = 1000; v < 100'000'000; v = v * 11 / 10) h.Record(v);
  {
    StatusOr<std::unique_ptr<HistogramLogWriter>> writer = HistogramLogWriter::Open(path);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->WriteHeader(1'000'000, 1'000'000).ok());
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*writer)->WriteInterval("READ", i * 1.0, 1.0, h).ok());
    ASSERT_TRUE((*writer)->Flush().ok());
  }
  StatusOr<HistogramLog> log = ReadHistogramLogFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  ASSERT_EQ(log->intervals.size(), 3u);
  Histogram merged;
  for (const HistogramLogEntry& e : log->intervals) merged.Add(e.histogram);
  EXPECT_EQ(merged.total_count(), 3 * h.total_count());
  EXPECT_EQ(merged.ValueAtPercentile(99), h.ValueAtPercentile(99));
  EXPECT_FALSE(ReadHistogramLogFile(path).ok());  // Gone now: an IoError, not a crash.
  EXPECT_FALSE(HistogramLogWriter::Open("/nonexistent-dir/x.hlog").ok());
}

// HdrHistogram/HdrHistogram src/test/resources/org/HdrHistogram/
// tagged-non-monotonic.hlog, written by the Java HistogramLogWriter (public domain).
constexpr const char* kJavaLog =
    "#[Histogram log format version 1.2]\n"
    "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n"
    "Tag=A,2.133,1.001,0.426,HISTFAAAAD942pNpmSzMwMAgwwABTBDKT4GBgdnNYMcCBvsPEBE+Ph4OLgk5OSkeIS4+"
    "LgEeswIDo1+MbmdYNASYAA51CSo=\n"
    "Tag=A,3.134,1.001,0.426,HISTFAAAAD942pNpmSzMwMAgwwABTBDKT4GBgdnNYMcCBvsPEBExPiEpITEFGTkRKSEeOR6"
    "FkCg1hTeMXvNYlHhYABQ5CTo=\n"
    "Tag=B,0.127,1.007,2.769,HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GBgdnNYMcCBvsPEBEJISEuATEZMQ4uASkhIR4"
    "nrxg9v2lMaxhvMekILGZkKmcCAEf2CsI=\n"
    "Tag=B,1.134,0.999,0.442,HISTFAAAAEJ42pNpmSzMwMAgxwABTBDKT4GBgdnNYMcCBvsPEBEWLj45FTExAT4pBSEBKa6"
    "UkAgBi1uM7xjfMMlwMDABAC0CCjM=\n"
    "Tag=C,6.134,0.999,0.442,HISTFAAAAEF42pNpmSzMwMAgxwABTBDKT4GBgdnNYMcCBvsPEBEWIS4FITEhDiEJERE+GT6"
    "ZkhZGLbl7jEqrWHREmFgAIbAJMw==\n"
    "Tag=C,7.133,0.999,0.459,HISTFAAAAEJ42pNpmSzMwMCgwAABTBDKD8hndjPYsYDB/gNEhEtMQEBBTk5MQERCRkBEQEW"
    "lh9FJbg9jE+MS5ig1LhYmADkkCcE=\n";

TEST(HdrLog, ReadsALogWrittenByHdrHistogramJava) {
  StatusOr<HistogramLog> log = ParseHistogramLog(kJavaLog);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  EXPECT_EQ(log->format_version, "1.2");
  ASSERT_EQ(log->intervals.size(), 6u);
  const char* tags[] = {"A", "A", "B", "B", "C", "C"};
  for (size_t i = 0; i < 6; ++i) {
    const HistogramLogEntry& e = log->intervals[i];
    EXPECT_EQ(e.tag, tags[i]);
    // Re-format the max column from the decoded histogram: ns -> ms, %.3f.
    char max_ms[32];
    std::snprintf(max_ms, sizeof(max_ms), "%.3f", static_cast<double>(e.histogram.Max()) / 1e6);
    char column[32];
    std::snprintf(column, sizeof(column), "%.3f", e.max_column);
    EXPECT_STREQ(max_ms, column) << i;
  }
  EXPECT_DOUBLE_EQ(log->intervals[2].start_sec, 0.127);
  EXPECT_DOUBLE_EQ(log->intervals[2].length_sec, 1.007);
}

TEST(HdrLog, MalformedLinesNameTheirLine) {
  const std::string head = FormatLogVersionLine() + FormatLegendLine();
  const char* bad[] = {
      "Tag=READ,1.0,2.0\n",                 // Too few columns.
      "Tag=READ,x,2.0,3.0,HISTFAAA\n",      // Bad number.
      "1.0,2.0,3.0,HISTFAAAAD94\n",         // Truncated histogram.
      "Tag=READ\n",                         // Tag without columns.
      "1.0,2.0,3.0,not base64!\n",          // Bad base64.
  };
  for (const char* line : bad) {
    StatusOr<HistogramLog> log = ParseHistogramLog(head + line);
    ASSERT_FALSE(log.ok()) << line;
    EXPECT_NE(std::string(log.status().message()).find("line 3"), std::string::npos) << log.status().ToString();
  }
  // CRLF line ends and blank lines are accepted.
  Histogram h;
  h.Record(5);
  StatusOr<HistogramLog> crlf =
      ParseHistogramLog("#[Histogram log format version 1.3]\r\n\r\n0.000,1.000,0.000," +
                        EncodeCompressedBase64(h) + "\r\n");
  ASSERT_TRUE(crlf.ok()) << crlf.status().ToString();
  ASSERT_EQ(crlf->intervals.size(), 1u);
  EXPECT_EQ(crlf->intervals[0].histogram.total_count(), 1);
}

}  // namespace
}  // namespace wirebench::hdr
