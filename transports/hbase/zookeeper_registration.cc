#include "transports/hbase/zookeeper_registration.h"

#include <unistd.h>
#include <zookeeper/zookeeper.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <random>
#include <vector>

#include "common/str_cat.h"
#include "rpc/log.h"

namespace wirebench::hbase {

namespace {

constexpr std::string_view kPbMagic = "PBUF";  // ProtobufUtil.PB_MAGIC.
constexpr uint8_t kMetadataMagic = 0xFF;       // ZKMetadata.MAGIC.
constexpr size_t kSaltBytes = 8;               // ZKMetadata's random long after the id.
// HConstants.RPC_CURRENT_VERSION, written as rpc_version by HBase 0.96 on.
constexpr uint32_t kRpcCurrentVersion = 0;
// RegionState.State.OPEN in ClusterStatus.proto.
constexpr uint32_t kRegionStateOpen = 3;
// RegionServerInfo.info_port of a region server without a web UI (HBase
// writes -1 when its info server is off).
constexpr int32_t kNoInfoPort = -1;
// The session's timeout: how long the ephemeral master node outlives a
// server that died without closing its session. ZooKeeper clamps it to
// between 2 and 20 ticks (6 to 60 s with a standalone server's 3 s tick).
constexpr int kSessionTimeoutMs = 10000;
// ZooKeeper's default jute.maxbuffer is 1 MB; HBase's nodes are a few dozen bytes.
constexpr int kMaxNodeData = 1 << 20;

// --- protobuf, the few wire forms these messages use ---

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(char(uint8_t(v) | 0x80));
    v >>= 7;
  }
  out->push_back(char(v));
}
void PutVarintField(std::string* out, int field, uint64_t v) {
  PutVarint(out, uint64_t(field) << 3);  // Wire type 0.
  PutVarint(out, v);
}
void PutBytesField(std::string* out, int field, std::string_view bytes) {
  PutVarint(out, (uint64_t(field) << 3) | 2);
  PutVarint(out, bytes.size());
  out->append(bytes);
}

// HBaseProtos.ServerName, every field set as ProtobufUtil.toServerName does.
std::string EncodeServerName(const ServerName& s) {
  std::string m;
  PutBytesField(&m, 1, s.host);
  PutVarintField(&m, 2, s.port);
  PutVarintField(&m, 3, uint64_t(s.start_code));  // uint64: two's complement, as Java's.
  return m;
}

// Reads protobuf fields; only what ServerName and MetaRegionServer need.
class FieldReader {
 public:
  explicit FieldReader(std::string_view in) : in_(in) {}
  bool done() const { return pos_ >= in_.size(); }
  // Next field's number and wire type; false at malformed input.
  bool Next(int* field, int* wire_type) {
    uint64_t key;
    if (!Varint(&key) || key >> 3 == 0 || key >> 3 > (1u << 29)) return false;
    *field = int(key >> 3);
    *wire_type = int(key & 7);
    return true;
  }
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && pos_ < in_.size(); shift += 7) {
      const uint8_t b = uint8_t(in_[pos_++]);
      *v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  bool Bytes(std::string_view* v) {
    uint64_t n;
    if (!Varint(&n) || n > in_.size() - pos_) return false;
    *v = in_.substr(pos_, size_t(n));
    pos_ += size_t(n);
    return true;
  }
  // Skips a field of `wire_type` (forward compatibility, as protobuf does).
  bool Skip(int wire_type) {
    uint64_t v;
    std::string_view b;
    switch (wire_type) {
      case 0: return Varint(&v);
      case 1: return Advance(8);
      case 2: return Bytes(&b);
      case 5: return Advance(4);
      default: return false;
    }
  }

 private:
  bool Advance(size_t n) {
    if (n > in_.size() - pos_) return false;
    pos_ += n;
    return true;
  }
  std::string_view in_;
  size_t pos_ = 0;
};

