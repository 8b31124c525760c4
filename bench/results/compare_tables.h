// The codec comparison tables: one column per codec and one row per metric
// (compare_metrics.h), as the HBase mailing-list comparisons lay out one
// column per release, with ratio rows against a baseline codec, and
// thread-sweep tables; as Markdown, CSV and JSON. Each group states the
// repeats actually present per codec, and a codec whose cells were cut
// short is marked "(partial)" (Markdown column and footnote, CSV and JSON
// counts).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/results/compare_metrics.h"

namespace wirebench {

std::string CompareMarkdown(const std::vector<CompareCell>& cells, const CompareReportOptions& o);
// Per codec: median, min, max, cells with a value, cells cut short.
std::string CompareCsv(const std::vector<CompareCell>& cells, const CompareReportOptions& o);
nlohmann::json CompareJson(const std::vector<CompareCell>& cells, const CompareReportOptions& o);

}  // namespace wirebench
