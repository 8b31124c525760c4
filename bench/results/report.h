// Turns a RunResult into what users read: YCSB's text output line for line
// (plus wirebench's cost lines in the same `[SECTION], name, value` shape),
// and YCSB's JSON exporters, both rendered from one list of measurements.
// Also the environment block of a result document, and the output-file
// writer under its historical name. The per-op costs are in costs.h, the
// result JSON in result_json.h (both included here for callers).
// Thread-safety: pure functions (WriteFileAtomically writes a file).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/results/costs.h"
#include "bench/results/report_options.h"
#include "bench/results/result_json.h"
#include "bench/results/run_result.h"

namespace wirebench {

// One line of the report: "[section], name, value".
struct Measurement {
  std::string section;  // "OVERALL", "READ", "CLIENT", ...
  std::string name;     // "RunTime(ms)", "99thPercentileLatency(us)", ...
  std::string value;    // As printed.
  // The printed value as a number, for numeric measurements (absent for
  // text such as "unavailable (...)").
  std::optional<double> number;
  // YCSB wrote it as a long (exporters write it as a JSON integer).
  bool integral = false;
};

// [SERVER]'s one line when the run had no server (ReportOptions::no_server).
inline constexpr std::string_view kNoServer =
    "absent (no server: the basic binding is YCSB's BasicDB, every call answered in the "
    "client's own process)";

// The report's measurements in YCSB's order, then wirebench's.
std::vector<Measurement> ReportMeasurements(const RunResult& r, const RunCosts& costs,
                                            const ReportOptions& o);

// YCSB's text output followed by wirebench's cost lines.
std::string FormatTextReport(const RunResult& r, const RunCosts& costs, const ReportOptions& o);

// YCSB's JSON exporters, from the same measurements, as YCSB's Jackson
// generator with its default pretty printer writes them: each measurement an
// object {"metric" : section, "measurement" : name, "value" : v} over four
// lines, v an integer where YCSB wrote a long, a double as Java prints it
// (NaN and Infinity quoted, as Jackson writes them); `array` =
// JSONArrayMeasurementsExporter ("[ {...}, {...} ]"), otherwise
// JSONMeasurementsExporter (objects separated by a space). YCSB's exporter
// interface writes numbers only, so a measurement whose value is text
// ("unavailable (...)", a partial run's reason) is left out, and appended
// to `left_out` when given (the caller says why elsewhere). Ends with a
// newline.
std::string YcsbJsonExport(const RunResult& r, const RunCosts& costs, const ReportOptions& o,
                           bool array, std::vector<Measurement>* left_out = nullptr);

// One kept sample as a YCSB measurement sees it: the wall-clock ms of its
// end (currentTimeMillis) and its whole microseconds.
struct YcsbPoint {
  int64_t ms = 0;
  int64_t us = 0;
};

// measurementtype raw / hdrhistogram+raw: OneMeasurementRaw's data lines,
// per measurement "<NAME> latency raw data: op, timestamp(ms), latency(us)"
// then "<NAME>,<ms>,<us>" per sample in time order; empty for other types.
// Needs RunResult::samples.
std::string YcsbRawData(const RunResult& r, const ReportOptions& o);
// The raw measurements' names ("READ", or "RawREAD" in hdrhistogram+raw).
std::vector<std::string> YcsbRawMeasurementNames(const RunResult& r, const ReportOptions& o);

// The HdrHistogram measurements (named as YCSB names their .hdr logs:
// "READ", "HdrREAD" in the two-in-one types) with their samples, for
// hdrhistogram.fileoutput. Empty unless measurementtype is an hdrhistogram one.
struct YcsbSeries {
  std::string name;
  std::vector<YcsbPoint> points;  // Time order.
};
std::vector<YcsbSeries> YcsbHdrSeries(const RunResult& r, const ReportOptions& o);

// The environment of this build and machine: CPU, kernel, compiler,
// library versions, git revision, build type.
nlohmann::json EnvironmentJson();

// Writes `contents` to `path` without ever replacing what is not a regular
// file: see WriteOutputFile (output_file.h), which this forwards to.
Status WriteFileAtomically(const std::string& path, const std::string& contents);

}  // namespace wirebench
