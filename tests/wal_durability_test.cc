// The kill -9 durability test of the wal region: a client writes puts and
// records which were acknowledged; the server process is SIGKILLed in the
// middle of the load, restarted on the same log, and every acknowledged key
// must be there, read back through the memstore rebuilt from the log.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "bench/loadgen/driver.h"
#include "bench/loadgen/local_server.h"
#include "tests/wirebench_paths.h"

namespace wirebench {
namespace {

std::atomic<int> g_acked{0};

std::string KeyOf(int client, int i) {
  return "user" + std::to_string(client) + "-" + std::to_string(i);
}

// Puts distinct keys; remembers the ones acknowledged OK.
class PutStream final : public OpStream {
 public:
  explicit PutStream(int client) : client_(client), value_(100, char('a' + client % 26)) {}
  bool Next(PlannedOp* op) override {
    key_ = KeyOf(client_, next_++);
    cell_ = Cell{ByteView(key_), ByteView("family"), ByteView("field0"), 0, CellType::kPut,
                 ByteView(value_)};
    op->type = OpType::kInsert;
    op->ncalls = 1;
    op->calls[0].method = Method::kMutate;
    op->calls[0].mutate.mutation = Mutation{ByteView(key_), MutationType::kPut, 0, {&cell_, 1}};
    return true;
  }
  void Finish(const PlannedOp&, OpResult r) override {
    if (r == OpResult::kOk) {
      acked_.push_back(key_);
      g_acked.fetch_add(1);
    }
  }
  int client_;
  int next_ = 0;
  std::string key_, value_;
  Cell cell_;
  std::vector<std::string> acked_;
};

// Gets the given keys once each; counts the ones found with the right value.
class GetStream final : public OpStream {
 public:
  GetStream(std::vector<std::string> keys, int client)
      : keys_(std::move(keys)), value_(100, char('a' + client % 26)) {}
  bool Next(PlannedOp* op) override {
    if (i_ >= keys_.size()) return false;
    op->type = OpType::kRead;
    op->ncalls = 1;
    op->calls[0].method = Method::kGet;
    op->calls[0].get = GetRequest();
    op->calls[0].get.row = ByteView(keys_[i_++]);
    return true;
  }
  OpResult OnRead(const PlannedOp&, const GetResponse& r) override {
    bool ok = r.result.cells.size() == 1 && r.result.cells[0].value == ByteView(value_);
    if (ok) ++found_;
    return ok ? OpResult::kOk : OpResult::kNotFound;
  }
  std::vector<std::string> keys_;
  std::string value_;
  size_t i_ = 0;
  size_t found_ = 0;
};

// Hands the driver streams the test keeps owning (the driver destroys the
// streams it is given when RunLoad returns; the test reads them afterwards).
class Borrowed final : public OpStream {
 public:
  explicit Borrowed(OpStream* s) : s_(s) {}
  bool Next(PlannedOp* op) override { return s_->Next(op); }
  OpResult OnRead(const PlannedOp& op, const GetResponse& r) override { return s_->OnRead(op, r); }
  void Finish(const PlannedOp& op, OpResult r) override { s_->Finish(op, r); }

 private:
  OpStream* s_;
};

template <typename S>
class Streams final : public Workload {
 public:
  explicit Streams(std::vector<std::unique_ptr<S>>* owned) : owned_(owned) {}
  std::unique_ptr<OpStream> NewStream(int i, int) override {
    return std::make_unique<Borrowed>((*owned_)[size_t(i)].get());
  }

 private:
  std::vector<std::unique_ptr<S>>* owned_;
};

TEST(WalDurability, EveryAcknowledgedPutSurvivesKillNine) {
  ASSERT_TRUE(std::filesystem::exists(kBinary)) << kBinary;
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("wb-wal-" + std::to_string(getpid()))).string();
  std::filesystem::remove_all(dir);
  const std::vector<std::string> args = {"--region", "wal", "--wal-dir", dir, "--handlers", "16",
                                         "--quiet"};
  auto server = LocalServer::Spawn(args, "", kBinary);
  ASSERT_TRUE(server.ok()) << server.status().ToString();

  constexpr int kClients = 16;
  std::vector<std::unique_ptr<PutStream>> puts;
  for (int i = 0; i < kClients; ++i) puts.push_back(std::make_unique<PutStream>(i));
  std::vector<PutStream*> put_ptrs;
  for (auto& p : puts) put_ptrs.push_back(p.get());
  Streams<PutStream> put_workload(&puts);
  DriverOptions d;
  d.host = (*server)->host();
  d.port = (*server)->port();
  d.threads = kClients;
  d.max_seconds = 60;
  d.fetch_server_stats = false;
  StatusOr<RunResult> load = Status::Internal("not run");
  g_acked.store(0);
  std::thread writer([&] { load = RunLoad(d, &put_workload); });
  // Kill the server once a good number of puts are acknowledged and more are in flight.
  while (g_acked.load() < 2000 && load.status().message() == "not run") std::this_thread::yield();
  (*server)->Kill();
  writer.join();
  ASSERT_TRUE(load.ok()) << load.status().ToString();
  EXPECT_TRUE(load->partial) << "the load should have been cut by the kill";

  std::vector<std::vector<std::string>> acked;
  size_t total = 0;
  for (PutStream* p : put_ptrs) {
    acked.push_back(p->acked_);
    total += p->acked_.size();
  }
  ASSERT_GE(total, 2000u);

  auto restarted = LocalServer::Spawn(args, "", kBinary);
  ASSERT_TRUE(restarted.ok()) << restarted.status().ToString();
  std::vector<std::unique_ptr<GetStream>> gets;
  for (int i = 0; i < kClients; ++i) gets.push_back(std::make_unique<GetStream>(acked[size_t(i)], i));
  std::vector<GetStream*> get_ptrs;
  for (auto& g : gets) get_ptrs.push_back(g.get());
  Streams<GetStream> get_workload(&gets);
  d.port = (*restarted)->port();
  d.max_seconds = 0;
  auto check = RunLoad(d, &get_workload);
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  ASSERT_FALSE(check->partial) << check->error.ToString();
  size_t found = 0;
  for (GetStream* g : get_ptrs) found += g->found_;
  std::printf("acknowledged %zu puts before SIGKILL; found %zu after restart\n", total, found);
  EXPECT_EQ(found, total) << "lost " << total - found << " acknowledged puts";
  (*restarted)->Stop();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace wirebench
