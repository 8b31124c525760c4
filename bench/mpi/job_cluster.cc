#include "bench/mpi/job_cluster.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "bench/loadgen/stop_request.h"
#include "bench/mpi/host_addresses.h"
#include "common/str_cat.h"

namespace wirebench::mpi {

namespace {

constexpr int kEntry = 1024;  // One rank's text in an exchange.

// Every rank's `mine`, in rank order, on every rank.
std::vector<std::string> AllGather(const std::string& mine) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<char> in(kEntry, '\0'), all(size_t(kEntry) * size_t(ranks), '\0');
  std::memcpy(in.data(), mine.data(), std::min(mine.size(), size_t(kEntry - 1)));
  MPI_Allgather(in.data(), kEntry, MPI_CHAR, all.data(), kEntry, MPI_CHAR, MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (int r = 0; r < ranks; ++r) {
    const char* p = &all[size_t(kEntry) * size_t(r)];
    out.emplace_back(p, strnlen(p, kEntry));
  }
  return out;
}

// Every rank's error ("" for none), joined with the rank and host that
// had it: the same text on every rank, empty when no rank had one.
std::string AgreeOnErrors(const std::string& mine, const std::vector<std::string>& hosts) {
  const std::vector<std::string> all = AllGather(mine);
  std::string errors;
  for (size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty())
      errors += StrCat(errors.empty() ? "" : "; ", "rank ", std::to_string(r), " (host ",
                       r < hosts.size() ? hosts[r] : "?", "): ", all[r]);
  return errors;
}

// The address a serving rank is reached at: in --mpi-server-network when
// given; loopback when every rank shares this host; else the one this host
// sends from toward rank 0's host (where the clients are, so the address
// of this host that is on their side of its networks).
StatusOr<std::string> AdvertisedAddress(const YcsbRunOptions& o,
                                        const std::vector<std::string>& hosts,
                                        const std::string& rank0_addresses) {
  if (!o.mpi_server_network.empty()) return AddressInNetwork(o.mpi_server_network);
  if (std::all_of(hosts.begin(), hosts.end(), [&](const std::string& h) { return h == hosts[0]; }))
    return std::string("127.0.0.1");
  std::stringstream list(rank0_addresses);
  std::string tried;
  for (std::string a; std::getline(list, a, ',');) {
    if (a.empty()) continue;
    auto mine = SourceAddressToward(a);
    if (mine.ok()) return mine;
    tried += StrCat(tried.empty() ? "" : "; ", mine.status().ToString());
  }
  return Status::Unavailable(
      StrCat("cannot tell which address of this host the clients reach (rank 0's host ", hosts[0],
             " has ", tried.empty() ? std::string("no IPv4 address but loopback") : tried,
             "): give --mpi-server-network with the network the hosts share, e.g. 10.0.0.0/24"));
}

// A serving rank's address and a free port on it: "HOST:PORT".
StatusOr<std::string> PickEndpoint(const YcsbRunOptions& o, const std::vector<std::string>& hosts,
                                   const std::string& rank0_addresses, std::string* bind) {
  auto address = AdvertisedAddress(o, hosts, rank0_addresses);
  if (!address.ok()) return address.status();
  auto port = FreePortOn(*address);
  if (!port.ok()) return port.status();
  *bind = *address;
  return StrCat(*address, ":", std::to_string(*port));
}

// What cannot work, known alike on every rank before anything starts.
Status CheckJobCluster(const YcsbRunOptions& o, int ranks) {
  if (ranks < o.servers + 1)
    return Status::InvalidArgument(
        StrCat("--mpi --servers ", std::to_string(o.servers), " makes the last ",
               std::to_string(o.servers),
               " ranks the cluster's servers and needs at least one more to "
               "drive it, but the job has ",
               std::to_string(ranks), " rank(s): start ", std::to_string(o.servers + 1),
               " or more (mpirun -np, srun -n), or give fewer --servers"));
  if (!o.cluster.servers.empty())
    return Status::InvalidArgument(
        "--servers starts a cluster and --cluster names a running one: give one of them");
  return CheckClusterOptions(o);
}

// The servers' entries ("HOST:PORT" of each serving rank, in rank order)
// into `out`; every rank checks the plan they make alike.
Status ListServers(const YcsbRunOptions& o, const std::vector<std::string>& entries,
                   const std::vector<std::string>& hosts, int first_server, JobCluster* out) {
  for (int r = first_server; r < int(entries.size()); ++r) {
    out->servers.push_back({r, hosts[size_t(r)], entries[size_t(r)]});
    out->list += StrCat(out->list.empty() ? "" : ",", entries[size_t(r)]);
  }
  ClusterFlags flags = o.cluster;
  flags.servers = out->list;
  auto plan = ClusterPlanFromFlags(flags);
  return plan.ok() ? Status::Ok() : plan.status();
}

}  // namespace

Status PlaceJobCluster(const YcsbRunOptions& o, JobCluster* out) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  WB_RETURN_IF_ERROR(CheckJobCluster(o, ranks));
  const int first_server = ranks - o.servers;
  out->serving = rank >= first_server;
  out->index = out->serving ? rank - first_server : -1;
  MPI_Comm_split(MPI_COMM_WORLD, out->serving ? 1 : 0, rank, &out->comm);
  const std::vector<std::string> hosts = AllGather(Hostname());
  std::string rank0_addresses;
  for (const std::string& a : Ipv4Addresses()) rank0_addresses += a + ",";
  rank0_addresses = AllGather(rank0_addresses)[0];
  std::string entry, bind, error;
  if (out->serving) {
    auto picked = PickEndpoint(o, hosts, rank0_addresses, &bind);
    if (picked.ok())
      entry = *picked;
    else
      error = picked.status().ToString();
  }
  if (std::string e = AgreeOnErrors(error, hosts); !e.empty())
    return Status::Unavailable(StrCat("no cluster server could be placed: ", e));
  WB_RETURN_IF_ERROR(ListServers(o, AllGather(entry), hosts, first_server, out));
  if (out->serving) {
    ClusterFlags flags = o.cluster;
    flags.servers = out->list;
    YcsbRunOptions quiet = o;  // Notes about the workload are the clients' to print.
    quiet.quiet = true;
    auto server = StartClusterMember(quiet, flags, out->index, bind);
    if (server.ok())
      out->server = std::move(server).value();
    else
      error = server.status().ToString();
  }
  if (std::string e = AgreeOnErrors(error, hosts); !e.empty()) {
    out->server.reset();
    // A port is picked free and bound a moment later by the server: another
    // process can take it in between.
    const bool taken = e.find("in use") != std::string::npos;
    return Status::Unavailable(StrCat("the cluster's servers did not all start: ", e,
                                      taken ? " (its port was free a moment before: run again)"
                                            : ""));
  }
  return Status::Ok();
}

int ServeUntilReleased(JobCluster* c) {
  MPI_Request req;
  const bool started = MPI_Ibarrier(MPI_COMM_WORLD, &req) == MPI_SUCCESS;
  bool died = false;
  for (;;) {
    int done = 0;
    if (!started || MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || StopRequested()) {
      // The launcher is ending the job (a rank died or failed): no barrier
      // will complete, and MPI_Finalize could wait for a dead rank.
      c->server->Stop();
      std::fflush(stderr);
      std::_Exit(3);
    }
    if (done) break;
    if (!died && !c->server->Alive()) {
      died = true;
      std::fprintf(stderr, "wirebench: --mpi: cluster server %d (%s): %s\n", c->index,
                   c->servers[size_t(c->index)].address.c_str(), c->server->DeathNote().c_str());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  c->server->Stop();
  return died ? 3 : 0;
}

bool ReleaseServers(double timeout_s) {
  MPI_Request req;
  if (MPI_Ibarrier(MPI_COMM_WORLD, &req) != MPI_SUCCESS) return false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    int done = 0;
    if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
    if (done) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

}  // namespace wirebench::mpi
