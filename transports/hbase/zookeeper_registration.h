// Registering an HBase-protocol server in ZooKeeper as HBase's master and
// region server do, so that an unmodified HBase client (the Java client,
// hbase-rpc-client, asynchbase...) that is only given a ZooKeeper quorum
// finds it: the client reads `<root>/meta-region-server`, connects to the
// server named there and scans hbase:meta on it.
//
// The znodes and their contents follow HBase (ZNodePaths, MetaTableLocator,
// ZKClusterId, MasterAddressTracker, ZooKeeper.proto):
//   <root>                     persistent, no data (created with its parents)
//   <root>/hbaseid             persistent, ClusterId { cluster_id = 1 }
//   <root>/master              EPHEMERAL,  Master { master = 1 (ServerName),
//                                                   rpc_version = 2, info_port = 3 }
//   <root>/meta-region-server  persistent, MetaRegionServer { server = 1,
//                                                   rpc_version = 2, state = 3 (OPEN) }
// with ServerName { host_name = 1, port = 2, start_code = 3 }. A null
// cluster's servers are region servers as well (RegistrationRole): each
// writes what HRegionServer.createMyEphemeralNode does,
//   <root>/rs                  persistent, no data (HBase's master makes it)
//   <root>/rs/HOST,PORT,START  EPHEMERAL,  RegionServerInfo { info_port = 1 }
// (info_port -1: no web UI, as HBase writes it without one), and only
// server 0 writes the three nodes above. Each node's
// data is what HBase's RecoverableZooKeeper writes: the metadata prefix
// (0xFF, a 4-byte big-endian length, the writer's id followed by 8 random
// salt bytes) and then ProtobufUtil's "PBUF" magic and the message.
// An existing node is overwritten, as HBase's setData/createSetData do (the
// ephemeral master node is replaced, and the log names the server it
// replaced). The destructor removes the nodes this registration still owns
// (a region server's <root>/rs too once it is empty, and the root when it
// created it and it is empty) and closes the session;
// what it cannot remove (ZooKeeper down) is logged with the way to remove it.
//
// A session ZooKeeper expires (this server frozen past the session timeout,
// or ZooKeeper restarted without its data) loses the ephemeral master node:
// a keeper thread logs it, opens a new session (retrying every 2 s while
// ZooKeeper cannot be reached) and writes the nodes again, unless another
// server has registered under the root meanwhile (then it says so and
// leaves that one registered). Every such event is logged.
//
// The master node is watched: when another server that took this root's
// place goes (stopped, or killed and its session expired, which removes its
// ephemeral master node), this server, still alive, registers again after a
// short grace, so the meta location never stays naming a dead server while
// a live one could serve (HBase's backup masters watch the node likewise).
//
// Uses ZooKeeper's C client (libzookeeper_mt); built only when it is found
// (transports/hbase/CMakeLists.txt, WIREBENCH_HAVE_ZOOKEEPER).
// Thread-safety: Register and LookupMetaRegionServer may be called from any
// thread; one ZooKeeperRegistration is used (and destroyed) by one thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "common/status.h"