StatusOr<ServerName> DecodeServerName(std::string_view bytes) {
  const Status malformed = Status::Corruption("malformed ServerName message");
  ServerName s;
  bool have_host = false;
  FieldReader r(bytes);
  while (!r.done()) {
    int field, type;
    if (!r.Next(&field, &type)) return malformed;
    uint64_t v = 0;
    std::string_view b;
    if (field == 1 && type == 2) {
      if (!r.Bytes(&b)) return malformed;
      s.host = std::string(b);
      have_host = true;
    } else if ((field == 2 || field == 3) && type == 0) {
      if (!r.Varint(&v)) return malformed;
      if (field == 3) {
        s.start_code = int64_t(v);
      } else if (v == 0 || v > 65535) {
        return Status::Corruption(StrCat("ServerName port ", std::to_string(v), " out of range"));
      } else {
        s.port = uint16_t(v);
      }
    } else if (!r.Skip(type)) {
      return malformed;
    }
  }
  if (!have_host) return Status::Corruption("ServerName without host_name (a required field)");
  return s;
}

// --- RecoverableZooKeeper's metadata prefix ---

// "pid@hostname", the JVM's RuntimeMXBean name HBase uses as the default id.
std::string ProcessIdentifier() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) std::strcpy(host, "localhost");
  return StrCat(std::to_string(getpid()), "@", host);
}

// ZKMetadata.appendMetaData: 0xFF, big-endian length of id + salt, the id, an
// 8-byte random salt, then the data. Empty data gets no prefix.
std::string WithMetadata(const std::string& id, std::string_view data) {
  if (data.empty()) return std::string();
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  const uint64_t salt = rng();
  const uint32_t id_length = uint32_t(id.size() + kSaltBytes);
  std::string out;
  out.reserve(1 + 4 + id_length + data.size());
  out.push_back(char(kMetadataMagic));
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(char(uint8_t(id_length >> shift)));
  out.append(id);
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(char(uint8_t(salt >> shift)));
  out.append(data);
  return out;
}

// --- the C client ---

// ZooKeeper's C client logs through a callback without a context pointer:
// its messages go here instead of stderr, and the last warning or error is
// quoted in the errors this file returns.
std::mutex g_log_mu;
std::string g_last_log;  // Guarded by g_log_mu.

void LogCallback(const char* message) {
  if (message == nullptr) return;
  std::string_view m(message);
  if (m.find(":ERROR@") == std::string_view::npos && m.find(":WARN@") == std::string_view::npos)
    return;
  std::lock_guard<std::mutex> lock(g_log_mu);
  g_last_log.assign(m);
  while (!g_last_log.empty() && (g_last_log.back() == '\n' || g_last_log.back() == '\r'))
    g_last_log.pop_back();
}

std::string LastClientLog() {
  std::lock_guard<std::mutex> lock(g_log_mu);
  return g_last_log.empty() ? std::string() : StrCat(" (ZooKeeper client: ", g_last_log, ")");
}

std::string NodeError(std::string_view what, const std::string& path, int rc) {
  return StrCat("ZooKeeper refused to ", what, " ", path, ": ", zerror(rc));
}

}  // namespace

// One ZooKeeper session: the C client's handle and the connection state its
// watcher reports.
struct ZooKeeperRegistration::Session {
  zhandle_t* zh = nullptr;
  std::mutex mu;
  std::condition_variable cv;
  int state = 0;  // Guarded by mu: the last session state the watcher saw.
  std::string quorum;
  // Told when ZooKeeper expires the session (null for a lookup's session).
  ZooKeeperRegistration* owner = nullptr;

  ~Session() {
    if (zh != nullptr) zookeeper_close(zh);  // Joins the client's threads.
  }

  static void Watcher(zhandle_t*, int type, int state, const char*, void* ctx) {
    if (type != ZOO_SESSION_EVENT) return;
    auto* s = static_cast<Session*>(ctx);
    {
      std::lock_guard<std::mutex> lock(s->mu);
      s->state = state;
      s->cv.notify_all();
    }
    if (state == ZOO_EXPIRED_SESSION_STATE && s->owner != nullptr) s->owner->OnExpired();
  }

