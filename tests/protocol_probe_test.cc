// The protocol probe (bench/loadgen/protocol_probe.h) over every registered
// transport: a real server of each, started through the registry on a free
// loopback port, sends first bytes (unasked, or in answer to the probe's
// hellos) that its own entry's recogniser accepts and every other family's
// rejects; the probe names its family, and the message a client of another
// family gets names the protocol and the flags of the family's transports.
// A new transport is covered by being registered with its WireProtocol.
#include "bench/loadgen/protocol_probe.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "transports/transport.h"

namespace wirebench {
namespace {

constexpr std::chrono::milliseconds kWait(500);

struct Served {
  const Transport* transport;
  std::unique_ptr<rpc::TransportServer> server;
  std::string first;  // The first bytes it sent the probe.
};

class ProtocolProbe : public ::testing::Test {
 protected:
  // A server of every registered transport, and what each sent first: on
  // a connection the probe only listens on, else in answer to the first
  // hello it answers, as the probe asks.
  void SetUp() override {
    region_ = NewNullRegion({});
    service_ = std::make_unique<RegionService>(region_.get());
    for (const Transport* t : Transports()) {
      auto started = t->StartServer(rpc::ServerOptions{}, region_.get(), service_.get());
      ASSERT_TRUE(started.ok()) << t->name() << ": " << started.status().ToString();
      Served s{t, std::move(started).value(), ""};
      s.first = ReadServerBytes("127.0.0.1", s.server->port(), {}, kWait);
      for (std::string_view hello : ProbeHellos()) {
        if (!s.first.empty()) break;
        s.first = ReadServerBytes("127.0.0.1", s.server->port(), hello, kWait);
      }
      served_.push_back(std::move(s));
    }
  }
  void TearDown() override {
    for (Served& s : served_) s.server->Stop();
  }

  static bool SameFamily(const Transport& a, const Transport& b) {
    return a.traits().wire.family == b.traits().wire.family;
  }
  static std::string Address(const Served& s) {
    return "127.0.0.1:" + std::to_string(s.server->port());
  }

  std::unique_ptr<Region> region_;
  std::unique_ptr<RegionService> service_;
  std::vector<Served> served_;
};

TEST_F(ProtocolProbe, EachRecogniserAcceptsItsOwnServersFirstBytesAndNoOtherFamilys) {
  ASSERT_FALSE(ProbeHellos().empty());
  for (const Served& s : served_) {
    const WireProtocol& wire = s.transport->traits().wire;
    SCOPED_TRACE("a server of --rpc " + std::string(s.transport->name()));
    ASSERT_FALSE(wire.family.empty());
    ASSERT_FALSE(wire.speaks.empty());
    ASSERT_NE(wire.recognises, nullptr);
    ASSERT_FALSE(s.first.empty()) << "it sent nothing, unasked or to any hello";
    EXPECT_TRUE(wire.recognises(s.first));
    for (const Transport* other : Transports()) {
      if (other->traits().wire.recognises == nullptr) continue;
      EXPECT_EQ(other->traits().wire.recognises(s.first), SameFamily(*other, *s.transport))
          << "--rpc " << other->name() << "'s recogniser";
    }
    const Transport* classified = ClassifyServerBytes(s.first);
    ASSERT_NE(classified, nullptr);
    EXPECT_TRUE(SameFamily(*classified, *s.transport)) << classified->name();
  }
  EXPECT_EQ(ClassifyServerBytes(""), nullptr);
  EXPECT_EQ(ClassifyServerBytes("HTTP/1.1 400 Bad Request\r\n\r\n"), nullptr);
}

TEST_F(ProtocolProbe, NamesTheServersFamilyAndTheFlagsOfItsTransports) {
  for (const Served& s : served_) {
    SCOPED_TRACE("a server of --rpc " + std::string(s.transport->name()));
    const Transport* seen = ProbeServerProtocol("127.0.0.1", s.server->port(), kWait);
    ASSERT_NE(seen, nullptr);
    EXPECT_TRUE(SameFamily(*seen, *s.transport)) << seen->name();
    for (const Transport* client : Transports()) {
      const auto why = WrongProtocolMessage(*client, seen, Address(s));
      if (SameFamily(*client, *s.transport)) {
        EXPECT_FALSE(why.has_value()) << "--rpc " << client->name() << ": " << *why;
        continue;
      }
      ASSERT_TRUE(why.has_value()) << "--rpc " << client->name();
      const std::string& m = *why;
      EXPECT_EQ(m.rfind(Address(s) + " speaks " + std::string(s.transport->traits().wire.speaks) +
                            ", not " + std::string(client->name()) + "'s: pass --rpc ",
                        0),
                0u)
          << m;
      EXPECT_NE(m.find("`wirebench server --rpc " + std::string(client->name()) + "`"),
                std::string::npos)
          << m;
      // Every transport of the server's family, with the codecs it carries
      // when not all.
      for (const Transport* t : Transports()) {
        if (!SameFamily(*t, *s.transport)) continue;
        const size_t at = m.find("--rpc " + std::string(t->name()));
        EXPECT_NE(at, std::string::npos) << t->name() << " in " << m;
        for (std::string_view codec : t->traits().codecs)
          EXPECT_NE(m.find(std::string(codec), at), std::string::npos) << codec << " in " << m;
      }
    }
  }
}

// A client at a server of its own family that failed with the words of one
// of its entry's hints gets the hint (grpc-native at a `server --rpc grpc`);
// with other words, or none, the client's own error stands.
TEST(ProtocolProbeHints, AClientsHintIsGivenForItsWordsOnly) {
  size_t hints = 0;
  for (const Transport* client : Transports()) {
    for (const ServerMismatchHint& hint : client->traits().mismatch_hints) {
      ++hints;
      const std::string error = "gRPC UNIMPLEMENTED: " + std::string(hint.error_contains) + " 'x'";
      EXPECT_EQ(WrongProtocolMessage(*client, client, "h:1", error),
                "h:1 " + std::string(hint.message));
    }
    EXPECT_FALSE(WrongProtocolMessage(*client, client, "h:1", "connection reset").has_value());
    EXPECT_FALSE(WrongProtocolMessage(*client, client, "h:1").has_value());
    EXPECT_FALSE(WrongProtocolMessage(*client, nullptr, "h:1", "anything").has_value());
  }
  if (Transports().Find("grpc-native") != nullptr) {  // A build with gRPC.
    EXPECT_GT(hints, 0u) << "grpc-native declares the hint for a generic gRPC server";
  }
}

}  // namespace
}  // namespace wirebench
