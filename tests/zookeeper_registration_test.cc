// ZooKeeper registration of an HBase-protocol server (transports/hbase/
// zookeeper_registration.h) against Debian's real ZooKeeper, started once for
// this binary (tests/zookeeper_fixture.h): the nodes HBase writes, read back
// with ZooKeeper's C client and checked byte for byte against HBase's layout
// (field numbers of ZooKeeper.proto/HBase.proto, RecoverableZooKeeper's
// metadata prefix, ProtobufUtil's PBUF magic); ephemerality; removal; an
// unreachable ZooKeeper; --zookeeper's parsing.
#include "transports/hbase/zookeeper_registration.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <vector>
#include <condition_variable>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/silent_listener.h"
#include "tests/zookeeper_fixture.h"

namespace wirebench::hbase {
namespace {

using std::chrono::milliseconds;
using testing::ZooKeeperEnvironment;

// The readers below log through the C client's default (stderr): warnings only.
const bool kQuietClient = [] {
  zoo_set_debug_level(ZOO_LOG_LEVEL_WARN);
  return true;
}();

#define SKIP_WITHOUT_ZOOKEEPER()                                          \
  do {                                                                    \
    if (std::string why = ZooKeeperEnvironment::SkipReason(); !why.empty()) \
      GTEST_SKIP() << why;                                                \
  } while (0)

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s.push_back(char(c));
  return s;
}

// The server every test registers: a start code that needs all of a
// varint's bytes but one, as real start codes (ms since 1970) do.
ServerName TestServer() { return {"127.0.0.1", 16020, 1764790000123}; }

// Set in a child this binary starts again (ForkRegisteredServer): where to
// register and as which server, one field a line (quorum, root, host, port,
// start code, and "rs" for a region server alone).
constexpr char kChildEnv[] = "WIREBENCH_ZK_REGISTERED_CHILD";

// In that child, before main: register and wait for SIGKILL. The child is a
// fresh exec, not a bare fork, because a fork copies the locks other threads
// hold (the readers' ZooKeeper threads, the sanitizers' allocator) and the
// child could wait on one forever, never registering.
const bool kIsRegisteredChild = [] {
  const char* spec = std::getenv(kChildEnv);
  if (spec == nullptr) return false;
  std::istringstream in(spec);
  ZooKeeperTarget target;
  ServerName name;
  std::string port, start_code;
  if (!std::getline(in, target.quorum) || !std::getline(in, target.root) ||
      !std::getline(in, name.host) || !std::getline(in, port) || !std::getline(in, start_code))
    _exit(4);
  name.port = uint16_t(std::stoul(port));
  name.start_code = std::stoll(start_code);
  std::string role_text;
  RegistrationRole role;
  if (std::getline(in, role_text) && role_text == "rs")
    role = {.master = false, .region_server = true};
  auto reg =
      ZooKeeperRegistration::Register(target, name, "c", std::chrono::milliseconds(20000), role);
  if (!reg.ok()) _exit(3);
  for (;;) pause();
}();

// A server's registration in a process of its own, which lives until
// SIGKILL: no destructor runs, so its nodes are never removed cleanly; the
// keeper thread works meanwhile. The child exits 3 when it could not
// register.
pid_t ForkRegisteredServer(const ZooKeeperTarget& target, const ServerName& name = TestServer(),
                           bool region_server_alone = false) {
  const std::string spec = target.quorum + "\n" + target.root + "\n" + name.host + "\n" +
                           std::to_string(name.port) + "\n" + std::to_string(name.start_code) +
                           "\n" + (region_server_alone ? "rs\n" : "");
  const std::string env = std::string(kChildEnv) + "=" + spec;
  const pid_t pid = fork();
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    char* const argv[] = {const_cast<char*>("zookeeper_registration_test"), nullptr};
    char* const envp[] = {const_cast<char*>(env.c_str()), nullptr};
    execve("/proc/self/exe", argv, envp);
    _exit(127);
  }
  return pid;
}