  // Connects and waits for the session, at most `timeout`.
  static StatusOr<std::unique_ptr<Session>> Open(const std::string& quorum,
                                                 std::chrono::milliseconds timeout,
                                                 ZooKeeperRegistration* owner = nullptr) {
    auto s = std::make_unique<Session>();
    s->quorum = quorum;
    s->owner = owner;
    errno = 0;
    s->zh = zookeeper_init2(quorum.c_str(), &Session::Watcher, kSessionTimeoutMs, nullptr,
                            s.get(), 0, &LogCallback);
    if (s->zh == nullptr)
      return Status::InvalidArgument(StrCat("cannot use ZooKeeper quorum '", quorum,
                                            "': ", std::strerror(errno ? errno : EINVAL),
                                            " (check each HOST:PORT of --zookeeper)"));
    std::unique_lock<std::mutex> lock(s->mu);
    const bool settled = s->cv.wait_for(lock, timeout, [&] {
      return s->state == ZOO_CONNECTED_STATE || s->state == ZOO_EXPIRED_SESSION_STATE ||
             s->state == ZOO_AUTH_FAILED_STATE;
    });
    const int state = s->state;
    lock.unlock();
    if (!settled)
      return Status::Unavailable(StrCat(
          "ZooKeeper at ", quorum, " did not answer within ",
          std::to_string(timeout.count()), " ms", LastClientLog(),
          ": is it running and reachable? (start it, or fix --zookeeper HOST:PORT[/ROOT])"));
    if (state != ZOO_CONNECTED_STATE)
      return Status::Unavailable(StrCat("ZooKeeper at ", quorum, " refused the session (",
                                        state == ZOO_AUTH_FAILED_STATE ? "authentication failed"
                                                                       : "session expired",
                                        ")", LastClientLog()));
    return s;
  }

  // The node's data, or the ZooKeeper error code.
  int Get(const std::string& path, std::string* data, Stat* stat) {
    std::vector<char> buf(static_cast<size_t>(kMaxNodeData));
    int len = int(buf.size());
    const int rc = zoo_get(zh, path.c_str(), 0, buf.data(), &len, stat);
    if (rc == ZOK) data->assign(buf.data(), len < 0 ? 0 : size_t(len));
    return rc;
  }
};

StatusOr<ZooKeeperTarget> ParseZooKeeperFlag(std::string_view flag) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(StrCat("--zookeeper '", flag, "': ", why,
                                          "; expected HOST:PORT[,HOST:PORT...][/ROOT], e.g. "
                                          "127.0.0.1:2181 or zk1:2181,zk2:2181/hbase"));
  };
  if (flag.empty()) return bad("empty");
  ZooKeeperTarget t;
  std::string_view hosts = flag;
  // The root starts at the first '/' outside an IPv6 literal's brackets.
  size_t slash = std::string_view::npos;
  for (size_t i = 0, depth = 0; i < flag.size(); ++i) {
    if (flag[i] == '[') ++depth;
    if (flag[i] == ']' && depth > 0) --depth;
    if (flag[i] == '/' && depth == 0) {
      slash = i;
      break;
    }
  }
  if (slash != std::string_view::npos) {
    hosts = flag.substr(0, slash);
    std::string_view root = flag.substr(slash);
    if (root.size() < 2) return bad("the root after '/' is empty");
    if (root.back() == '/') return bad("the root must not end with '/'");
    if (root.find("//") != std::string_view::npos) return bad("the root has an empty component");
    for (char c : root)
      if (c <= 0x1F || c == 0x7F) return bad("the root has a control character");
    t.root = std::string(root);
  }
  if (hosts.empty()) return bad("no HOST:PORT before the root");
  size_t pos = 0;
  while (pos <= hosts.size()) {
    const size_t comma = hosts.find(',', pos);
    std::string_view hp =
        hosts.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (hp.empty()) return bad("an empty HOST:PORT in the list");
    const size_t colon = hp.rfind(':');
    if (colon == std::string_view::npos || colon == 0)
      return bad(StrCat("'", hp, "' has no HOST:PORT form (the port is required)"));
    std::string_view host = hp.substr(0, colon);
    if (host.front() == '[' && (host.size() < 3 || host.back() != ']'))
      return bad(StrCat("'", hp, "': an IPv6 host goes in brackets, [::1]:2181"));
    if (host.front() != '[' && host.find(':') != std::string_view::npos)
      return bad(StrCat("'", hp, "': an IPv6 host goes in brackets, [::1]:2181"));
    std::string_view port = hp.substr(colon + 1);
    unsigned long value = 0;
    if (port.empty() || port.size() > 5) return bad(StrCat("'", hp, "': the port must be 1-65535"));
    for (char c : port) {
      if (c < '0' || c > '9') return bad(StrCat("'", hp, "': the port must be 1-65535"));
      value = value * 10 + unsigned(c - '0');
    }
    if (value == 0 || value > 65535) return bad(StrCat("'", hp, "': the port must be 1-65535"));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  t.quorum = std::string(hosts);
  return t;
}

