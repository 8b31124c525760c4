// The control channel of an --mpi run: one plain TCP connection from every
// rank to rank 0, beside MPI. It carries what must work when a rank has
// died, which MPI's collectives cannot (a collective with a dead member
// hangs, and Open MPI's launcher SIGTERMs the survivors about 1 s after a
// death and SIGKILLs them 1 s later):
//   - liveness: a rank's connection closing before it sent its result means
//     the rank died (SIGKILL, crash); the kernel closes the socket at once,
//     and keep-alive probes notice a lost host within about 5 s;
//   - stop: a rank whose run failed says so ('F'), and rank 0 tells every
//     other rank to stop ('S'), so nobody keeps measuring;
//   - results: every rank sends its result document to rank 0 ('R').
// Each side has one watcher thread blocked in poll(2) (no CPU while nothing
// arrives; it is not a client thread, so it is never counted as client CPU).
// Messages: u8 type, u32 length (little-endian), payload.
// Thread-safety: every public function may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"

namespace wirebench::mpi {

// What rank 0 knows about one other rank.
struct RankState {
  bool connected = false;
  bool dead = false;         // Closed before its result arrived.
  std::string failure;       // Its own run failed ('F'): why.
  bool has_result = false;
  std::string result;        // Its result document ('R').
};

// Rank 0's side: listens, accepts one connection per other rank, watches them.
class ControlHub {
 public:
  ControlHub() = default;
  ~ControlHub();
  ControlHub(const ControlHub&) = delete;
  ControlHub& operator=(const ControlHub&) = delete;

  // Listens on every IPv4 address, on a port the kernel picks.
  Status Listen();
  uint16_t port() const { return port_; }
  // Accepts ranks 1..ranks-1 (each presents its rank and `token`), for at
  // most `timeout_s`; then starts the watcher. `hosts` name ranks in messages.
  Status AcceptAll(int ranks, uint64_t token, double timeout_s, std::vector<std::string> hosts);
  // Before the next run of the same job (compare --mpi's next cell): the
  // results are forgotten; a rank whose connection closed after its last
  // result died in between.
  void NextRound();
  // Waits until every rank has sent its result or is dead, or `timeout_s` passes.
  void WaitForResults(double timeout_s);
  // A rank died or failed: the first such event, described ("" when none).
  std::string FirstFailure();
  bool AnyDied();
  // Rank 0's own run failed: every other rank stops.
  void StopOthers(const std::string& why);
  std::map<int, RankState> Ranks();
  // Closes every connection (the other ranks take that as "rank 0 is done").
  void Close();

 private:
  void Watch();
  // Watch's parts: ranks silent too long taken as gone; what one rank sent
  // (its failure, its result) or its connection's end.
  void GiveUpSilentRanksLocked();
  void ReadFromRank(int rank, int fd, std::string* buf);
  std::string HostOfLocked(int rank) const;
  // Tells every other rank to stop, with `why`; marks this process stopping.
  void StopOthersLocked(const std::string& why, int except);

  int listen_fd_ = -1;
  uint16_t port_ = 0;
  int wake_[2] = {-1, -1};
  std::vector<std::string> hosts_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<int, int> fds_;  // rank -> socket.
  std::map<int, RankState> ranks_;
  std::map<int, std::chrono::steady_clock::time_point> last_heard_;  // By rank.
  std::string first_failure_;
  bool any_died_ = false;
  std::thread watcher_;
};

// Every other rank's side: one connection to rank 0.
class ControlLink {
 public:
  ControlLink() = default;
  ~ControlLink();
  ControlLink(const ControlLink&) = delete;
  ControlLink& operator=(const ControlLink&) = delete;

  // Tries `addresses` in order (each for at most a second or two) and
  // presents `rank` and `token`; then starts the watcher.
  Status Connect(const std::vector<std::string>& addresses, uint16_t port, int rank,
                 uint64_t token);
  // This rank's run failed: rank 0 stops the others.
  void SendFailure(const std::string& why);
  Status SendResult(const std::string& doc);
  // Why rank 0 told this rank to stop, or that rank 0 is gone ("" when neither).
  std::string StopReason();
  // Rank 0 said a rank died, or rank 0 itself is gone: no collective can complete.
  bool PeerDied();
  bool Rank0Gone();
  // Rank 0 said a rank died.
  bool RankDied();
  // Waits until rank 0 closes the connection (it has written the report), at most `timeout_s`.
  void WaitForClose(double timeout_s);
  void Close();

 private:
  void Watch();
  Status Send(char type, const std::string& payload);

  int fd_ = -1;
  int wake_[2] = {-1, -1};
  std::mutex mu_;
  std::mutex write_mu_;
  std::condition_variable cv_;
  std::string stop_reason_;
  bool peer_died_ = false;
  bool closed_ = false;
  std::thread watcher_;
};

}  // namespace wirebench::mpi