// ServerName { host_name = 1: "127.0.0.1", port = 2: 16020, start_code = 3 },
// encoded by hand from HBase.proto's field numbers.
const std::string kServerNameBytes =
    Bytes({0x0a, 0x09, '1', '2', '7', '.', '0', '.', '0', '.', '1', 0x10, 0x94, 0x7d, 0x18, 0xfb,
           0xb3, 0xb9, 0xad, 0xae, 0x33});

// A plain ZooKeeper C client session, to read what the registration wrote
// the way any other ZooKeeper client sees it.
class Reader {
 public:
  explicit Reader(const std::string& quorum) {
    zh_ = zookeeper_init(quorum.c_str(), &Reader::Watch, 10000, nullptr, this, 0);
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(20), [&] { return connected_; });
  }
  ~Reader() { zookeeper_close(zh_); }
  bool connected() {
    std::lock_guard<std::mutex> lock(mu_);
    return connected_;
  }
  // ZOK and the data, or the error code.
  int Get(const std::string& path, std::string* data, Stat* stat) {
    std::vector<char> buf(1 << 16);
    int len = int(buf.size());
    const int rc = zoo_get(zh_, path.c_str(), 0, buf.data(), &len, stat);
    if (rc == ZOK) data->assign(buf.data(), len < 0 ? 0 : size_t(len));
    return rc;
  }
  bool Exists(const std::string& path) {
    Stat st;
    return zoo_exists(zh_, path.c_str(), 0, &st) == ZOK;
  }
  zhandle_t* handle() { return zh_; }

 private:
  static void Watch(zhandle_t*, int type, int state, const char*, void* ctx) {
    auto* r = static_cast<Reader*>(ctx);
    if (type != ZOO_SESSION_EVENT) return;
    std::lock_guard<std::mutex> lock(r->mu_);
    r->connected_ = state == ZOO_CONNECTED_STATE;
    r->cv_.notify_all();
  }
  zhandle_t* zh_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_;
  bool connected_ = false;
};

// Checks RecoverableZooKeeper's metadata prefix on `data` and returns what
// follows it: 0xFF, a big-endian length, "<pid>@<host>" and 8 salt bytes.
std::string CheckMetadataPrefix(const std::string& data, pid_t writer) {
  EXPECT_GE(data.size(), 5u);
  if (data.size() < 5) return "";
  EXPECT_EQ(uint8_t(data[0]), 0xFF);
  const uint32_t len = (uint32_t(uint8_t(data[1])) << 24) | (uint32_t(uint8_t(data[2])) << 16) |
                       (uint32_t(uint8_t(data[3])) << 8) | uint32_t(uint8_t(data[4]));
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  const std::string id = std::to_string(writer) + "@" + host;
  EXPECT_EQ(len, id.size() + 8) << "id length = the id plus ZKMetadata's 8-byte salt";
  EXPECT_EQ(data.substr(5, id.size()), id);
  if (data.size() < 5 + len) return "";
  return data.substr(5 + len);
}

std::string UniqueRoot(const char* name) {
  return "/wirebench-test-" + std::to_string(getpid()) + "-" + name;
}

TEST(ZooKeeperFormats, MessagesAreHBasesFieldForField) {
  // MetaRegionServer { server = 1, rpc_version = 2: 0, state = 3: OPEN (3) }.
  EXPECT_EQ(MetaRegionServerData(TestServer()),
            "PBUF" + Bytes({0x0a, 0x15}) + kServerNameBytes + Bytes({0x10, 0x00, 0x18, 0x03}));
  // Master { master = 1, rpc_version = 2: 0, info_port = 3: 0 }.
  EXPECT_EQ(MasterData(TestServer()),
            "PBUF" + Bytes({0x0a, 0x15}) + kServerNameBytes + Bytes({0x10, 0x00, 0x18, 0x00}));
  // ClusterId { cluster_id = 1 }.
  EXPECT_EQ(ClusterIdData("abc-123"), "PBUF" + Bytes({0x0a, 0x07}) + "abc-123");
  // A negative start code is a uint64 in two's complement, ten bytes, as Java writes it.
  const std::string neg = MetaRegionServerData({"h", 1, -5});
  EXPECT_NE(neg.find(Bytes({0x18, 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})),
            std::string::npos);
}