std::string MetaRegionServerData(const ServerName& server) {
  std::string m;
  PutBytesField(&m, 1, EncodeServerName(server));
  PutVarintField(&m, 2, kRpcCurrentVersion);
  PutVarintField(&m, 3, kRegionStateOpen);
  return StrCat(kPbMagic, m);
}

std::string MasterData(const ServerName& master) {
  std::string m;
  PutBytesField(&m, 1, EncodeServerName(master));
  PutVarintField(&m, 2, kRpcCurrentVersion);
  // info_port: the master's web UI. wirebench has none; HBase writes the
  // field always, so it is written, as 0 (no UI).
  PutVarintField(&m, 3, 0);
  return StrCat(kPbMagic, m);
}

std::string ClusterIdData(const std::string& cluster_id) {
  std::string m;
  PutBytesField(&m, 1, cluster_id);
  return StrCat(kPbMagic, m);
}

std::string RegionServerData() {
  std::string m;
  PutVarintField(&m, 1, uint64_t(int64_t(kNoInfoPort)));  // int32: sign-extended, as Java's.
  return StrCat(kPbMagic, m);
}

std::string ServerNameText(const ServerName& server) {
  return StrCat(server.host, ",", std::to_string(server.port), ",",
                std::to_string(server.start_code));
}

StatusOr<std::string> StripHBaseZNodeData(std::string_view data) {
  std::string_view rest = data;
  if (!rest.empty() && uint8_t(rest[0]) == kMetadataMagic) {
    if (rest.size() < 5) return Status::Corruption("znode data ends inside its metadata length");
    const uint32_t id_length = (uint32_t(uint8_t(rest[1])) << 24) |
                               (uint32_t(uint8_t(rest[2])) << 16) |
                               (uint32_t(uint8_t(rest[3])) << 8) | uint32_t(uint8_t(rest[4]));
    if (id_length > rest.size() - 5)
      return Status::Corruption("znode metadata length runs past the data");
    rest.remove_prefix(5 + id_length);
  }
  if (rest.substr(0, kPbMagic.size()) != kPbMagic)
    return Status::Corruption("znode data lacks HBase's PBUF magic (not written by HBase 0.96+)");
  rest.remove_prefix(kPbMagic.size());
  return std::string(rest);
}

ZooKeeperRegistration::ZooKeeperRegistration(ZooKeeperTarget target,
                                             std::unique_ptr<Session> session)
    : target_(std::move(target)), session_(std::move(session)) {}

