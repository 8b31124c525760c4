// What HBase's Java client (hbase-client 2.5/2.6) reads from ZooKeeper with
// its default registry, ZKConnectionRegistry, replayed against `wirebench
// server --rpc hbase --zookeeper QUORUM` and Debian's ZooKeeper (started once
// for this binary, stopped by PID). Written from the client's source, not
// from wirebench's writer (transports/hbase/zookeeper_registration.cc):
//  - getMetaRegionLocations: list the children of zookeeper.znode.parent
//    (/hbase), keep those starting with "meta-region-server" (the replica id
//    is what follows "meta-region-server-", none for replica 0, parsed with
//    Integer.parseInt), get each, RecoverableZooKeeper.removeMetaData (a 0xFF
//    magic, a 4-byte big-endian id length, the id), skip the 4-byte PBUF
//    magic, parse ZooKeeperProtos.MetaRegionServer {server = 1 ServerName
//    {host_name = 1, port = 2, start_code = 3}, rpc_version = 2, state = 3};
//    no state is OPEN, any other than OPEN (3) is logged;
//  - getClusterId: get /hbase/hbaseid, removeMetaData, ClusterId.parseFrom
//    (PBUF, then ClusterIdProtos.ClusterId {cluster_id = 1 string});
//  - getActiveMaster: get /hbase/master, removeMetaData, skip PBUF,
//    ZooKeeperProtos.Master {master = 1 ServerName}.
// Then the located address is where the client connects: the connection
// preamble, a ConnectionHeader and a Get on hbase:meta are answered there
// without an exception.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zookeeper/zookeeper.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/read_file.h"
#include "tests/silent_listener.h"
#include "tests/zookeeper_fixture.h"

namespace wirebench {
namespace {

using testing::ZooKeeperEnvironment;

const std::string kBinary = WIREBENCH_BINARY_DIR "/bench/wirebench";

using testing::ReadFile;

// ---- A few protobuf wire-format helpers (proto2, as HBase's messages) ----

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(char(v | 0x80));
    v >>= 7;
  }
  out->push_back(char(v));
}
void PutBytes(std::string* out, int field, const std::string& v) {
  PutVarint(out, uint64_t(field) << 3 | 2);
  PutVarint(out, v.size());
  out->append(v);
}
void PutUint(std::string* out, int field, uint64_t v) {
  PutVarint(out, uint64_t(field) << 3);
  PutVarint(out, v);
}
std::string Delimited(const std::string& m) {
  std::string out;
  PutVarint(&out, m.size());
  return out + m;
}

