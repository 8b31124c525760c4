#include "bench/cli/calibrate_command.h"

#include <cstdio>
#include <memory>

#include "bench/cli/entry_option.h"
#include "bench/loadgen/calibrate.h"
#include "codecs/codec.h"

namespace wirebench {

void AddCalibrateCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<CalibrationOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Check the instrument: --spin-us raises server CPU/op, --delay-us raises p50 only, "
      "accounted CPU matches the OS's, and the cost of timing one operation");
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
  cmd->callback([o, exit_code] {
    auto r = RunCalibration(*o);
    if (!r.ok()) {
      std::fprintf(stderr, "wirebench calibrate: %s\n", r.status().ToString().c_str());
      *exit_code = 2;
      return;
    }
    int off = 0;
    std::fputs(FormatCalibrationReport(*r, &off).c_str(), stdout);
    if (off > 0) *exit_code = 1;  // The run ended, but the instrument is off.
  });
}

}  // namespace wirebench
