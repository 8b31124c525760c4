// The bad-input cases only HBase's RPC has (the matrix every transport
// shares, run over `--rpc hbase` too with its bytes from
// tests/transport_cases.cc, is transport_bad_input_test.cc): while a good
// HBase client (the transport's own, codec cellblock) keeps putting and
// reading, peers send call bodies that are not HBase's and Gets whose regex
// filters would stall or crash a naive server. The server stays up, the good
// client sees no failed call, and every bad connection is gone from the
// server afterwards (tests/bad_input_fixture.h).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "tests/bad_input_fixture.h"
#include "tests/hbase_raw_wire.h"
#include "tests/raw_peer.h"
#include "transports/transport.h"

namespace wirebench {
namespace {

using testing::Be32;
using testing::HBaseConnectionHeader;
using testing::kHBaseHello;
using testing::RawPeer;
using testing::ReadHBaseReply;
using testing::RegexGetCall;

class HBaseBadInput : public testing::BadInputTest {
 protected:
  void SetUp() override {
    rpc::ServerOptions o;
    o.max_frame = 1 << 20;
    o.idle_timeout_ms = 300;
    StartServerOf("hbase", o);
  }
};

TEST_F(HBaseBadInput, GarbageCallBodiesGetExceptionsAndTheConnectionSurvives) {
  RawPeer peer(port());
  ASSERT_TRUE(peer.Send(kHBaseHello + HBaseConnectionHeader()));
  for (int i = 0; i < 20; ++i) {
    std::string body(size_t(1 + i * 7), char(0x80 | i));
    ASSERT_TRUE(peer.Send(Be32(uint32_t(body.size())) + body));
    std::string len, reply;
    ASSERT_EQ(peer.ReadExactly(4, &len), RawPeer::Read::kOk);
    ASSERT_EQ(peer.ReadExactly(LoadBE32(reinterpret_cast<const uint8_t*>(len.data())), &reply),
              RawPeer::Read::kOk);
    EXPECT_NE(reply.find("DoNotRetryIOException"), std::string::npos);
  }
}

// A RegexStringComparator nested 30,000 deep overflowed std::regex's
// compiler's stack and killed the server; `(a+)+$` held the I/O thread for
// seconds. Now the pattern is refused with its reason, the rest are matched
// by RE2 on a handler thread, and the good client never fails.
TEST_F(HBaseBadInput, RegexFiltersAreRefusedOrRunOnHandlerThreads) {
  RawPeer peer(port());
  ASSERT_TRUE(peer.Send(kHBaseHello + HBaseConnectionHeader()));
  const std::string deep = std::string(30000, '(') + "a" + std::string(30000, ')');
  ASSERT_TRUE(peer.Send(RegexGetCall(1, deep)));
  std::string reply = ReadHBaseReply(&peer);
  EXPECT_NE(reply.find("DoNotRetryIOException"), std::string::npos) << reply.substr(0, 300);
  EXPECT_NE(reply.find("nest 30000 deep"), std::string::npos) << reply.substr(0, 300);
  for (const char* pattern : {"(a+)+$", ".*error.*", "(a|b)*c"}) {
    ASSERT_TRUE(peer.Send(RegexGetCall(2, pattern)));
    reply = ReadHBaseReply(&peer);
    EXPECT_EQ(reply.find("Exception"), std::string::npos) << pattern << ": " << reply;
  }
  // Each filtered Get ran on a handler thread, none on the I/O thread.
  EXPECT_EQ(Stats()["hbase"]["handler_calls"].get<uint64_t>(), 4u);
  EXPECT_TRUE(client_->WaitForMoreCalls(50)) << client_->first_error();
}

// The patterns that crashed std::regex's recursive matcher on large values
// (a 200 KB value here: canned reads) are answered, the server stays up.
TEST(HBaseRegexOnLargeValues, AnsweredWithoutCrashing) {
  NullRegionOptions ro;
  ro.reads = NullRegionOptions::Reads::kCanned;
  ro.canned_fields = 1;
  ro.canned_field_length = 200000;  // 'v' * 200,000.
  auto region = NewNullRegion(ro);
  RegionService service(region.get());
  rpc::ServerOptions o;
  o.max_frame = 1 << 20;
  auto hbase = Transports().Resolve("hbase");
  ASSERT_TRUE(hbase.ok()) << hbase.status().ToString();
  auto started = (*hbase)->StartServer(o, region.get(), &service);
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  rpc::TransportServer& server = **started;
  RawPeer peer(server.port());
  ASSERT_TRUE(peer.Send(kHBaseHello + HBaseConnectionHeader()));
  struct Case {
    const char* pattern;
    bool passes;
  };
  for (const Case& c : {Case{".*error.*", false}, Case{"(v|w)*c", false}, Case{"(v+)+x$", false},
                        Case{"^(v|w)*$", true}, Case{"v{1000}$", true}}) {
    ASSERT_TRUE(peer.Send(RegexGetCall(7, c.pattern)));
    const std::string reply = ReadHBaseReply(&peer);
    EXPECT_EQ(reply.find("Exception"), std::string::npos) << c.pattern << ": " << reply.substr(0, 300);
    // A passing value comes back in the reply; a filtered-out one does not.
    EXPECT_EQ(reply.size() > 100000, c.passes) << c.pattern << ": " << reply.size() << " bytes";
  }
  EXPECT_EQ(server.StatsJson()["hbase"]["handler_calls"].get<uint64_t>(), 5u);
  server.Stop();
}

}  // namespace
}  // namespace wirebench
