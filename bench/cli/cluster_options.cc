#include "bench/cli/cluster_options.h"

#include <string>

namespace wirebench {

void AddClusterOptions(CLI::App* cmd, ClusterFlags* flags, bool server) {
  cmd->add_option("--cluster", flags->servers,
                  server ? "This server is one of a null cluster's: every server of it, "
                           "HOST:PORT,HOST:PORT,... in the same order on every server and "
                           "client; region i of each table is held by server i mod N, "
                           "hbase:meta by the first (give --cluster-index)"
                         : "Drive a running null cluster: its servers, HOST:PORT,HOST:PORT,... "
                           "in the order they were given (`wirebench server --cluster`); each "
                           "call goes to its row's server");
  cmd->add_option("--cluster-regions", flags->regions,
                  "A null cluster's regions per table (default: " +
                      std::to_string(kDefaultRegionsPerServer) +
                      " per server); the same on every server and client")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--cluster-split", flags->split,
                  "Where a null cluster's regions split: ycsb (user1000..user9999, as YCSB's "
                  "HBase recipe pre-splits usertable, so YCSB's keys reach every server) or hex "
                  "(HBase's HexStringSplit, which puts every YCSB key in the last region)")
      ->capture_default_str();
  if (!server) return;
  cmd->add_option("--cluster-index", flags->index,
                  "This server's place in --cluster (0 = the first, which serves hbase:meta); "
                  "its port is that entry's unless --port says otherwise")
      ->check(CLI::Range(0, 255));
  cmd->add_option("--cluster-start-code", flags->start_code,
                  "Start code of the first server (HBase's ServerName; server k's is this + k); "
                  "default: derived from --cluster, the same on every host");
}

}  // namespace wirebench
