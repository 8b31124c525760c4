// `wirebench compare`: runs a matrix of codecs x workloads x thread counts,
// co-located (a fresh server process per cell), each cell repeated, and
// writes the comparison tables (Markdown, CSV, JSON), per-cell results and
// .hlog files, and charts into one folder.
#pragma once

#include <CLI/CLI.hpp>

namespace wirebench {

void AddCompareCommand(CLI::App& app, int* exit_code);

}  // namespace wirebench