StatusOr<std::unique_ptr<ZooKeeperRegistration>> ZooKeeperRegistration::Register(
    const ZooKeeperTarget& target, const ServerName& server, const std::string& cluster_id,
    std::chrono::milliseconds timeout, RegistrationRole role) {
  if (server.host.empty() || server.port == 0)
    return Status::InvalidArgument("ZooKeeper registration needs the server's host and port");
  if (cluster_id.empty()) return Status::InvalidArgument("ZooKeeper registration needs a cluster id");
  std::unique_ptr<ZooKeeperRegistration> reg(new ZooKeeperRegistration(target, nullptr));
  auto session = Session::Open(target.quorum, timeout, reg.get());
  if (!session.ok()) return session.status();
  reg->session_ = std::move(session).value();
  reg->role_ = role;
  reg->server_ = server;
  reg->cluster_id_ = cluster_id;
  Status s = reg->CreateNodes(server, cluster_id);
  if (!s.ok()) return s;  // The destructor removes what was created.
  if (role.master) reg->WatchMaster();
  reg->keeper_ = std::thread([r = reg.get()] { r->Keep(); });
  return reg;
}

namespace {

// ZooKeeper's watcher for the master node: runs on the client's event
// thread, so it only tells the keeper.
void MasterNodeWatcher(zhandle_t*, int type, int, const char*, void* ctx) {
  if (type == ZOO_SESSION_EVENT) return;  // The session's own watcher handles those.
  static_cast<ZooKeeperRegistration*>(ctx)->NotifyMasterChanged();
}

// A live takeover is a delete then a create of the master node; this long
// lets it finish before a watching server looks.
constexpr auto kTakeoverGrace = std::chrono::seconds(1);

}  // namespace

void ZooKeeperRegistration::NotifyMasterChanged() {
  std::lock_guard<std::mutex> lock(keep_mu_);
  master_changed_ = true;
  keep_cv_.notify_all();
}

void ZooKeeperRegistration::WatchMaster() {
  Stat stat{};
  const int rc = zoo_wexists(session_->zh, MasterPath().c_str(), &MasterNodeWatcher, this, &stat);
  if (rc != ZOK && rc != ZNONODE)
    rpc::LogLine(StrCat("cannot watch ", MasterPath(), " in ZooKeeper at ", target_.quorum, ": ",
                        zerror(rc), " (a server that takes this root's place and dies leaves "
                        "this one unregistered until it restarts)"));
}

void ZooKeeperRegistration::OnMasterChanged() {
  {
    std::unique_lock<std::mutex> lock(keep_mu_);
    if (keep_cv_.wait_for(lock, kTakeoverGrace, [&] { return stopping_; })) return;
  }
  std::string data;
  Stat stat{};
  const int rc = session_->Get(MasterPath(), &data, &stat);
  if (rc == ZNONODE) {
    std::string who;
    const bool other = NamesAnotherServer(MetaRegionServerPath(), &who);
    rpc::LogLine(StrCat(MasterPath(), " in ZooKeeper at ", target_.quorum, " is gone",
                        other ? StrCat(" (its server, ", who, ", stopped or died)") : "",
                        ": registering this server again, so HBase clients find a live one"));
    Status s = CreateRoot();
    if (s.ok()) s = CreateMasterNodes(server_, cluster_id_);
    if (s.ok()) {
      reregistrations_.fetch_add(1);
    } else {
      rpc::LogLine(StrCat("registering again in ZooKeeper failed: ", s.message()));
    }
  }
  WatchMaster();
}

void ZooKeeperRegistration::OnExpired() {
  std::lock_guard<std::mutex> lock(keep_mu_);
  expired_ = true;
  keep_cv_.notify_all();
}

