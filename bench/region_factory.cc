#include "bench/region_factory.h"

namespace wirebench {

void AddRegionOptions(CLI::App* cmd, RegionConfig* c) {
  cmd->add_option("--region", c->name, "Region behind the server: " + RegionNames())
      ->capture_default_str();
  cmd->add_option("--null-reads", c->null_reads,
                  "What the null region answers to Get: empty (HBASE-10001) or canned (one "
                  "pre-built 10 x 100 B record)")
      ->capture_default_str();
  cmd->add_option("--spin-us", c->spin_us,
                  "Calibration: burn this many us of CPU per operation in the null region")
      ->capture_default_str();
  cmd->add_option("--delay-us", c->delay_us,
                  "Calibration: hold every reply this many us without using CPU")
      ->capture_default_str();
}

std::string RegionNames() { return "null"; }

StatusOr<std::unique_ptr<Region>> NewRegion(const RegionConfig& c) {
  if (c.name == "null") {
    NullRegionOptions o;
    auto reads = ParseNullReads(c.null_reads);
    if (!reads.ok()) return reads.status();
    o.reads = *reads;
    o.spin_us = c.spin_us;
    o.delay_us = c.delay_us;
    return NewNullRegion(o);
  }
  return Status::InvalidArgument("unknown region '" + c.name + "'; known regions: " +
                                 RegionNames());
}

}  // namespace wirebench
