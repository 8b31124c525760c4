#include "bench/cli/calibrate_command.h"

#include <cstdio>
#include <memory>

#include "bench/cli/entry_option.h"
#include "bench/cli/subcommand.h"
#include "bench/loadgen/calibrate.h"
#include "codecs/codec.h"

namespace wirebench {

namespace {

// Runs the calibration and prints its report: 0, 1 when the instrument is
// off (the run ended, but a check failed), 2 when it could not run.
int RunCalibrate(const CalibrationOptions& o) {
  auto r = RunCalibration(o);
  if (!r.ok()) {
    std::fprintf(stderr, "wirebench calibrate: %s\n", r.status().ToString().c_str());
    return 2;
  }
  int off = 0;
  std::fputs(FormatCalibrationReport(*r, &off).c_str(), stdout);
  return off > 0 ? 1 : 0;
}

}  // namespace

void AddCalibrateCommand(CLI::App& app, int* exit_code) {
  auto [cmd, o] = AddSubcommand<CalibrationOptions>(
      app, "calibrate",
      "Check the instrument: --spin-us raises server CPU/op, --delay-us raises p50 only, "
      "accounted CPU matches the OS's, and the cost of timing one operation",
      exit_code, RunCalibrate);
  cmd->add_option("--spin-us", o->spin_us, "Spin points, us of server CPU per op (first = baseline)")
      ->capture_default_str();
  cmd->add_option("--delay-us", o->delay_us, "Delay points, us each reply is held (first = baseline)")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Logical clients, one put in flight each")
      ->capture_default_str();
  cmd->add_option("--ops", o->operations, "Measured operations per point")->capture_default_str();
  cmd->add_option("--warmup-ops", o->warmup_operations,
                  "Unmeasured operations before each point (a separate run)")
      ->capture_default_str();
  AddEntryOption(cmd, "--codec", &o->codec, Codecs(), "Codec: " + CodecNames());
  cmd->add_option("--server-cpus", o->server_cpus, "Pin the co-located server to these CPUs");
  cmd->add_option("--timing-iterations", o->timing_iterations,
                  "Iterations of the timing-cost loop")
      ->capture_default_str();
}

}  // namespace wirebench