TEST(ZooKeeperFormats, StripsMetadataAndMagicAndRefusesOtherData) {
  const std::string with = Bytes({0xFF, 0, 0, 0, 3}) + "abc" + "PBUF" + "msg";
  auto s = StripHBaseZNodeData(with);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s, "msg");
  auto plain = StripHBaseZNodeData("PBUFxyz");  // No metadata (written by another tool).
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(*plain, "xyz");
  EXPECT_EQ(StripHBaseZNodeData("127.0.0.1:16020").status().code(), Status::Code::kCorruption);
  EXPECT_EQ(StripHBaseZNodeData(Bytes({0xFF, 0, 0, 1, 0}) + "PBUF").status().code(),
            Status::Code::kCorruption);
  EXPECT_EQ(StripHBaseZNodeData(Bytes({0xFF, 0, 0})).status().code(), Status::Code::kCorruption);
}

TEST(ZooKeeperFormats, RegionServerNodeIsHBasesRegionServerInfo) {
  // RegionServerInfo { info_port = 1: -1 }, an int32 sign-extended to ten bytes.
  EXPECT_EQ(RegionServerData(), "PBUF" + Bytes({0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                                0xff, 0xff, 0x01}));
  // ServerName.toString(), the node's name under <root>/rs.
  EXPECT_EQ(ServerNameText(TestServer()), "127.0.0.1,16020,1764790000123");
}

TEST(ParseZooKeeperFlag, AcceptsQuorumsAndRoots) {
  auto one = ParseZooKeeperFlag("127.0.0.1:2181");
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->quorum, "127.0.0.1:2181");
  EXPECT_EQ(one->root, "/hbase");
  auto many = ParseZooKeeperFlag("zk1:2181,zk2:2182,zk3:2183/hbase-unsecure");
  ASSERT_TRUE(many.ok()) << many.status().ToString();
  EXPECT_EQ(many->quorum, "zk1:2181,zk2:2182,zk3:2183");
  EXPECT_EQ(many->root, "/hbase-unsecure");
  auto nested = ParseZooKeeperFlag("localhost:2181/a/b/hbase");
  ASSERT_TRUE(nested.ok());
  EXPECT_EQ(nested->root, "/a/b/hbase");
  auto v6 = ParseZooKeeperFlag("[::1]:2181/hb");
  ASSERT_TRUE(v6.ok()) << v6.status().ToString();
  EXPECT_EQ(v6->quorum, "[::1]:2181");
  EXPECT_EQ(v6->root, "/hb");
}

TEST(ParseZooKeeperFlag, RefusesWhatZooKeeperWouldNotTakeAndSaysTheForm) {
  for (const char* bad : {"", "localhost", "localhost:", ":2181", "h:0", "h:65536", "h:21x81",
                          "h:2181,", ",h:2181", "h:2181,,g:2181", "h:2181/", "h:2181//x",
                          "h:2181/a//b", "/hbase", "::1:2181", "[::1:2181", "h:2181/a/"}) {
    auto r = ParseZooKeeperFlag(bad);
    EXPECT_FALSE(r.ok()) << "'" << bad << "' was accepted";
    if (r.ok()) continue;
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(r.status().message().find("HOST:PORT[,HOST:PORT...][/ROOT]"), std::string::npos)
        << r.status().ToString();
  }
}

