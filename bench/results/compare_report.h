// The codec comparison report, for callers that want all of it: the cells
// and metrics (compare_metrics.h), the Markdown/CSV/JSON tables
// (compare_tables.h) and the gnuplot charts (compare_charts.h).
// Thread-safety: see each header.
#pragma once

#include "bench/results/compare_charts.h"
#include "bench/results/compare_metrics.h"
#include "bench/results/compare_tables.h"
