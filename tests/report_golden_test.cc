// YCSB's text output, line for line, against golden files written from
// YCSB's rules (Double.toString averages of whole microseconds, long counts,
// <OP>-FAILED for non-OK statuses, OneMeasurementHistogram's lines); the
// cost lines say "unavailable" (never 0) when a figure could not be
// measured; and YCSB's JSON exporters parse back to the text report.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "bench/results/report.h"

namespace wirebench {
namespace {

RunResult MakeResult() {
  RunResult r;
  r.runtime_s = 2.5;
  r.operations = 1000;
  OpStats& read = r.ops[size_t(OpType::kRead)];
  OpStats& update = r.ops[size_t(OpType::kUpdate)];
  // i us and a half: each sample's bucket median truncates to i whole us, as
  // YCSB records it. Reads 1..550 us were OK, 551..600 us NOT_FOUND (in
  // `latency` too, as the driver records them).
  for (int i = 1; i <= 600; ++i) {
    read.latency.Record(int64_t(i) * 1000 + 500);
    if (i > 550) read.not_found_latency.Record(int64_t(i) * 1000 + 500);
  }
  read.results[size_t(OpResult::kOk)] = 550;
  read.results[size_t(OpResult::kNotFound)] = 50;
  for (int i = 1; i <= 399; ++i) update.latency.Record(int64_t(i) * 2000 + 500);  // 2..798 us
  update.failed_latency.Record(900'100);  // 900 us.
  update.results[size_t(OpResult::kOk)] = 399;
  update.results[size_t(OpResult::kError)] = 1;
  return r;
}

std::string Ycsb(const std::string& text) {
  // The YCSB part: everything before wirebench's own sections.
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line))
    if (line.rfind("[CLIENT]", 0) != 0 && line.rfind("[SERVER]", 0) != 0 &&
        line.rfind("[TOTAL]", 0) != 0 && line.rfind("[MEASURED]", 0) != 0)
      out += line + "\n";
  return out;
}

// [OVERALL] is YCSB's span (the client threads' whole
// run, every operation they did, throughput over whole ms as Client.java
// divides); the measured phase is under [MEASURED]. CLEANUP has latency
// lines and no Return= lines, as YCSB prints it.
TEST(ReportText, OverallIsTheWholeClientRunAndCleanupHasNoReturns) {
  RunResult r = MakeResult();
  r.client_run_s = 3.0004;  // 3000 ms.
  r.client_operations = 1201;
  OpStats& cleanup = r.ops[size_t(OpType::kCleanup)];
  for (int i = 0; i < 4; ++i) cleanup.latency.Record(2000 + i);  // 2 us each.
  cleanup.intended_latency.Record(2000);
  const std::string text = FormatTextReport(r, ComputeCosts(r), ReportOptions());
  EXPECT_NE(text.find("[OVERALL], RunTime(ms), 3000\n[OVERALL], Throughput(ops/sec), "
                      "400.3333333333333\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[MEASURED], RunTime(ms), 2500\n[MEASURED], Operations, 1000\n"
                      "[MEASURED], Throughput(ops/sec), 400.0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[CLEANUP], Operations, 4\n[CLEANUP], AverageLatency(us), 2.0\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("[CLEANUP], Return="), std::string::npos) << text;
  ReportOptions both;
  both.measurement_interval = "both";
  const std::string with_intended = FormatTextReport(r, ComputeCosts(r), both);
  EXPECT_NE(with_intended.find("[Intended-CLEANUP], Operations, 1\n"), std::string::npos)
      << with_intended;
}

// measurementtype raw, hdrhistogram+raw and timeseries from kept samples,
// by OneMeasurementRaw's and OneMeasurementTimeSeries's rules: raw ranks at
// (int)(n * q) of the sorted whole microseconds; time-series units named by
// their offset from the first sample, empty units skipped, each the mean of
// its whole microseconds; no percentile lines (master has none).
TEST(ReportText, RawAndTimeSeriesFollowYcsbRules) {
  RunResult r;
  r.runtime_s = 1;
  r.operations = 5;
  OpStats& update = r.ops[size_t(OpType::kUpdate)];
  r.samples_epoch_ns = 1'000'000'000'000'000;  // 1e15 ns: wall ms = 1e9 + steady ms.
  const int64_t at_ms[] = {0, 100, 250, 900, 901};
  const int64_t us[] = {10, 30, 20, 50, 40};
  for (int i = 0; i < 5; ++i) {
    update.latency.Record(us[i] * 1000 + 700);
    update.results[size_t(OpResult::kOk)]++;
    r.samples.push_back({at_ms[i] * 1'000'000 + 5'000, us[i] * 1000 + 700, -1, OpType::kUpdate,
                         OpResult::kOk, false});
  }
  ReportOptions o;
  o.measurement_type = "raw";
  std::string text = FormatTextReport(r, ComputeCosts(r), o);
  EXPECT_NE(text.find("[UPDATE], Total Operations, 5\n"
                      "[UPDATE], Below is a summary of latency in microseconds:, -1\n"
                      "[UPDATE], Average, 30.0\n[UPDATE], Min, 10\n[UPDATE], Max, 50\n"
                      "[UPDATE], p1, 10\n[UPDATE], p5, 10\n[UPDATE], p50, 30\n"
                      "[UPDATE], p90, 50\n[UPDATE], p95, 50\n[UPDATE], p99, 50\n"
                      "[UPDATE], p99.9, 50\n[UPDATE], p99.99, 50\n[UPDATE], Return=OK, 5\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(YcsbRawData(r, o),
            "UPDATE latency raw data: op, timestamp(ms), latency(us)\n"
            "UPDATE,1000000000,10\nUPDATE,1000000100,30\nUPDATE,1000000250,20\n"
            "UPDATE,1000000900,50\nUPDATE,1000000901,40\n");
  o.raw_no_summary = true;
  text = FormatTextReport(r, ComputeCosts(r), o);
  EXPECT_NE(text.find("[UPDATE], Total Operations, 5\n[UPDATE], Return=OK, 5\n"),
            std::string::npos)
      << text;
  o.raw_no_summary = false;
  o.measurement_type = "hdrhistogram+raw";
  text = FormatTextReport(r, ComputeCosts(r), o);
  EXPECT_NE(text.find("[HdrUPDATE], Return=OK, 5\n[RawUPDATE], Total Operations, 5\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("[RawUPDATE], Return="), std::string::npos) << text;
  EXPECT_EQ(YcsbRawData(r, o).rfind("RawUPDATE latency raw data:", 0), 0u);
  o.measurement_type = "timeseries";
  o.timeseries_granularity_ms = 200;
  text = FormatTextReport(r, ComputeCosts(r), o);
  EXPECT_NE(text.find("[UPDATE], Operations, 5\n[UPDATE], AverageLatency(us), 30.0\n"
                      "[UPDATE], MinLatency(us), 10\n[UPDATE], MaxLatency(us), 50\n"
                      "[UPDATE], Return=OK, 5\n"
                      "[UPDATE], 0, 20.0\n[UPDATE], 200, 20.0\n[UPDATE], 800, 45.0\n"),
            std::string::npos)
      << text;
}

TEST(ReportText, MatchesYcsbGoldenFile) {
  RunResult r = MakeResult();
  RunCosts c = ComputeCosts(r);
  ReportOptions o;
  const std::string text = FormatTextReport(r, c, o);
  const std::string path = std::string(WIREBENCH_SOURCE_DIR) + "/tests/golden/ycsb_text.txt";
  std::ifstream f(path);
  ASSERT_TRUE(f.good()) << path << "\nfor reference, got:\n" << Ycsb(text);
  std::stringstream golden;
  golden << f.rdbuf();
  EXPECT_EQ(Ycsb(text), golden.str()) << "got:\n" << text;
}

TEST(ReportText, UnmeasuredFiguresSayUnavailable) {
  RunResult r = MakeResult();  // No server Stats snapshots, no client threads.
  RunCosts c = ComputeCosts(r);
  const std::string text = FormatTextReport(r, c, ReportOptions{});
  EXPECT_NE(text.find("[SERVER], CpuPerOp(us), unavailable (server Stats not fetched)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[TOTAL], CpuPerOp(us), unavailable"), std::string::npos);
  EXPECT_NE(text.find("[CLIENT], CyclesPerOp, unavailable ("), std::string::npos) << text;
  EXPECT_EQ(text.find("[CLIENT], CyclesPerOp, 0"), std::string::npos);
  const nlohmann::json j = ResultToJson(r, c, ReportOptions{});
  EXPECT_FALSE(j["costs"]["server"]["available"].get<bool>());
  EXPECT_TRUE(j["costs"]["client"]["cycles_per_op"].is_null());
}

TEST(ReportText, PartialRunIsMarked) {
  RunResult r = MakeResult();
  r.partial = true;
  r.error = Status::Unavailable("connection to server 127.0.0.1:1 lost: closed by the server");
  const std::string text = FormatTextReport(r, ComputeCosts(r), ReportOptions{});
  EXPECT_NE(text.find("[OVERALL], Partial, true (Unavailable: connection to server"),
            std::string::npos)
      << text;
  EXPECT_TRUE(ResultToJson(r, ComputeCosts(r), ReportOptions{})["partial"].get<bool>());
}

// Reads the JSON values of an exporter's output, one after another (the
// object exporter writes root values separated by a space).
std::vector<nlohmann::json> ParseJsonValues(const std::string& doc) {
  std::istringstream in(doc);
  std::vector<nlohmann::json> out;
  in >> std::ws;
  while (in.peek() != std::char_traits<char>::eof()) {
    nlohmann::json j;
    in >> j;
    out.push_back(std::move(j));
    in >> std::ws;
  }
  return out;
}

// A run of the basic binding (YCSB's BasicDB, no server):
// [SERVER] is one line saying there is none, also with --instructions, and
// [TOTAL] is the client's own cost.
TEST(ReportText, NoServerIsSaidOnce) {
  RunResult r = MakeResult();
  r.client_usage.threads = 1;
  r.client_usage.cpu_ns = 2e6;
  r.server_stats_error = "no server";
  r.instructions.emplace();
  r.instructions->operations = 1000;
  r.instructions->client.available = true;
  r.instructions->client.total = 1700;
  r.instructions->server.unavailable_reason = "not co-located";
  ReportOptions o;
  o.no_server = true;
  const RunCosts c = ComputeCosts(r);
  std::vector<std::string> server;
  std::string total, client;
  for (const Measurement& m : ReportMeasurements(r, c, o)) {
    if (m.section == "SERVER") server.push_back(m.name + ", " + m.value);
    if (m.section == "TOTAL" && m.name == "CpuPerOp(us)") total = m.value;
    if (m.section == "CLIENT" && m.name == "CpuPerOp(us)") client = m.value;
  }
  EXPECT_EQ(server, std::vector<std::string>{"CpuPerOp(us), " + std::string(kNoServer)});
  EXPECT_EQ(total, client);
  EXPECT_EQ(client, "2.000");
}

// YCSB's exporters as its Jackson generator writes them,
// every value parsed back equal to the text report's, integral ones (YCSB's
// longs) as JSON integers and doubles as doubles.
TEST(ReportExport, JsonExportersParseToTheTextReport) {
  RunResult r = MakeResult();
  r.partial = true;
  r.error = Status::Aborted("stopped on request (SIGINT)");
  for (int i = 1; i <= 50; ++i) {
    r.schedule_lateness.Record(int64_t(i) * 777);
    r.timer_lateness.Record(int64_t(i) * 333);
    r.ops[size_t(OpType::kRead)].intended_latency.Record(int64_t(i) * 5000);
  }
  r.behind_schedule = 7;
  r.client_usage.threads = 1;
  r.client_usage.cpu_ns = 123456.789;
  r.server_before = {{"threads", nlohmann::json::array()}};
  r.server_after = {{"threads", nlohmann::json::array({{{"role", "server-io"}, {"tid", 1},
                                                        {"cpu_ns", 5e5}}})}};
  ReportOptions o;
  o.percentiles = {50, 99.9};
  o.measurement_interval = "both";
  const RunCosts c = ComputeCosts(r);
  const std::vector<Measurement> ms = ReportMeasurements(r, c, o);
  const std::string text = FormatTextReport(r, c, o);
  EXPECT_EQ(size_t(std::count(text.begin(), text.end(), '\n')), ms.size());
  // YCSB's exporter interface writes numbers only: the
  // text measurements (the partial run's reason, "unavailable (...)") are
  // left out of the JSON and handed back to the caller.
  std::vector<Measurement> numeric, text_only;
  for (const Measurement& m : ms) (m.number ? numeric : text_only).push_back(m);
  ASSERT_FALSE(text_only.empty());  // MakeResult has no counters; the run is partial.
  for (bool array : {false, true}) {
    SCOPED_TRACE(array ? "JSONArrayMeasurementsExporter" : "JSONMeasurementsExporter");
    std::vector<Measurement> left_out;
    const std::string doc = YcsbJsonExport(r, c, o, array, &left_out);
    ASSERT_EQ(left_out.size(), text_only.size());
    for (size_t i = 0; i < left_out.size(); ++i)
      EXPECT_EQ(left_out[i].section + left_out[i].name + left_out[i].value,
                text_only[i].section + text_only[i].name + text_only[i].value);
    std::vector<nlohmann::json> items = ParseJsonValues(doc);
    if (array) {
      ASSERT_EQ(items.size(), 1u);
      ASSERT_TRUE(items[0].is_array());
      items = std::vector<nlohmann::json>(items[0].begin(), items[0].end());
    }
    ASSERT_EQ(items.size(), numeric.size());
    for (size_t i = 0; i < numeric.size(); ++i) {
      const nlohmann::json& j = items[i];
      const std::string line = "[" + numeric[i].section + "], " + numeric[i].name + ", " +
                               numeric[i].value;
      ASSERT_EQ(j["metric"].get<std::string>(), numeric[i].section) << line;
      ASSERT_EQ(j["measurement"].get<std::string>(), numeric[i].name) << line;
      ASSERT_NE(text.find(line + "\n"), std::string::npos) << line;
      ASSERT_TRUE(j["value"].is_number()) << line;
      if (numeric[i].integral) {
        EXPECT_TRUE(j["value"].is_number_integer()) << line;
        EXPECT_EQ(j["value"].get<int64_t>(), std::stoll(numeric[i].value)) << line;
      } else {
        EXPECT_TRUE(j["value"].is_number_float()) << line;
        EXPECT_EQ(j["value"].get<double>(), std::strtod(numeric[i].value.c_str(), nullptr))
            << line;
      }
    }
  }
  // Jackson's DefaultPrettyPrinter, to the byte.
  const std::string objects = YcsbJsonExport(r, c, o, false);
  EXPECT_EQ(objects.rfind("{\n  \"metric\" : \"OVERALL\",\n  \"measurement\" : \"RunTime(ms)\",\n"
                          "  \"value\" : 2500\n} {\n  \"metric\" : \"OVERALL\",\n  \"measurement\" : "
                          "\"Throughput(ops/sec)\",\n  \"value\" : 400.0\n} {\n",
                          0),
            0u)
      << objects.substr(0, 300);
  const std::string array = YcsbJsonExport(r, c, o, true);
  EXPECT_EQ(array.rfind("[ {\n  \"metric\" : \"OVERALL\",\n  \"measurement\" : \"RunTime(ms)\",\n"
                        "  \"value\" : 2500\n}, {\n",
                        0),
            0u)
      << array.substr(0, 300);
  EXPECT_EQ(array.substr(array.size() - 5), "\n} ]\n");
}

std::string Golden(const std::string& name) {
  std::ifstream f(std::string(WIREBENCH_SOURCE_DIR) + "/tests/golden/" + name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A run whose reads all came back NOT_FOUND (the null
// region's empty answer) shows [READ] with no latencies and the
// Return=NOT_FOUND count, and the latencies under [READ-FAILED]; with
// reportlatencyforeacherror or latencytrackederrors, under [READ-NOT_FOUND].
TEST(ReportText, NotFoundIsTimedAsFailed) {
  RunResult r;
  r.runtime_s = 1;
  r.operations = 10;
  OpStats& read = r.ops[size_t(OpType::kRead)];
  for (int i = 1; i <= 10; ++i) {
    read.latency.Record(int64_t(i) * 1000 + 500);
    read.not_found_latency.Record(int64_t(i) * 1000 + 500);
  }
  read.results[size_t(OpResult::kNotFound)] = 10;
  ReportOptions o;
  EXPECT_EQ(Ycsb(FormatTextReport(r, ComputeCosts(r), o)), Golden("ycsb_not_found.txt"));
  o.report_latency_for_each_error = true;
  std::string each = Ycsb(FormatTextReport(r, ComputeCosts(r), o));
  EXPECT_NE(each.find("[READ-NOT_FOUND], Operations, 10\n"), std::string::npos) << each;
  EXPECT_EQ(each.find("READ-FAILED"), std::string::npos) << each;
  o.report_latency_for_each_error = false;
  o.latency_tracked_errors = {"ERROR"};  // Not NOT_FOUND: it stays under -FAILED.
  each = Ycsb(FormatTextReport(r, ComputeCosts(r), o));
  EXPECT_NE(each.find("[READ-FAILED], Operations, 10\n"), std::string::npos) << each;
  o.latency_tracked_errors = {"NOT_FOUND"};
  each = Ycsb(FormatTextReport(r, ComputeCosts(r), o));
  EXPECT_NE(each.find("[READ-NOT_FOUND], Operations, 10\n"), std::string::npos) << each;
}

// READ-MODIFY-WRITE is latency only (no Return= lines), and
// every operation is in it whatever its halves returned.
TEST(ReportText, ReadModifyWriteHasNoReturnLines) {
  RunResult r;
  r.runtime_s = 1;
  r.operations = 3;
  OpStats& rmw = r.ops[size_t(OpType::kReadModifyWrite)];
  rmw.latency.Record(10'500);
  rmw.latency.Record(20'500);
  rmw.failed_latency.Record(30'500);
  rmw.results[size_t(OpResult::kOk)] = 2;
  rmw.results[size_t(OpResult::kError)] = 1;
  const std::string text = Ycsb(FormatTextReport(r, ComputeCosts(r), ReportOptions{}));
  EXPECT_NE(text.find("[READ-MODIFY-WRITE], Operations, 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[READ-MODIFY-WRITE], AverageLatency(us), 20.0\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("Return="), std::string::npos) << text;
  EXPECT_EQ(text.find("READ-MODIFY-WRITE-FAILED"), std::string::npos) << text;
}

// `measurement.interval=intended` prints the intended
// latencies under the operation's own name ([READ], not [Intended-READ]);
// in a closed loop, where YCSB's intended start is the actual start, they
// are the latencies themselves. With both, the intended ones are
// [Intended-READ] with no Return= lines.
TEST(ReportText, IntendedLatencyUsesYcsbNames) {
  RunResult closed = MakeResult();
  ReportOptions o;
  o.measurement_interval = "intended";
  const std::string text = Ycsb(FormatTextReport(closed, ComputeCosts(closed), o));
  EXPECT_EQ(text.find("Intended-"), std::string::npos) << text;
  EXPECT_EQ(text, Golden("ycsb_text.txt"));  // Closed loop: the same figures.
  RunResult open = MakeResult();
  for (int i = 1; i <= 600; ++i)
    open.ops[size_t(OpType::kRead)].intended_latency.Record(int64_t(i) * 1000 + 500);
  const std::string opened = Ycsb(FormatTextReport(open, ComputeCosts(open), o));
  EXPECT_NE(opened.find("[READ], Operations, 600\n[READ], AverageLatency(us), 300.5\n"),
            std::string::npos)
      << opened;
  EXPECT_NE(opened.find("[READ], Return=NOT_FOUND, 50\n"), std::string::npos) << opened;
  o.measurement_interval = "both";
  const std::string both = Ycsb(FormatTextReport(open, ComputeCosts(open), o));
  const size_t intended = both.find("[Intended-READ], Operations, 600\n");
  ASSERT_NE(intended, std::string::npos) << both;
  EXPECT_EQ(both.find("Return=", intended), std::string::npos) << both;
  EXPECT_LT(both.find("[UPDATE-FAILED]"), intended) << both;  // Intended ones come after.
}

// `measurementtype=histogram` prints OneMeasurementHistogram's
// lines (LatencyVariance, 95th/99th as ms buckets, bucket lines with
// measurement.histogram.verbose); hdrhistogram+histogram prints both under
// YCSB's TwoInOneMeasurement names.
TEST(ReportText, HistogramMeasurementTypeMatchesYcsbGoldenFile) {
  RunResult r = MakeResult();
  ReportOptions o;
  o.measurement_type = "histogram";
  o.histogram_buckets = 3;
  o.histogram_verbose = true;
  EXPECT_EQ(Ycsb(FormatTextReport(r, ComputeCosts(r), o)), Golden("ycsb_histogram.txt"));
  // TwoInOneMeasurement: "Hdr<OP>" with the Return= lines, then "Bucket<OP>".
  o.measurement_type = "hdrhistogram+histogram";
  const std::string two = Ycsb(FormatTextReport(r, ComputeCosts(r), o));
  EXPECT_NE(two.find("[HdrREAD], 50thPercentileLatency(us), 275\n"), std::string::npos) << two;
  EXPECT_NE(two.find("[HdrREAD], Return=NOT_FOUND, 50\n"), std::string::npos) << two;
  EXPECT_NE(two.find("[BucketREAD], LatencyVariance(us), 25208.25\n"), std::string::npos) << two;
  EXPECT_EQ(two.find("[BucketREAD], Return="), std::string::npos) << two;
  EXPECT_EQ(two.find("[READ]"), std::string::npos) << two;
  // OneMeasurementHdrHistogram's verbose lines: each recorded microsecond
  // value (1..550 OK reads, one each) with its count as a double.
  EXPECT_NE(two.find("[HdrREAD], Return=NOT_FOUND, 50\n[HdrREAD], 1, 1.0\n[HdrREAD], 2, 1.0\n"),
            std::string::npos)
      << two;
  EXPECT_NE(two.find("[HdrREAD], 550, 1.0\n[BucketREAD], Operations, 550\n"), std::string::npos)
      << two;
}

}  // namespace
}  // namespace wirebench