TEST(ZooKeeperRegistration, WritesHBasesNodesAndRemovesThemOnDestruction) {
  SKIP_WITHOUT_ZOOKEEPER();
  const std::string quorum = ZooKeeperEnvironment::Instance()->quorum();
  const ZooKeeperTarget target{quorum, UniqueRoot("nodes")};
  Reader zk(quorum);
  ASSERT_TRUE(zk.connected());
  {
    auto reg = ZooKeeperRegistration::Register(target, TestServer(), "wb-cluster-1",
                                               milliseconds(20000));
    ASSERT_TRUE(reg.ok()) << reg.status().ToString();
    std::string data;
    Stat st{};
    // The root: persistent and empty, as ZKUtil.createWithParents leaves it.
    ASSERT_EQ(zk.Get(target.root, &data, &st), ZOK);
    EXPECT_EQ(data, "");
    EXPECT_EQ(st.ephemeralOwner, 0);

    // Each node: ephemeral or persistent as in HBase, and its bytes after the
    // metadata prefix.
    struct Node {
      const char* name;
      bool ephemeral;
      std::string bytes;
    };
    const std::string server_name = "PBUF" + Bytes({0x0a, 0x15}) + kServerNameBytes;
    for (const Node& n : {Node{"/meta-region-server", false,
                               server_name + Bytes({0x10, 0x00, 0x18, 0x03})},
                          Node{"/master", true, server_name + Bytes({0x10, 0x00, 0x18, 0x00})},
                          Node{"/hbaseid", false, "PBUF" + Bytes({0x0a, 0x0c}) + "wb-cluster-1"}}) {
      ASSERT_EQ(zk.Get(target.root + n.name, &data, &st), ZOK) << n.name;
      EXPECT_EQ(st.ephemeralOwner != 0, n.ephemeral)
          << n.name << (n.ephemeral ? " is ephemeral" : " is persistent") << " in HBase";
      EXPECT_EQ(CheckMetadataPrefix(data, getpid()), n.bytes) << n.name;
    }

    // What a client reads.
    auto found = LookupMetaRegionServer(target, milliseconds(20000));
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    EXPECT_EQ(found->host, "127.0.0.1");
    EXPECT_EQ(found->port, 16020);
    EXPECT_EQ(found->start_code, 1764790000123);
  }
  for (const char* node : {"/meta-region-server", "/master", "/hbaseid", ""})
    EXPECT_FALSE(zk.Exists(target.root + node)) << target.root << node << " left behind";
  auto gone = LookupMetaRegionServer(target, milliseconds(20000));
  EXPECT_EQ(gone.status().code(), Status::Code::kNotFound);
  EXPECT_NE(gone.status().message().find("no HBase server is registered"), std::string::npos)
      << gone.status().ToString();
}

// The children of `path`, sorted; empty when it is missing.
std::vector<std::string> Children(Reader& zk, const std::string& path) {
  String_vector children{};
  std::vector<std::string> out;
  if (zoo_get_children(zk.handle(), path.c_str(), 0, &children) != ZOK) return out;
  for (int i = 0; i < children.count; ++i) out.push_back(children.data[i]);
  deallocate_String_vector(&children);
  std::sort(out.begin(), out.end());
  return out;
}