void ZooKeeperRegistration::Keep() {
  std::unique_lock<std::mutex> lock(keep_mu_);
  for (;;) {
    keep_cv_.wait(lock, [&] { return stopping_ || expired_ || master_changed_; });
    if (stopping_) return;
    if (!expired_) {
      master_changed_ = false;
      lock.unlock();
      OnMasterChanged();
      lock.lock();
      continue;
    }
    expired_ = false;
    master_changed_ = false;
    lock.unlock();
    rpc::LogLine(StrCat("ZooKeeper at ", target_.quorum,
                        " expired this server's session (the server was stopped or frozen past "
                        "the ", std::to_string(kSessionTimeoutMs / 1000),
                        " s session timeout, or ZooKeeper restarted without its data): its ",
                        MasterPath(), " node is gone; registering again"));
    Reregister();
    lock.lock();
  }
}

bool ZooKeeperRegistration::NamesAnotherServer(const std::string& path, std::string* who) {
  std::string data;
  Stat stat{};
  if (session_->Get(path, &data, &stat) != ZOK) return false;
  auto message = StripHBaseZNodeData(data);
  if (!message.ok()) return false;
  FieldReader r(*message);
  int field, type;
  std::string_view b;
  while (!r.done() && r.Next(&field, &type)) {
    if (field == 1 && type == 2 && r.Bytes(&b)) {
      auto other = DecodeServerName(b);
      if (!other.ok()) return false;
      *who = StrCat(other->host, ":", std::to_string(other->port), " (start code ",
                    std::to_string(other->start_code), ")");
      return other->host != server_.host || other->port != server_.port ||
             other->start_code != server_.start_code;
    }
    if (!r.Skip(type)) return false;
  }
  return false;
}

void ZooKeeperRegistration::Reregister() {
  for (int attempt = 0;; ++attempt) {
    {
      std::lock_guard<std::mutex> lock(keep_mu_);
      if (stopping_) return;
    }
    auto session = Session::Open(target_.quorum, std::chrono::milliseconds(5000), this);
    if (session.ok()) {
      session_ = std::move(session).value();  // The expired one is closed here.
      Status s = CreateRoot();
      if (s.ok() && role_.region_server) s = CreateRegionServerNode();
      std::string who;
      if (s.ok() && role_.master && NamesAnotherServer(MetaRegionServerPath(), &who)) {
        rpc::LogLine(StrCat("another server, ", who, ", registered under ", target_.root,
                            " while this one's session was lost: it stays registered and HBase "
                            "clients find it, not this server (until it goes)"));
        meta_bytes_.clear();
        master_bytes_.clear();
        cluster_id_bytes_.clear();
        WatchMaster();
        return;
      }
      if (s.ok() && role_.master) s = CreateMasterNodes(server_, cluster_id_);
      if (s.ok()) {
        reregistrations_.fetch_add(1);
        rpc::LogLine(StrCat("registered again in ZooKeeper at ", target_.quorum, target_.root));
        if (role_.master) WatchMaster();
        return;
      }
      rpc::LogLine(StrCat("registering again in ZooKeeper failed: ", s.message()));
    } else if (attempt == 0) {
      rpc::LogLine(StrCat("cannot reach ZooKeeper at ", target_.quorum, " to register again (",
                          session.status().message(),
                          "): retrying every 2 s; HBase clients cannot find this server "
                          "through ZooKeeper meanwhile"));
    }
    std::unique_lock<std::mutex> lock(keep_mu_);
    keep_cv_.wait_for(lock, std::chrono::seconds(2), [&] { return stopping_; });
  }
}

Status ZooKeeperRegistration::CreateNodes(const ServerName& server, const std::string& cluster_id) {
  WB_RETURN_IF_ERROR(CreateRoot());
  // A region server is up before the master that lists it starts serving
  // meta, as HBase's come up: a client that finds the meta location finds
  // every region server the catalog names.
  if (role_.region_server) WB_RETURN_IF_ERROR(CreateRegionServerNode());
  if (role_.master) WB_RETURN_IF_ERROR(CreateMasterNodes(server, cluster_id));
  return Status::Ok();
}

