// Where the tests that run the real binary find it (this build's
// bench/wirebench) and the workload files of the source tree.
#pragma once

#include <string>

namespace wirebench {

inline const std::string kBinary = std::string(WIREBENCH_BINARY_DIR) + "/bench/wirebench";
inline const std::string kWorkloadA = std::string(WIREBENCH_SOURCE_DIR) + "/workloads/workloada";

}  // namespace wirebench