// A null cluster's servers on one root: server 0 is the master and meta's
// server and a region server, the others region servers alone; each its
// ephemeral <root>/rs/HOST,PORT,START node holding RegionServerInfo, as
// HRegionServer.createMyEphemeralNode writes it. A region server leaving
// takes its node alone; the last one out takes <root>/rs too.
TEST(ZooKeeperRegistration, ClusterServersRegisterAsRegionServers) {
  SKIP_WITHOUT_ZOOKEEPER();
  const std::string quorum = ZooKeeperEnvironment::Instance()->quorum();
  const ZooKeeperTarget target{quorum, UniqueRoot("cluster")};
  Reader zk(quorum);
  ASSERT_TRUE(zk.connected());
  const ServerName s0 = TestServer(), s1{"127.0.0.1", 16021, 1764790000124},
                   s2{"127.0.0.1", 16022, 1764790000125};
  auto reg0 = ZooKeeperRegistration::Register(target, s0, "cid", milliseconds(20000),
                                              {.master = true, .region_server = true});
  ASSERT_TRUE(reg0.ok()) << reg0.status().ToString();
  std::optional<std::unique_ptr<ZooKeeperRegistration>> regs[2];
  for (int i = 0; i < 2; ++i) {
    auto r = ZooKeeperRegistration::Register(target, i == 0 ? s1 : s2, "cid", milliseconds(20000),
                                             {.master = false, .region_server = true});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    regs[i] = std::move(r).value();
  }
  const std::string rs = target.root + "/rs/";
  EXPECT_EQ(Children(zk, target.root + "/rs"),
            (std::vector<std::string>{"127.0.0.1,16020,1764790000123",
                                      "127.0.0.1,16021,1764790000124",
                                      "127.0.0.1,16022,1764790000125"}));
  for (const ServerName& s : {s0, s1, s2}) {
    std::string data;
    Stat st{};
    ASSERT_EQ(zk.Get(rs + ServerNameText(s), &data, &st), ZOK) << ServerNameText(s);
    EXPECT_NE(st.ephemeralOwner, 0) << "ephemeral, as HBase's";
    EXPECT_EQ(CheckMetadataPrefix(data, getpid()), RegionServerData());
  }
  auto found = LookupMetaRegionServer(target, milliseconds(20000));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->port, 16020) << "server 0 holds meta; the others wrote no meta location";
  regs[1]->reset();
  EXPECT_FALSE(zk.Exists(rs + ServerNameText(s2)));
  EXPECT_TRUE(zk.Exists(rs + ServerNameText(s0)));
  EXPECT_TRUE(zk.Exists(target.root + "/meta-region-server"));
  reg0->reset();  // The master goes before the last region server.
  EXPECT_FALSE(zk.Exists(target.root + "/meta-region-server"));
  EXPECT_FALSE(zk.Exists(target.root + "/master"));
  EXPECT_EQ(Children(zk, target.root + "/rs"),
            (std::vector<std::string>{"127.0.0.1,16021,1764790000124"}));
  regs[0]->reset();
  EXPECT_FALSE(zk.Exists(target.root + "/rs")) << "emptied by the last region server: removed";
  // The root is its creator's to remove, and server 0 left while its peers
  // were still there (a cluster stopped server 0 last leaves nothing).
  EXPECT_EQ(Children(zk, target.root), std::vector<std::string>{});
  EXPECT_EQ(zoo_delete(zk.handle(), target.root.c_str(), -1), ZOK);
}

// A region server alone writes no master node, meta location or cluster id.
TEST(ZooKeeperRegistration, ARegionServerAloneWritesOnlyItsNode) {
  SKIP_WITHOUT_ZOOKEEPER();
  const std::string quorum = ZooKeeperEnvironment::Instance()->quorum();
  const ZooKeeperTarget target{quorum, UniqueRoot("rs-alone")};
  Reader zk(quorum);
  ASSERT_TRUE(zk.connected());
  {
    auto reg = ZooKeeperRegistration::Register(target, TestServer(), "cid", milliseconds(20000),
                                               {.master = false, .region_server = true});
    ASSERT_TRUE(reg.ok()) << reg.status().ToString();
    EXPECT_EQ(Children(zk, target.root), (std::vector<std::string>{"rs"}));
    EXPECT_EQ(LookupMetaRegionServer(target, milliseconds(20000)).status().code(),
              Status::Code::kNotFound);
  }
  EXPECT_FALSE(zk.Exists(target.root));
}