bool GetVarint(const std::string& in, size_t* pos, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *pos < in.size(); shift += 7) {
    const auto b = static_cast<uint8_t>(in[(*pos)++]);
    *v |= uint64_t(b & 0x7F) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

// A message's fields: varints and length-delimited values by field number
// (the last of each, as protobuf reads a non-repeated field). nullopt when
// the bytes are not a message.
struct Fields {
  std::map<int, uint64_t> varints;
  std::map<int, std::string> bytes;
};
std::optional<Fields> ParseFields(const std::string& in) {
  Fields f;
  size_t pos = 0;
  while (pos < in.size()) {
    uint64_t tag, v;
    if (!GetVarint(in, &pos, &tag)) return std::nullopt;
    const int field = int(tag >> 3);
    switch (tag & 7) {
      case 0:
        if (!GetVarint(in, &pos, &v)) return std::nullopt;
        f.varints[field] = v;
        break;
      case 2:
        if (!GetVarint(in, &pos, &v) || v > in.size() - pos) return std::nullopt;
        f.bytes[field] = in.substr(pos, v);
        pos += v;
        break;
      default:
        return std::nullopt;  // None of these messages has another wire type.
    }
  }
  return f;
}

// RecoverableZooKeeper.removeMetaData.
std::string RemoveMetaData(const std::string& data) {
  if (data.empty() || static_cast<uint8_t>(data[0]) != 0xFF || data.size() < 5) return data;
  const uint32_t id_length = uint32_t(uint8_t(data[1])) << 24 | uint32_t(uint8_t(data[2])) << 16 |
                             uint32_t(uint8_t(data[3])) << 8 | uint32_t(uint8_t(data[4]));
  if (id_length > data.size() - 5) return "";  // Java: NegativeArraySizeException.
  return data.substr(5 + id_length);
}

struct ServerName {
  std::string host;
  uint32_t port = 0;
  uint64_t start_code = 0;
};
std::optional<ServerName> ParseServerName(const std::string& bytes) {
  auto f = ParseFields(bytes);
  if (!f || !f->bytes.count(1)) return std::nullopt;  // host_name is required.
  return ServerName{f->bytes[1], uint32_t(f->varints[2]), f->varints[3]};
}

// ---- The ZooKeeper reads (synchronous C client) ----

class ZooKeeperReader {
 public:
  explicit ZooKeeperReader(const std::string& quorum) {
    zoo_set_debug_level(ZOO_LOG_LEVEL_WARN);
    zh_ = zookeeper_init(quorum.c_str(), nullptr, 10000, nullptr, nullptr, 0);
    for (int i = 0; i < 100 && zh_ && zoo_state(zh_) != ZOO_CONNECTED_STATE; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ~ZooKeeperReader() {
    if (zh_) zookeeper_close(zh_);
  }
  bool connected() const { return zh_ && zoo_state(zh_) == ZOO_CONNECTED_STATE; }
  std::optional<std::string> Get(const std::string& path) {
    std::string buf(1 << 20, '\0');
    int len = int(buf.size());
    Stat st;
    if (zoo_get(zh_, path.c_str(), 0, buf.data(), &len, &st) != ZOK) return std::nullopt;
    buf.resize(len < 0 ? 0 : size_t(len));
    return buf;
  }
  std::vector<std::string> Children(const std::string& path) {
    String_vector v{};
    std::vector<std::string> out;
    if (zoo_get_children(zh_, path.c_str(), 0, &v) != ZOK) return out;
    for (int i = 0; i < v.count; ++i) out.emplace_back(v.data[i]);
    deallocate_String_vector(&v);
    return out;
  }

 private:
  zhandle_t* zh_ = nullptr;
};

// ---- One call at the located address, as the Java client makes it ----

int ConnectTo(const ServerName& sn) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(sn.host.c_str(), std::to_string(sn.port).c_str(), &hints, &res) != 0) return -1;
  int fd = -1;
  for (addrinfo* a = res; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd >= 0) {
    timeval tv{10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  return fd;
}

bool WriteAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}
bool ReadExactly(int fd, size_t n, std::string* out) {
  out->assign(n, '\0');
  size_t done = 0;
  while (done < n) {
    const ssize_t r = read(fd, out->data() + done, n - done);
    if (r <= 0) return false;
    done += size_t(r);
  }
  return true;
}
std::string Frame(const std::string& body) {
  const uint32_t n = htonl(uint32_t(body.size()));
  return std::string(reinterpret_cast<const char*>(&n), 4) + body;
}

// The preamble, a ConnectionHeader (user, ClientService, KeyValueCodec, a
// 2.5 version_info) and a Get on hbase:meta,,1; returns the response's
// header fields, or an error string.
std::string GetOnMeta(const ServerName& sn, Fields* header) {
  const int fd = ConnectTo(sn);
  if (fd < 0) return "cannot connect to " + sn.host + ":" + std::to_string(sn.port);
  std::string user, conn, version;
  PutBytes(&user, 1, "wirebench-test");
  PutBytes(&version, 1, "2.5.10");
  PutBytes(&version, 2, "https://gitbox.apache.org/repos/asf/hbase.git");
  PutBytes(&version, 3, "0");
  PutBytes(&version, 4, "wirebench");
  PutBytes(&version, 5, "today");
  PutBytes(&version, 6, "0");
  PutUint(&version, 7, 2);
  PutUint(&version, 8, 5);
  PutBytes(&conn, 1, user);
  PutBytes(&conn, 2, "ClientService");
  PutBytes(&conn, 3, "org.apache.hadoop.hbase.codec.KeyValueCodec");
  PutBytes(&conn, 5, version);
  std::string region, get, request, request_header;
  PutUint(&region, 1, 1);  // REGION_NAME
  PutBytes(&region, 2, "hbase:meta,,1");
  PutBytes(&get, 1, "t,,99999999999999");
  PutBytes(&request, 1, region);
  PutBytes(&request, 2, get);
  PutUint(&request_header, 1, 1);  // call_id
  PutBytes(&request_header, 3, "Get");
  PutUint(&request_header, 4, 1);  // request_param
  std::string out = std::string("HBas\x00\x50", 6) + Frame(conn) +
                    Frame(Delimited(request_header) + Delimited(request));
  std::string len, body;
  std::string error;
  if (!WriteAll(fd, out)) {
    error = "cannot write the call";
  } else if (!ReadExactly(fd, 4, &len)) {
    error = "no answer to the call";
  } else {
    const uint32_t n = uint32_t(uint8_t(len[0])) << 24 | uint32_t(uint8_t(len[1])) << 16 |
                       uint32_t(uint8_t(len[2])) << 8 | uint32_t(uint8_t(len[3]));
    size_t pos = 0;
    uint64_t header_len = 0;
    if (n > (16u << 20) || !ReadExactly(fd, n, &body) || !GetVarint(body, &pos, &header_len) ||
        header_len > body.size() - pos) {
      error = "a malformed answer";
    } else if (auto h = ParseFields(body.substr(pos, header_len))) {
      *header = *h;
    } else {
      error = "a malformed ResponseHeader";
    }
  }
  close(fd);
  return error;
}

// Starts the server with --zookeeper `flag` and replays the client's reads
// under `parent` (the client's zookeeper.znode.parent).
void ReplayRegistry(const std::string& flag, const std::string& parent, const std::string& name) {
  const std::string quorum = ZooKeeperEnvironment::Instance()->quorum();
  const std::string stem =
      ::testing::TempDir() + "/hbase_java_zk_" + name + "_" + std::to_string(getpid());
  testing::WirebenchProcess server(
      kBinary,
      {"server", "--rpc", "hbase", "--port", "0", "--region", "memstore", "--zookeeper", flag},
      stem);
  ZooKeeperReader zk(quorum);
  ASSERT_TRUE(zk.connected()) << "cannot connect to ZooKeeper at " << quorum;
  std::vector<std::string> metas;
  for (int i = 0; i < 300 && metas.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (const std::string& child : zk.Children(parent))
      if (child.rfind("meta-region-server", 0) == 0) metas.push_back(child);
  }
  ASSERT_FALSE(metas.empty()) << "no meta-region-server under " << parent << ": "
                              << ReadFile(stem + ".err");

  // getMetaRegionLocations: every meta znode's replica id parses, replica 0 is there.
  bool default_replica = false;
  std::optional<ServerName> meta_server;
  for (const std::string& child : metas) {
    if (child == "meta-region-server") {
      default_replica = true;
    } else {
      const std::string id = child.size() > 19 ? child.substr(19) : "";
      EXPECT_TRUE(child[18] == '-' && !id.empty() &&
                  id.find_first_not_of("0123456789") == std::string::npos)
          << child << ": Integer.parseInt would throw on the replica id";
    }
    auto data = zk.Get(parent + "/" + child);
    ASSERT_TRUE(data.has_value()) << child;
    const std::string pb = RemoveMetaData(*data);
    ASSERT_GE(pb.size(), 4u) << child;
    EXPECT_EQ(pb.substr(0, 4), "PBUF") << "the client skips 4 bytes it expects to be PBUF";
    auto mrs = ParseFields(pb.substr(4));
    ASSERT_TRUE(mrs.has_value()) << "MetaRegionServer does not parse";
    ASSERT_TRUE(mrs->bytes.count(1)) << "MetaRegionServer.server is required";
    auto sn = ParseServerName(mrs->bytes[1]);
    ASSERT_TRUE(sn.has_value()) << "ServerName.host_name is required";
    EXPECT_FALSE(sn->host.empty());
    EXPECT_GT(sn->port, 0u);
    if (mrs->varints.count(3)) {
      EXPECT_EQ(mrs->varints[3], 3u) << "RegionState.State OPEN";
    }
    if (child == "meta-region-server") meta_server = sn;
  }
  ASSERT_TRUE(default_replica) << "the client needs replica 0's znode, meta-region-server";

  // getClusterId.
  auto id_data = zk.Get(parent + "/hbaseid");
  ASSERT_TRUE(id_data.has_value())
      << parent << "/hbaseid missing: the client logs a null cluster id";
  const std::string id_pb = RemoveMetaData(*id_data);
  ASSERT_EQ(id_pb.substr(0, 4), "PBUF") << "without PBUF the client reads the bytes as the id";
  auto cluster = ParseFields(id_pb.substr(4));
  ASSERT_TRUE(cluster.has_value() && cluster->bytes.count(1)) << "ClusterId.cluster_id is required";
  EXPECT_FALSE(cluster->bytes[1].empty());

  // getActiveMaster.
  auto master_data = zk.Get(parent + "/master");
  ASSERT_TRUE(master_data.has_value()) << parent << "/master missing";
  const std::string master_pb = RemoveMetaData(*master_data);
  ASSERT_GE(master_pb.size(), 4u);
  EXPECT_EQ(master_pb.substr(0, 4), "PBUF");
  auto master = ParseFields(master_pb.substr(4));
  ASSERT_TRUE(master.has_value() && master->bytes.count(1)) << "Master.master is required";
  auto master_sn = ParseServerName(master->bytes[1]);
  ASSERT_TRUE(master_sn.has_value());
  EXPECT_EQ(master_sn->host, meta_server->host);
  EXPECT_EQ(master_sn->port, meta_server->port);

  // The located server answers the client's first call on hbase:meta.
  Fields header;
  const std::string error = GetOnMeta(*meta_server, &header);
  ASSERT_EQ(error, "") << ReadFile(stem + ".err");
  EXPECT_EQ(header.varints[1], 1u) << "the answer carries the call id";
  EXPECT_EQ(header.bytes.count(2), 0u) << "an exception: " << header.bytes[2];
}

// With the client's defaults: no root in the flag is HBase's default
// zookeeper.znode.parent, /hbase.
TEST(HBaseJavaZooKeeperRegistry, ReadsWhatZKConnectionRegistryReadsAndFindsTheServer) {
  if (std::string why = ZooKeeperEnvironment::SkipReason(); !why.empty()) GTEST_SKIP() << why;
  ReplayRegistry(ZooKeeperEnvironment::Instance()->quorum(), "/hbase", "default");
}

// A cluster whose zookeeper.znode.parent is not /hbase (e.g. HDP's
// /hbase-unsecure): the root in the flag is the client's parent.
TEST(HBaseJavaZooKeeperRegistry, ReadsUnderANonDefaultZNodeParent) {
  if (std::string why = ZooKeeperEnvironment::SkipReason(); !why.empty()) GTEST_SKIP() << why;
  ReplayRegistry(ZooKeeperEnvironment::Instance()->quorum() + "/hbase-unsecure", "/hbase-unsecure",
                 "parent");
}

}  // namespace
}  // namespace wirebench