Status ZooKeeperRegistration::CreateRoot() {
  zhandle_t* zh = session_->zh;
  // The root and its parents, persistent and empty (ZKUtil.createWithParents).
  for (size_t slash = 1; slash != std::string::npos;) {
    slash = target_.root.find('/', slash + 1);
    const std::string path = target_.root.substr(0, slash);
    const int rc = zoo_create(zh, path.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT,
                              nullptr, 0);
    if (rc == ZOK && slash == std::string::npos) created_root_ = true;
    if (rc != ZOK && rc != ZNODEEXISTS)
      return Status::Unavailable(StrCat(NodeError("create", path, rc), LastClientLog()));
  }
  return Status::Ok();
}

Status ZooKeeperRegistration::CreateRegionServerNode() {
  zhandle_t* zh = session_->zh;
  const std::string parent = RegionServersPath();
  int rc = zoo_create(zh, parent.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT,
                      nullptr, 0);
  if (rc != ZOK && rc != ZNODEEXISTS)
    return Status::Unavailable(StrCat(NodeError("create", parent, rc), LastClientLog()));
  rs_bytes_ = WithMetadata(ProcessIdentifier(), RegionServerData());
  const std::string path = RegionServerPath();
  rc = zoo_create(zh, path.c_str(), rs_bytes_.data(), int(rs_bytes_.size()), &ZOO_OPEN_ACL_UNSAFE,
                  ZOO_EPHEMERAL, nullptr, 0);
  if (rc == ZNODEEXISTS) {
    // This server's name under an older session (one ZooKeeper has not
    // expired yet): the node is this session's from now on.
    rc = zoo_delete(zh, path.c_str(), -1);
    if (rc == ZOK || rc == ZNONODE)
      rc = zoo_create(zh, path.c_str(), rs_bytes_.data(), int(rs_bytes_.size()),
                      &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, nullptr, 0);
  }
  if (rc != ZOK) return Status::Unavailable(StrCat(NodeError("write", path, rc), LastClientLog()));
  return Status::Ok();
}

Status ZooKeeperRegistration::CreateMasterNodes(const ServerName& server,
                                                const std::string& cluster_id) {
  zhandle_t* zh = session_->zh;
  const std::string id = ProcessIdentifier();
  // The cluster id first and the meta location last, as a starting HBase
  // master writes them: a client watching meta-region-server finds the
  // rest already there.
  cluster_id_bytes_ = WithMetadata(id, ClusterIdData(cluster_id));
  master_bytes_ = WithMetadata(id, MasterData(server));
  meta_bytes_ = WithMetadata(id, MetaRegionServerData(server));
  struct Node {
    std::string path;
    const std::string* data;
    bool ephemeral;
  };
  const Node nodes[] = {{ClusterIdPath(), &cluster_id_bytes_, false},
                        {MasterPath(), &master_bytes_, true},
                        {MetaRegionServerPath(), &meta_bytes_, false}};
  for (const Node& n : nodes) {
    const int flags = n.ephemeral ? ZOO_EPHEMERAL : ZOO_PERSISTENT;
    int rc = zoo_create(zh, n.path.c_str(), n.data->data(), int(n.data->size()),
                        &ZOO_OPEN_ACL_UNSAFE, flags, nullptr, 0);
    if (rc == ZNODEEXISTS && n.ephemeral) {
      // Another session's master node (a server killed less than a session
      // timeout ago, or one still running): this server takes its place.
      std::string who;
      if (NamesAnotherServer(n.path, &who))
        rpc::LogLine(StrCat("ZooKeeper at ", target_.quorum, ": ", n.path, " named another "
                            "server, ", who, "; this server takes its place (HBase clients "
                            "given this quorum now find this one)"));
      rc = zoo_delete(zh, n.path.c_str(), -1);
      if (rc == ZOK || rc == ZNONODE)
        rc = zoo_create(zh, n.path.c_str(), n.data->data(), int(n.data->size()),
                        &ZOO_OPEN_ACL_UNSAFE, flags, nullptr, 0);
    } else if (rc == ZNODEEXISTS) {
      rc = zoo_set(zh, n.path.c_str(), n.data->data(), int(n.data->size()), -1);
    }
    if (rc != ZOK) return Status::Unavailable(StrCat(NodeError("write", n.path, rc), LastClientLog()));
  }
  return Status::Ok();
}

