// The --mpi entry of a build without Open MPI: says so and how to get it.
#include <cstdio>

#include "bench/mpi/mpi_run.h"

namespace wirebench {

bool MpiBuiltIn() { return false; }

std::string MpiNotBuiltInMessage() {
  return "--mpi is not built into this wirebench: CMake did not find Open MPI when it was "
         "configured. Install it (Debian: apt-get install openmpi-bin libopenmpi-dev; "
         "scripts/install-deps does), then configure and build again (cmake prints "
         "'Open MPI found: wirebench load/run --mpi built in')";
}

int RunYcsbMpi(YcsbRunOptions) {
  std::fprintf(stderr, "wirebench: %s\n", MpiNotBuiltInMessage().c_str());
  return 2;
}

std::unique_ptr<MpiCellRunner> StartMpiCells(int* exit_code) {
  std::fprintf(stderr, "wirebench: %s\n", MpiNotBuiltInMessage().c_str());
  *exit_code = 2;
  return nullptr;
}

}  // namespace wirebench
