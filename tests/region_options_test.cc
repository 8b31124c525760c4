// The regions' own options, as `server`, `run` and `compare` hand them over
// (regions/registry.h): limits that protect the server are checked at start,
// each refusal names the flag and what to do.
#include <gtest/gtest.h>

#include <string>

#include "regions/registry.h"

namespace wirebench {
namespace {

Status Check(const std::string& region, std::initializer_list<std::pair<std::string, std::string>> flags) {
  RegionConfig c;
  c.entry = Regions().Find(region);
  if (c.entry == nullptr) return Status::InvalidArgument("no region " + region);
  for (const auto& [flag, value] : flags) c.settings.Set(flag, value);
  SetRegionDefaults(&c);
  return CheckRegion(c);
}

// 20 fields of 1,000,000 bytes made every canned read a frame no client
// takes; 4096 x 64 MiB drove the server into the OOM killer.
TEST(RegionOptions, CannedRecordMustFitAReplyFrame) {
  EXPECT_TRUE(Check("null", {{"--null-reads", "canned"}}).ok());
  EXPECT_TRUE(Check("null", {{"--null-reads", "canned"}, {"--canned-fields", "10"},
                             {"--canned-field-length", "1000000"}})
                  .ok());
  for (const auto& [fields, length] : {std::pair{"20", "1000000"}, std::pair{"4096", "67108864"}}) {
    const Status s = Check("null", {{"--null-reads", "canned"}, {"--canned-fields", fields},
                                    {"--canned-field-length", length}});
    ASSERT_FALSE(s.ok()) << fields << " x " << length;
    EXPECT_NE(s.message().find("--canned-fields " + std::string(fields) +
                               " x --canned-field-length " + length),
              std::string::npos)
        << s.ToString();
    EXPECT_NE(s.message().find("lower either"), std::string::npos) << s.ToString();
  }
  // Empty reads never send the record.
  EXPECT_TRUE(Check("null", {{"--null-reads", "empty"}, {"--canned-fields", "20"},
                             {"--canned-field-length", "1000000"}})
                  .ok());
}

TEST(RegionOptions, MemstoreLimitIsAWholeNumberOfMiB) {
  EXPECT_TRUE(Check("memstore", {{"--memstore-limit-mb", "0"}}).ok());
  EXPECT_TRUE(Check("memstore", {{"--memstore-limit-mb", "2048"}}).ok());
  const Status s = Check("memstore", {{"--memstore-limit-mb", "-1"}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--memstore-limit-mb must be a whole number"), std::string::npos)
      << s.ToString();
}

}  // namespace
}  // namespace wirebench
