// The instrument checks itself (bench/loadgen/calibrate.h) against in-process
// servers with the null region's calibration knobs: spin_us shows up in the
// server CPU per op, delay_us in p50 and not in the server CPU, the CPU
// wirebench accounts for matches what the OS charged the process, and the
// timing cost per operation is small. Bounds are generous: the test machine
// is a shared, noisy 2-core box. Plus one co-located run of the real binary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>

#include "bench/loadgen/calibrate.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "transports/wirebench/server.h"
#include "tests/test_workloads.h"
#include "tests/sanitized_build.h"
#include "tests/wirebench_paths.h"

namespace wirebench {
namespace {

// An in-process server with a null region, a warm-up run, then one
// measured calibration run of `ops` puts.
StatusOr<CalibrationRun> Measure(NullRegionOptions n, int threads, int64_t ops,
                                 double max_seconds = 0) {
  auto region = NewNullRegion(n);
  RegionService service(region.get());
  wbrpc::Server server({}, &service);
  WB_RETURN_IF_ERROR(server.Start());
  testing::MixedWorkload w(/*puts_only=*/true);
  DriverOptions d;
  d.port = server.port();
  d.threads = threads;
  d.operations = 200;
  d.fetch_server_stats = false;
  auto warm = RunLoad(d, &w);
  if (!warm.ok()) return warm.status();
  d.operations = ops;
  d.max_seconds = max_seconds;
  d.fetch_server_stats = true;
  return MeasureCalibrationRun(d, &w, {getpid()});
}

// Two measured runs of `ops` puts by `threads` clients, both of which must
// succeed: `base` on the null region's defaults, `knobbed` on `knobs`.
void MeasureBaseAndKnobbed(const NullRegionOptions& knobs, int threads, int64_t ops,
                           CalibrationRun* base, CalibrationRun* knobbed) {
  auto b = Measure({}, threads, ops);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  auto k = Measure(knobs, threads, ops);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  *base = *b;
  *knobbed = *k;
}

TEST(Calibration, SpinRaisesServerCpuPerOpBySpin) {
  CalibrationRun base, spun;
  ASSERT_NO_FATAL_FAILURE(MeasureBaseAndKnobbed({.spin_us = 50}, 4, 4000, &base, &spun));
  EXPECT_EQ(base.operations, 4000u);
  EXPECT_EQ(spun.operations, 4000u);
  ASSERT_GE(base.server_cpu_us_per_op, 0) << "server Stats unavailable";
  const double rise = spun.server_cpu_us_per_op - base.server_cpu_us_per_op;
  EXPECT_GT(rise, 35.0) << "base " << base.server_cpu_us_per_op << " spun "
                        << spun.server_cpu_us_per_op;
  EXPECT_LT(rise, 80.0) << "base " << base.server_cpu_us_per_op << " spun "
                        << spun.server_cpu_us_per_op;
  // The client does not pay for the server's spin.
  EXPECT_LT(spun.client_cpu_us_per_op, base.client_cpu_us_per_op + 20.0);
}

TEST(Calibration, DelayRaisesP50ButNotServerCpu) {
  CalibrationRun base, delayed;
  ASSERT_NO_FATAL_FAILURE(MeasureBaseAndKnobbed({.delay_us = 2000}, 4, 1000, &base, &delayed));
  EXPECT_EQ(delayed.operations, 1000u);
  EXPECT_GE(delayed.p50_us - base.p50_us, 1500.0)
      << "base p50 " << base.p50_us << " delayed p50 " << delayed.p50_us;
  // Not 20 us: a held reply gets a timer and a write of its own (no
  // coalescing), which costs the server 10-25 us per op on a loaded box. A
  // delay that burned CPU would add about 2000.
  EXPECT_LT(delayed.server_cpu_us_per_op - base.server_cpu_us_per_op, 60.0)
      << "base " << base.server_cpu_us_per_op << " delayed " << delayed.server_cpu_us_per_op;
  // 4 clients, one op in flight each, 2 ms per op: at most ~2000 ops/s.
  EXPECT_GE(delayed.runtime_s, 1000.0 / 4 * 0.002 * 0.9);
}

TEST(Calibration, AccountedCpuAgreesWithWhatTheOsCharged) {
  // About 1.5 s of load, so the OS's 10 ms clock ticks are under 1%.
  auto r = Measure({}, 8, 0, /*max_seconds=*/1.5);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_GT(r->os_cpu_ms, 200.0) << "too little CPU to compare";
  const double ratio = r->accounted_cpu_ms / r->os_cpu_ms;
  EXPECT_NEAR(r->os_stat_cpu_ms, r->os_cpu_ms, 15.0 + 0.02 * r->os_cpu_ms);
  // The OS also charges setup, thread start and join, and the Stats calls,
  // which wirebench does not count as the run's: accounted <= OS, close to it.
  EXPECT_GT(ratio, 0.90) << "accounted " << r->accounted_cpu_ms << " ms, OS " << r->os_cpu_ms;
  EXPECT_LT(ratio, 1.03) << "accounted " << r->accounted_cpu_ms << " ms, OS " << r->os_cpu_ms;
}

TEST(Calibration, ProcessCpuFollowsBurnedCpu) {
  auto before = ProcessCpuMs(getpid());
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  SpinCpu(100'000);  // 100 ms.
  auto after = ProcessCpuMs(getpid());
  ASSERT_TRUE(after.ok());
  EXPECT_GE(*after - *before, 80.0);
  EXPECT_LT(*after - *before, 1000.0);
  auto precise_before = ProcessCpuClockNs(getpid());
  ASSERT_TRUE(precise_before.ok()) << precise_before.status().ToString();
  SpinCpu(20'000);
  auto precise_after = ProcessCpuClockNs(getpid());
  ASSERT_TRUE(precise_after.ok());
  EXPECT_GE(*precise_after - *precise_before, 20e6);
  auto gone = ProcessCpuMs(999'999'999);
  ASSERT_FALSE(gone.ok());
  EXPECT_NE(gone.status().ToString().find("/proc/999999999/stat"), std::string::npos);
  EXPECT_FALSE(ProcessCpuClockNs(999'999'999).ok());
}

TEST(Calibration, TimingOneOperationIsCheap) {
  const double ns = MeasureTimingOverheadNs(1'000'000);
  EXPECT_GT(ns, 1.0);     // Two clock reads cost something.
  EXPECT_LT(ns, 2000.0);  // And far less than a round trip.
}

TEST(Calibration, WarmupInsideTheMeasuredRunIsRefused) {
  testing::MixedWorkload w(true);
  DriverOptions d;
  d.warmup_seconds = 1;
  auto r = MeasureCalibrationRun(d, &w, {getpid()});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
}

TEST(Calibration, ReportMarksChecksThatAreOff) {
  CalibrationReport rep;
  CalibrationRun base;
  base.operations = 100;
  base.p50_us = 40;
  base.server_cpu_us_per_op = 5;
  base.accounted_cpu_ms = 99;
  base.os_cpu_ms = 100;
  CalibrationRun spin = base;
  spin.spin_us = 50;
  spin.server_cpu_us_per_op = 55.5;  // +50.5: ok.
  CalibrationRun bad_spin = base;
  bad_spin.spin_us = 20;
  bad_spin.server_cpu_us_per_op = 50;  // +45 for 20: off.
  rep.spin_runs = {base, spin, bad_spin};
  CalibrationRun delay = base;
  delay.delay_us = 200;
  delay.p50_us = 245;
  rep.delay_runs = {base, delay};
  int off = -1;
  const std::string text = FormatCalibrationReport(rep, &off);
  // The last line is the whole verdict, naming what is off, with advice.
  EXPECT_EQ(off, 1);
  EXPECT_NE(text.find("verdict: 1 of 5 checks OFF (spin-us=20)"), std::string::npos) << text;
  EXPECT_NE(text.find("Advice: run again with nothing else running"), std::string::npos) << text;
  rep.spin_runs.pop_back();
  EXPECT_NE(FormatCalibrationReport(rep, &off).find("verdict: all 4 checks ok"), std::string::npos);
  EXPECT_EQ(off, 0);
  rep.spin_runs.push_back(bad_spin);
  auto line = [&](const std::string& knob) {
    size_t at = text.find(knob);
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  EXPECT_NE(line("spin-us=50 ").find(" ok"), std::string::npos) << text;
  EXPECT_NE(line("spin-us=20 ").find("OFF"), std::string::npos) << text;
  EXPECT_NE(line("delay-us=200 ").find(" ok"), std::string::npos) << text;
  EXPECT_NE(text.find("(d) timing"), std::string::npos);
}

// Sanitizer runtimes add start-up and shutdown CPU that no measured phase
// covers (shadow memory, interceptors), so the fixed-overhead bound below is
// checked only in uninstrumented builds.
constexpr bool kSanitized = testing::kSanitizedBuild;

// The command's path: a fresh child server process per point, OS CPU of
// both processes.
TEST(Calibration, CoLocatedCalibrationWithTheRealBinary) {
  CalibrationOptions o;
  o.binary = kBinary;
  o.spin_us = {0, 50};
  o.delay_us = {0, 2000};
  o.threads = 4;
  o.operations = 2000;
  o.warmup_operations = 200;
  o.timing_iterations = 100'000;
  auto rep = RunCalibration(o);
  ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  ASSERT_EQ(rep->spin_runs.size(), 2u);
  ASSERT_EQ(rep->delay_runs.size(), 2u);
  for (const auto* runs : {&rep->spin_runs, &rep->delay_runs})
    for (const CalibrationRun& r : *runs) {
      EXPECT_EQ(r.operations, 2000u);
      EXPECT_GT(r.os_cpu_ms, 0.0);
      // Short runs: what the OS charges beyond the measured phase
      // (connection setup, thread start and join, the Stats calls, merging
      // per-thread histograms) is a few ms per run, not a share of it; and
      // wirebench never accounts more than the OS charged.
      EXPECT_LE(r.accounted_cpu_ms, r.os_cpu_ms + 0.5)
          << r.accounted_cpu_ms << " vs " << r.os_cpu_ms;
      if (!kSanitized) {
        EXPECT_LT(r.os_cpu_ms - r.accounted_cpu_ms, 10.0 + 0.05 * r.os_cpu_ms)
            << r.accounted_cpu_ms << " vs " << r.os_cpu_ms;
      }
      // /proc/<pid>/stat says the same, to its two processes' 10 ms ticks.
      EXPECT_NEAR(r.os_stat_cpu_ms, r.os_cpu_ms, 25.0 + 0.05 * r.os_cpu_ms);
    }
  const double rise = rep->spin_runs[1].server_cpu_us_per_op - rep->spin_runs[0].server_cpu_us_per_op;
  EXPECT_GT(rise, 35.0);
  EXPECT_LT(rise, 80.0);
  EXPECT_GE(rep->delay_runs[1].p50_us - rep->delay_runs[0].p50_us, 1500.0);
  std::printf("%s", FormatCalibrationReport(*rep).c_str());
}

}  // namespace
}  // namespace wirebench