void ZooKeeperRegistration::RemoveNodes() {
  if (!session_ || session_->zh == nullptr) return;
  const std::pair<std::string, const std::string*> nodes[] = {
      {MetaRegionServerPath(), &meta_bytes_},
      {MasterPath(), &master_bytes_},
      {ClusterIdPath(), &cluster_id_bytes_},
      {RegionServerPath(), &rs_bytes_}};
  std::string left;
  int failure = ZOK;
  for (const auto& [path, mine] : nodes) {
    if (mine->empty()) continue;
    std::string data;
    Stat stat{};
    // Only while it is still ours, and only that version of it.
    int rc = session_->Get(path, &data, &stat);
    if (rc == ZOK && data == *mine) rc = zoo_delete(session_->zh, path.c_str(), stat.version);
    if (rc != ZOK && rc != ZNONODE && rc != ZBADVERSION) {
      failure = rc;
      left += StrCat(left.empty() ? "" : ", ", path);
    }
  }
  if (!left.empty())
    rpc::LogLine(StrCat("could not remove this server's nodes from ZooKeeper at ", target_.quorum,
                        " (", zerror(failure), "): ", left,
                        " still name this server (the ephemeral master node goes with the "
                        "session); remove them with `zkCli.sh -server ", target_.quorum,
                        " deleteall ", target_.root, "` or start a server on the same root"));
  // Either kept while another server's nodes are in it (ZNOTEMPTY). <root>/rs
  // goes with the last region server, whichever made it; the root only
  // with the registration that made it.
  if (!rs_bytes_.empty()) (void)zoo_delete(session_->zh, RegionServersPath().c_str(), -1);
  if (created_root_) (void)zoo_delete(session_->zh, target_.root.c_str(), -1);
}

ZooKeeperRegistration::~ZooKeeperRegistration() {
  {
    std::lock_guard<std::mutex> lock(keep_mu_);
    stopping_ = true;
    keep_cv_.notify_all();
  }
  if (keeper_.joinable()) keeper_.join();
  RemoveNodes();
  session_.reset();  // Closing the session removes the ephemeral node in any case.
}

StatusOr<ServerName> LookupMetaRegionServer(const ZooKeeperTarget& target,
                                            std::chrono::milliseconds timeout) {
  auto session = ZooKeeperRegistration::Session::Open(target.quorum, timeout);
  if (!session.ok()) return session.status();
  const std::string path = target.root + "/meta-region-server";
  std::string data;
  Stat stat{};
  const int rc = (*session)->Get(path, &data, &stat);
  if (rc == ZNONODE)
    return Status::NotFound(StrCat("no ", path, " in ZooKeeper at ", target.quorum,
                                   ": no HBase server is registered under ", target.root,
                                   " (start one with `wirebench server --rpc hbase --zookeeper ",
                                   target.quorum, target.root, "`)"));
  if (rc != ZOK) return Status::Unavailable(StrCat(NodeError("read", path, rc), LastClientLog()));
  auto message = StripHBaseZNodeData(data);
  if (!message.ok())
    return Status::Corruption(StrCat(path, ": ", message.status().message()));
  FieldReader r(*message);
  while (!r.done()) {
    int field, type;
    std::string_view b;
    if (!r.Next(&field, &type)) break;
    if (field == 1 && type == 2) {
      if (!r.Bytes(&b)) break;
      auto server = DecodeServerName(b);
      if (!server.ok()) return Status::Corruption(StrCat(path, ": ", server.status().message()));
      return server;
    }
    if (!r.Skip(type)) break;
  }
  return Status::Corruption(StrCat(path, ": MetaRegionServer without a server (malformed)"));
}

}  // namespace wirebench::hbase