TEST(ZooKeeperRegistration, CreatesNestedRootsAndKeepsARootItDidNotCreate) {
  SKIP_WITHOUT_ZOOKEEPER();
  const std::string quorum = ZooKeeperEnvironment::Instance()->quorum();
  const std::string parent = UniqueRoot("nested");
  Reader zk(quorum);
  ASSERT_TRUE(zk.connected());
  {
    auto reg = ZooKeeperRegistration::Register({quorum, parent + "/a/hbase"}, TestServer(), "c",
                                               milliseconds(20000));
    ASSERT_TRUE(reg.ok()) << reg.status().ToString();
    EXPECT_TRUE(zk.Exists(parent + "/a/hbase/meta-region-server"));
  }
  EXPECT_FALSE(zk.Exists(parent + "/a/hbase")) << "created by the registration: removed";
  EXPECT_TRUE(zk.Exists(parent + "/a")) << "a parent is left, as HBase leaves it";
  // A root that was there before is left in place.
  ASSERT_EQ(zoo_create(zk.handle(), (parent + "/pre").c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE,
                       ZOO_PERSISTENT, nullptr, 0),
            ZOK);
  {
    auto reg = ZooKeeperRegistration::Register({quorum, parent + "/pre"}, TestServer(), "c",
                                               milliseconds(20000));
    ASSERT_TRUE(reg.ok()) << reg.status().ToString();
  }
  EXPECT_TRUE(zk.Exists(parent + "/pre"));
  EXPECT_FALSE(zk.Exists(parent + "/pre/meta-region-server"));
}

TEST(ZooKeeperRegistration, ASecondServerTakesOverAndTheFirstLeavesItsNodesAlone) {
  SKIP_WITHOUT_ZOOKEEPER();
  const std::string quorum = ZooKeeperEnvironment::Instance()->quorum();
  const ZooKeeperTarget target{quorum, UniqueRoot("takeover")};
  auto first = ZooKeeperRegistration::Register(target, TestServer(), "c1", milliseconds(20000));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const ServerName second_name{"127.0.0.1", 16021, 42};
  auto second = ZooKeeperRegistration::Register(target, second_name, "c2", milliseconds(20000));
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  first->reset();  // The first server stops after the second registered.
  auto found = LookupMetaRegionServer(target, milliseconds(20000));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->port, 16021);
  EXPECT_EQ(found->start_code, 42);
  Reader zk(quorum);
  ASSERT_TRUE(zk.connected());
  EXPECT_TRUE(zk.Exists(target.root + "/master"));
  EXPECT_TRUE(zk.Exists(target.root + "/hbaseid"));
}

// Polls `pred` every 100 ms until it holds or `limit` passes; its last answer.
template <typename Pred>
bool Until(Pred pred, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(milliseconds(100));
  return pred();
}

// A server killed without a clean stop: its ephemeral master node goes when
// ZooKeeper expires the session (10 s), the persistent nodes stay, as a dead
// HBase server's meta location stays until a new one is written.
TEST(ZooKeeperRegistration, EphemeralNodeVanishesWhenAKilledServersSessionExpires) {
  SKIP_WITHOUT_ZOOKEEPER();
  const std::string quorum = ZooKeeperEnvironment::Instance()->quorum();
  const ZooKeeperTarget target{quorum, UniqueRoot("killed")};
  Reader zk(quorum);
  ASSERT_TRUE(zk.connected());
  const pid_t child = ForkRegisteredServer(target);
  ASSERT_GT(child, 0);
  const bool registered =
      Until([&] { return zk.Exists(target.root + "/meta-region-server"); }, std::chrono::seconds(30));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(registered);
  std::string data;
  Stat st{};
  ASSERT_EQ(zk.Get(target.root + "/master", &data, &st), ZOK);
  EXPECT_EQ(CheckMetadataPrefix(data, child).substr(0, 4), "PBUF") << "written by the child";
  EXPECT_TRUE(Until([&] { return !zk.Exists(target.root + "/master"); }, std::chrono::seconds(40)))
      << "the ephemeral master node outlived its session";
  EXPECT_TRUE(zk.Exists(target.root + "/meta-region-server"));
  EXPECT_TRUE(zk.Exists(target.root + "/hbaseid"));
}

