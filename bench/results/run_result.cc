#include "bench/results/run_result.h"

namespace wirebench {

void OpStats::Add(const OpStats& o) {
  latency.Add(o.latency);
  not_found_latency.Add(o.not_found_latency);
  intended_latency.Add(o.intended_latency);
  failed_latency.Add(o.failed_latency);
  for (size_t r = 0; r < results.size(); ++r) results[r] += o.results[r];
}

}  // namespace wirebench