namespace wirebench::hbase {

// HBase's ServerName: host, port and the server's start code (its start
// time in ms; a restarted server at the same address gets a new one).
struct ServerName {
  std::string host;
  uint16_t port = 0;
  int64_t start_code = 0;
};

// Which of HBase's servers a registration stands for.
struct RegistrationRole {
  // The master and hbase:meta's server: hbaseid, master, meta-region-server.
  bool master = true;
  // A region server: its ephemeral node under <root>/rs.
  bool region_server = false;
};

// Where to register: a ZooKeeper connect string and HBase's
// zookeeper.znode.parent.
struct ZooKeeperTarget {
  std::string quorum;  // "HOST:PORT[,HOST:PORT...]", as ZooKeeper's clients take it.
  std::string root = "/hbase";
};

// Parses --zookeeper's value: HOST:PORT[,HOST:PORT...][/ROOT] (an IPv6 host in
// brackets, [::1]:2181). The root defaults to /hbase. Errors say what is
// wrong and show the expected form.
StatusOr<ZooKeeperTarget> ParseZooKeeperFlag(std::string_view flag);

// The node data HBase writes, without RecoverableZooKeeper's metadata
// prefix: "PBUF" followed by the message (for tests and readers).
std::string MetaRegionServerData(const ServerName& server);
std::string MasterData(const ServerName& master);
std::string ClusterIdData(const std::string& cluster_id);
std::string RegionServerData();
// HBase's ServerName.toString(): "host,port,startcode", the rs node's name.
std::string ServerNameText(const ServerName& server);

// What a client does first: reads <root>/meta-region-server and decodes the
// server it names. NotFound when no server is registered under the root.
StatusOr<ServerName> LookupMetaRegionServer(const ZooKeeperTarget& target,
                                            std::chrono::milliseconds timeout);

class ZooKeeperRegistration {
 public:
  // Connects (waiting at most `timeout` for the session) and creates the
  // nodes above for `server` and `cluster_id` that `role` writes (the
  // master's alone by default). An unreachable or silent
  // ZooKeeper is an Unavailable error naming the quorum once `timeout` has
  // passed; a refused operation names the node and ZooKeeper's reason.
  static StatusOr<std::unique_ptr<ZooKeeperRegistration>> Register(
      const ZooKeeperTarget& target, const ServerName& server, const std::string& cluster_id,
      std::chrono::milliseconds timeout, RegistrationRole role = {});
  ~ZooKeeperRegistration();  // Removes its nodes and closes the session.
  // Sessions opened again after ZooKeeper expired one, and the root taken
  // back after the server that had taken it went (for tests and Stats).
  int reregistrations() const { return reregistrations_.load(); }
  // The master node changed (ZooKeeper's watcher; any thread).
  void NotifyMasterChanged();
  ZooKeeperRegistration(const ZooKeeperRegistration&) = delete;
  ZooKeeperRegistration& operator=(const ZooKeeperRegistration&) = delete;

  const ZooKeeperTarget& target() const { return target_; }
  // The full paths of the nodes it wrote.
  std::string MetaRegionServerPath() const { return target_.root + "/meta-region-server"; }
  std::string MasterPath() const { return target_.root + "/master"; }
  std::string ClusterIdPath() const { return target_.root + "/hbaseid"; }
  std::string RegionServersPath() const { return target_.root + "/rs"; }
  std::string RegionServerPath() const {
    return RegionServersPath() + "/" + ServerNameText(server_);
  }

 private:
  friend StatusOr<ServerName> LookupMetaRegionServer(const ZooKeeperTarget&,
                                                     std::chrono::milliseconds);
  struct Session;
  ZooKeeperRegistration(ZooKeeperTarget target, std::unique_ptr<Session> session);
  // The role's nodes: the region server's first, then the master's.
  Status CreateNodes(const ServerName& server, const std::string& cluster_id);
  Status CreateRoot();  // The root and its parents.
  Status CreateRegionServerNode();
  Status CreateMasterNodes(const ServerName& server, const std::string& cluster_id);
  void RemoveNodes();
  // The session's watcher saw it expire (any thread).
  void OnExpired();
  // The keeper thread: waits for an expiry, or a change of the master node,
  // and registers again when needed.
  void Keep();
  // Sets a one-shot watch on the master node (again after each event).
  void WatchMaster();
  // The master node changed: takes the root back when its node is gone.
  void OnMasterChanged();
  void Reregister();
  // True when `path` holds HBase data naming another server than this one.
  bool NamesAnotherServer(const std::string& path, std::string* who);

  ZooKeeperTarget target_;
  RegistrationRole role_;
  ServerName server_;
  std::string cluster_id_;
  std::unique_ptr<Session> session_;  // Replaced only by the keeper thread.
  std::mutex keep_mu_;
  std::condition_variable keep_cv_;
  bool expired_ = false;   // Guarded by keep_mu_.
  bool master_changed_ = false;  // Guarded by keep_mu_.
  bool stopping_ = false;  // Guarded by keep_mu_.
  std::atomic<int> reregistrations_{0};
  std::thread keeper_;
  bool created_root_ = false;
  // The exact bytes written per node: a node is removed only while it still
  // holds them (another server may have taken it over since).
  std::string meta_bytes_, master_bytes_, cluster_id_bytes_, rs_bytes_;
};

// Strips RecoverableZooKeeper's metadata prefix and ProtobufUtil's "PBUF"
// magic from a node's data, returning the protobuf message bytes. Corruption
// when the data is not in that form.
StatusOr<std::string> StripHBaseZNodeData(std::string_view data);

}  // namespace wirebench::hbase