// Two servers on one root: the second takes the first's place, then dies
// without a clean stop (SIGKILL). Once ZooKeeper expires its session and its
// ephemeral master node goes, the first, alive, registers again: the meta
// location names a live server, not the dead one.
TEST(ZooKeeperRegistration, ALiveServerTakesTheRootBackWhenTheOneThatTookItDies) {
  SKIP_WITHOUT_ZOOKEEPER();
  const std::string quorum = ZooKeeperEnvironment::Instance()->quorum();
  const ZooKeeperTarget target{quorum, UniqueRoot("takeback")};
  // Each server a process of its own (a lookup closes its own session).
  const auto serve = [&](const ServerName& name) { return ForkRegisteredServer(target, name); };
  const auto names = [&](int64_t code) {
    auto found = LookupMetaRegionServer(target, milliseconds(5000));
    return found.ok() && found->start_code == code;
  };
  const ServerName first_name = TestServer();
  const pid_t first = serve(first_name);
  ASSERT_GT(first, 0);
  const bool first_registered = Until([&] { return names(first_name.start_code); },
                                      std::chrono::seconds(30));
  const pid_t second = first_registered ? serve({"127.0.0.1", 16021, 42}) : -1;
  const bool taken = second > 0 && Until([&] { return names(42); }, std::chrono::seconds(30));
  if (second > 0) {
    kill(second, SIGKILL);
    waitpid(second, nullptr, 0);
  }
  const bool back =
      taken && Until([&] { return names(first_name.start_code); }, std::chrono::seconds(45));
  kill(first, SIGKILL);
  waitpid(first, nullptr, 0);
  ASSERT_TRUE(first_registered);
  ASSERT_TRUE(taken) << "the second server never took the root";
  EXPECT_TRUE(back) << "hbase:meta's location still names the dead server";
}

// A server frozen past its session timeout (SIGSTOP here, 14 s against the
// 10 s timeout) loses its session and with it the ephemeral master node;
// the node was never written again and nothing was logged. Now, once it
// runs again, it opens a new session and registers again.
TEST(ZooKeeperRegistration, AFrozenServerRegistersAgainAfterItsSessionExpires) {
  SKIP_WITHOUT_ZOOKEEPER();
  const std::string quorum = ZooKeeperEnvironment::Instance()->quorum();
  const ZooKeeperTarget target{quorum, UniqueRoot("frozen")};
  Reader zk(quorum);
  ASSERT_TRUE(zk.connected());
  const pid_t child = ForkRegisteredServer(target);
  ASSERT_GT(child, 0);
  const std::string master = target.root + "/master";
  const bool registered = Until([&] { return zk.Exists(master); }, std::chrono::seconds(30));
  int64_t first_owner = 0;
  if (registered) {
    std::string data;
    Stat st{};
    zk.Get(master, &data, &st);
    first_owner = st.ephemeralOwner;
    kill(child, SIGSTOP);
  }
  const bool expired = registered && Until([&] { return !zk.Exists(master); }, std::chrono::seconds(40));
  kill(child, SIGCONT);
  const bool again = expired && Until([&] { return zk.Exists(master); }, std::chrono::seconds(40));
  std::string data;
  Stat st{};
  const int rc = zk.Get(master, &data, &st);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(registered);
  ASSERT_TRUE(expired) << "the session outlived 40 s of SIGSTOP";
  ASSERT_TRUE(again) << "the master node was not written again after the session expired";
  ASSERT_EQ(rc, ZOK);
  EXPECT_NE(st.ephemeralOwner, first_owner) << "written by a new session";
  EXPECT_EQ(CheckMetadataPrefix(data, child).substr(0, 4), "PBUF") << "written by the child";
}

// The same for a region server alone: once it runs again its node under
// <root>/rs is there again, under its new session.
TEST(ZooKeeperRegistration, AFrozenRegionServerRegistersItsNodeAgain) {
  SKIP_WITHOUT_ZOOKEEPER();
  const std::string quorum = ZooKeeperEnvironment::Instance()->quorum();
  const ZooKeeperTarget target{quorum, UniqueRoot("frozen-rs")};
  Reader zk(quorum);
  ASSERT_TRUE(zk.connected());
  const pid_t child = ForkRegisteredServer(target, TestServer(), /*region_server_alone=*/true);
  ASSERT_GT(child, 0);
  const std::string node = target.root + "/rs/" + ServerNameText(TestServer());
  const bool registered = Until([&] { return zk.Exists(node); }, std::chrono::seconds(30));
  if (registered) kill(child, SIGSTOP);
  const bool expired =
      registered && Until([&] { return !zk.Exists(node); }, std::chrono::seconds(40));
  kill(child, SIGCONT);
  const bool again = expired && Until([&] { return zk.Exists(node); }, std::chrono::seconds(40));
  const bool master = zk.Exists(target.root + "/master");
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(registered);
  ASSERT_TRUE(expired) << "the session outlived 40 s of SIGSTOP";
  EXPECT_TRUE(again) << "the region server's node was not written again";
  EXPECT_FALSE(master) << "a region server alone is no master";
}

// Nothing listening: a clear error within the timeout, not a hang.
TEST(ZooKeeperRegistration, UnreachableZooKeeperIsAClearErrorWithinTheTimeout) {
  const std::string quorum = "127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
  const auto start = std::chrono::steady_clock::now();
  auto reg = ZooKeeperRegistration::Register({quorum, "/hbase"}, TestServer(), "c",
                                             milliseconds(1500));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(reg.ok());
  EXPECT_EQ(reg.status().code(), Status::Code::kUnavailable);
  EXPECT_NE(reg.status().message().find("ZooKeeper at " + quorum + " did not answer within 1500 ms"),
            std::string::npos)
      << reg.status().ToString();
  EXPECT_NE(reg.status().message().find("is it running"), std::string::npos);
  EXPECT_GE(took, milliseconds(1400));
  EXPECT_LT(took, milliseconds(6000)) << "the timeout was not kept";

  auto lookup = LookupMetaRegionServer({quorum, "/hbase"}, milliseconds(500));
  EXPECT_EQ(lookup.status().code(), Status::Code::kUnavailable);
}

// A peer that accepts and never answers (not ZooKeeper, or a hung one).
TEST(ZooKeeperRegistration, SilentPeerIsAClearErrorWithinTheTimeout) {
  testing::SilentListener silent;
  const std::string quorum = "127.0.0.1:" + std::to_string(silent.port());
  const auto start = std::chrono::steady_clock::now();
  auto reg = ZooKeeperRegistration::Register({quorum, "/hbase"}, TestServer(), "c",
                                             milliseconds(1500));
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(reg.ok());
  EXPECT_EQ(reg.status().code(), Status::Code::kUnavailable) << reg.status().ToString();
  EXPECT_LT(took, milliseconds(6000)) << "the timeout was not kept";
}

TEST(ZooKeeperRegistration, RefusesAnUnresolvableHostAndMissingServerFields) {
  auto bad_host = ZooKeeperRegistration::Register({"no-such-host.invalid:2181", "/hbase"},
                                                  TestServer(), "c", milliseconds(1500));
  ASSERT_FALSE(bad_host.ok());
  EXPECT_NE(bad_host.status().message().find("no-such-host.invalid"), std::string::npos)
      << bad_host.status().ToString();
  EXPECT_EQ(ZooKeeperRegistration::Register({"127.0.0.1:1", "/hbase"}, {"", 1, 1}, "c",
                                            milliseconds(100))
                .status()
                .code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(ZooKeeperRegistration::Register({"127.0.0.1:1", "/hbase"}, TestServer(), "",
                                            milliseconds(100))
                .status()
                .code(),
            Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace wirebench::hbase
