// The command line a new user meets and the bad inputs users give it,
// end to end through the `wirebench` binary: every
// mistake is one line on stderr naming what was wrong and what to do, with
// exit status 2; YCSB's single-dash flags are exactly YCSB's own.
#include <gtest/gtest.h>

#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "tests/silent_listener.h"
#include "tests/wirebench_paths.h"

namespace wirebench {
namespace {

using testing::WirebenchProcess;

struct Outcome {
  int rc;
  std::string out;
  std::string err;
};

Outcome RunWb(const std::string& name, const std::vector<std::string>& args,
            std::chrono::seconds bound = std::chrono::seconds(60)) {
  WirebenchProcess p(kBinary, args, std::string(WIREBENCH_BINARY_DIR) + "/front_door_" + name);
  const int rc = p.Wait(bound);
  return {rc, p.Stdout(), p.Stderr()};
}

size_t Lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

struct UsageCase {
  std::vector<std::string> args;
  std::string expect;  // In the one line on stderr.
};

void ExpectUsageErrors(const std::string& name, const std::vector<UsageCase>& cases) {
  for (size_t i = 0; i < cases.size(); ++i) {
    const Outcome o = RunWb(name + std::to_string(i), cases[i].args);
    EXPECT_EQ(o.rc, 2) << cases[i].expect << "\n" << o.err;
    EXPECT_NE(o.err.find(cases[i].expect), std::string::npos) << o.err;
    EXPECT_EQ(Lines(o.err), 1u) << o.err;
    EXPECT_EQ(o.out, "") << cases[i].expect;
  }
}

// A single-dash word that is not one of YCSB's flags was
// read as the binding (`-seconds 1`: "unknown binding '1'", exit 105);
// -threads=2 printed the help and exited 0 without running.
TEST(FrontDoor, SingleDashWordsAreYcsbsOwnOrRefusedWithTheDoubleDashFlag) {
  ExpectUsageErrors(
      "dash", {{{"run", "-P", kWorkloadA, "-seconds", "1"}, "'-seconds'"},
               {{"run", "-P", kWorkloadA, "-seconds", "1"}, "did you mean --seconds?"},
               {{"run", "-P", kWorkloadA, "-ops", "10"}, "did you mean --ops?"},
               {{"run", "-P", kWorkloadA, "-codec", "pb"}, "did you mean --codec?"},
               {{"load", "-P", kWorkloadA, "-records", "5"}, "-P -p -s -t -load -db -threads"},
               {{"run", "-P", kWorkloadA, "-threads=2"}, "-threads 2"},
               {{"run", "-P", kWorkloadA, "-target=5"}, "-target takes its value as the next word"},
               // compare takes YCSB's -threads and -target (CompareTarget runs one).
               {{"compare", "-workloads", "a"}, "did you mean --workloads?"},
               {{"compare", "-seconds", "1"}, "did you mean --seconds?"},
               {{"server", "-port", "0"}, "did you mean --port?"}});
}

// A mistyped long flag once became the binding ("unknown binding '1'") or a
// list of leftovers ("arguments were not expected: raw --codec"): it is named,
// with the nearest real flag.
TEST(FrontDoor, AMistypedFlagIsNamedWithTheNearestRealOne) {
  ExpectUsageErrors(
      "mistyped",
      {{{"run", "-P", kWorkloadA, "--second", "1"}, "unknown option --second: did you mean --seconds?"},
       {{"run", "--codecs", "pb"}, "unknown option --codecs: did you mean --codec?"},
       {{"compare", "--codec", "raw"}, "unknown option --codec: did you mean --codecs?"},
       {{"run", "-P", kWorkloadA, "-thread", "4"}, "did you mean -threads?"},
       {{"server", "--prot", "0"}, "did you mean --port?"}});
}

// YCSB's own refusals, in wirebench's words: a word with no flag before it,
// two files after one -P, numbers YCSB reads with Integer.parseInt.
TEST(FrontDoor, WhatYcsbRefusesIsRefused) {
  ExpectUsageErrors(
      "ycsb_refuses",
      {{{"run", "-P", kWorkloadA, "-threads", "2", "stray"},
        "'stray': an argument value without corresponding argument specifier"},
       {{"run", "-P", kWorkloadA, kWorkloadA}, "without corresponding argument specifier"},
       {{"run", "-P", kWorkloadA, "-target", "100.5", "--ops", "10"},
        "property 'target' must be an integer"},
       {{"run", "-P", kWorkloadA, "-p", "status.interval=0.5", "--ops", "10"},
        "property 'status.interval' must be an integer"},
       {{"run", "-P", kWorkloadA, "-p", "threadcount=2 ", "--ops", "10"},
        "ends in whitespace, which YCSB's Integer.parseInt refuses"},
       {{"compare", "--seconds", "0"}, "must be a number of seconds above 0 (got 0)"}});
}

TEST(FrontDoor, YcsbsOwnSingleDashFlagsStillWork) {
  const Outcome o = RunWb("ycsb_flags", {"run", "-P", kWorkloadA, "-p", "recordcount=100", "-threads",
                                       "2", "-target", "0", "-db", "site.ycsb.BasicDB", "-t", "-s",
                                       "-l", "lbl", "--ops", "200"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_NE(o.out.find("[OVERALL], RunTime(ms)"), std::string::npos) << o.out;
}

// `--version` and `bogus` both said "A subcommand is required" (106).
TEST(FrontDoor, VersionAndUnknownCommands) {
  const Outcome v = RunWb("version", {"--version"});
  EXPECT_EQ(v.rc, 0) << v.err;
  EXPECT_TRUE(std::regex_search(v.out, std::regex("^wirebench [0-9]+\\.[0-9]+\\.[0-9]+ \\(git ")))
      << v.out;
  ExpectUsageErrors("command", {{{"bogus"}, "unknown command 'bogus'"},
                                {{"bogus"}, "server, load, run, compare"},
                                {{"comprae"}, "did you mean compare?"},
                                {{}, "give a command: server, load, run"},
                                {{"--bogus", "run"}, "unknown option '--bogus' before the command"}});
}

// CLI11's exit statuses (104-109) came through; every usage error is 2.
TEST(FrontDoor, ParseErrorsExitTwoWithOneLine) {
  ExpectUsageErrors("parse", {{{"run", "--no-such-flag"}, "--no-such-flag"},
                              {{"run", "--threads"}, "--threads"},
                              {{"run", "--ops", "x"}, "--ops x is not a valid INT"},
                              {{"server", "--port", "1", "--port", "2"}, "--port was given 2"},
                              {{"measure"}, "give it after --, e.g. wirebench measure --"}});
}

// The help documents the exit statuses and shows numbers as numbers.
TEST(FrontDoor, HelpShowsExitStatusesAndNumericTypes) {
  for (const std::string sub : {"run", "server", "compare", "measure"}) {
    const Outcome h = RunWb("help_" + sub, {sub, "--help"});
    EXPECT_EQ(h.rc, 0) << sub;
    EXPECT_NE(h.out.find("Exit status: 0 done; 1 the run failed"), std::string::npos) << sub;
    EXPECT_NE(h.out.find("3 partial results"), std::string::npos) << sub;
    // Region options are strings underneath: the help says what they take.
    EXPECT_EQ(h.out.find("--spin-us TEXT"), std::string::npos) << h.out;
    EXPECT_EQ(h.out.find("--canned-fields TEXT"), std::string::npos) << h.out;
  }
  const Outcome top = RunWb("help_top", {"--help"});
  EXPECT_EQ(top.rc, 0);
  EXPECT_NE(top.out.find("Usage: wirebench [OPTIONS] SUBCOMMAND"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("Exit status:"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("--version"), std::string::npos) << top.out;
  const Outcome help_run = RunWb("help_word", {"help", "run"});
  EXPECT_EQ(help_run.rc, 0) << help_run.err;
  EXPECT_NE(help_run.out.find("Usage: wirebench run"), std::string::npos) << help_run.out;
}

// Values the commands accepted silently or
// refused with CLI11's words.
TEST(FrontDoor, BadValuesAreRefusedSayingWhatWasWrong) {
  ExpectUsageErrors(
      "values",
      {// With 0 the server never read a request.
       {{"server", "--max-queued-bytes", "0"}, "--max-queued-bytes: must be 1024 or more"},
       // An empty value once started a server unregistered, or ran a plain compare.
       {{"server", "--rpc", "hbase", "--zookeeper", ""}, "--zookeeper was given an empty value"},
       {{"run", "--zookeeper", ""}, "--zookeeper was given an empty value"},
       {{"compare", "--builds", ""}, "--builds was given an empty value"},
       {{"compare", "--builds="}, "--builds was given an empty value"},
       // CLI11's own words ("At Most 1 required but received 2", "Could not convert") once said these.
       {{"server", "--port", "70000"}, "--port: Value 70000 not in range 0 to 65535"},
       {{"compare", "--seconds", "nan"}, "--seconds nan: must be a finite number"},
       {{"compare", "--warmup", "inf"}, "--warmup inf: must be a finite number"},
       {{"compare", "--client-cpus", "99"}, "the CPUs available are"},
       {{"run", "--client-cpus", "99"}, "CPU 99 is not one this process may run on"},
       {{"server", "--cpus", "4096"}, "the CPUs available are"},
       // A transport's own option (its entry's ServerOptionSpecs) is
       // refused for another transport, naming the one it belongs to.
       {{"server", "--rpc", "wirebench", "--regions-per-table", "4"},
        "--regions-per-table is a server option of --rpc hbase, and --rpc wirebench has none"},
       // (wirebench, not grpc: a build without gRPC refuses --rpc grpc first.)
       {{"server", "--rpc", "wirebench", "--zookeeper", "127.0.0.1:2181"},
        "--zookeeper is a server option of --rpc hbase"},
       {{"server", "--rpc", "hbase", "--regions-per-table", "0"},
        "--regions-per-table must be a whole number from 1 to 4096, got '0'"},
       // compare without --mpi starts its own servers: a flag naming one is
       // refused before it is looked up (nothing listens on port 1).
       {{"compare", "--rpcs", "hbase", "--zookeeper", "127.0.0.1:1"},
        "--zookeeper names a server, which is for compare --mpi"},
       {{"compare", "--server", "127.0.0.1:1"}, "--server names a server, which is for compare --mpi"},
       {{"run", "-P", kWorkloadA, "--batch", "5000"},
        "--batch (wirebench.batch) must be from 0 (off) to 4096 operations per call, got 5000"},
       {{"run", "-P", kWorkloadA, "-db", "site.ycsb.BasicDB", "--batch", "4"},
        "the basic binding (YCSB's BasicDB) has no server"},
       {{"compare", "--pipelines", "1,8", "--batches", "1,10"},
        "--pipelines, --batches and --servers sweep one at a time"},
       {{"compare", "--servers", "1,3", "--batches", "1,10"},
        "--pipelines, --batches and --servers sweep one at a time"},
       {{"compare", "--servers", "1,99"}, "--servers must be a list of cluster sizes 1-64"},
       {{"compare", "--batches", "1,10", "-p", "wirebench.batch=4"},
        "--batches sweeps the batch size: leave out -p wirebench.batch"},
       {{"compare", "--batches", "1,x"}, "--batches must be a list of batch sizes 1-4096"},
       {{"compare", "--builds", "a=/bin/true,b=/bin/true", "--batches", "1,10"},
        "--builds does not sweep pipeline depths or batch sizes yet"},
       // One cluster size with --builds, refused before a build is probed.
       {{"compare", "--builds", "a=/bin/true,b=/bin/true", "--servers", "1,3"},
        "--builds runs every build against one cluster size, not a sweep (got --servers 1,3)"},
       {{"compare", "--builds", "a=/bin/true,b=/bin/true", "--servers", "0"},
        "--servers must be a list of cluster sizes 1-64"},
       // YCSB's target is whole operations per second: refused once, not in every cell.
       {{"compare", "--target", "2.5"}, "must be whole operations per second"},
       {{"compare", "-target", "1e12"}, "must be whole operations per second"}});
}

// `run -P workloads/workloada` reported every read
// under READ-FAILED (run defaulted to empty reads, compare to canned), and
// every run noted "columnfamily is not set", the built-in workload included.
TEST(FrontDoor, ReadsSucceedByDefaultAndEmptyReadsSayWhy) {
  const Outcome o = RunWb("canned", {"run", "-P", kWorkloadA, "--ops", "300"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("\\[READ\\], Return=OK, [1-9]"))) << o.out;
  EXPECT_EQ(o.out.find("READ-FAILED"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("NOT_FOUND"), std::string::npos) << o.out;
  EXPECT_EQ(o.err.find("columnfamily"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("note:"), std::string::npos) << o.err;

  const Outcome e = RunWb("empty", {"run", "-P", kWorkloadA, "--ops", "300", "--null-reads", "empty"});
  ASSERT_EQ(e.rc, 0) << e.err;
  EXPECT_NE(e.out.find("[READ], Return=NOT_FOUND"), std::string::npos) << e.out;
  EXPECT_NE(e.err.find("every read is NOT_FOUND"), std::string::npos) << e.err;
  EXPECT_NE(e.err.find("HBASE-10001"), std::string::npos) << e.err;
}

// measure starts its co-located server as run does: reads succeed there too.
TEST(FrontDoor, MeasuresServerReadsAsRunsDoes) {
  const std::string workload_c = std::string(WIREBENCH_SOURCE_DIR) + "/workloads/workloadc";
  const Outcome o = RunWb("measure_reads", {"measure", "--quiet", "--", kBinary, "run", "--server",
                                            "{server}", "-P", workload_c, "--ops", "100"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_NE(o.out.find("[READ], Return=OK, 100"), std::string::npos) << o.out;
}

// --rpc hbase defaulted to codec raw, then refused it.
TEST(FrontDoor, RpcHbaseDefaultsToCellblock) {
  const Outcome o = RunWb("hbase_codec", {"run", "-P", kWorkloadA, "--rpc", "hbase", "--ops", "100"});
  EXPECT_EQ(o.rc, 0) << o.err;
  EXPECT_NE(o.err.find("codec=cellblock rpc=hbase"), std::string::npos) << o.err;
}

// -P /dev/zero read until memory ran out.
TEST(FrontDoor, WorkloadFilesAreReadBounded) {
  const std::string big = std::string(WIREBENCH_BINARY_DIR) + "/front_door_big_workload";
  {
    std::ofstream f(big);
    const std::string line = "# " + std::string(1000, 'x') + "\n";
    for (int i = 0; i < 1100; ++i) f << line;  // Over 1 MiB of comments.
  }
  ExpectUsageErrors("devices",
                    {{{"run", "-P", "/dev/zero"}, "'/dev/zero' is a character device"},
                     {{"run", "-P", "/dev/urandom"}, "'/dev/urandom' is a character device"},
                     {{"load", "-P", "/dev/zero"}, "not a YCSB property file"},
                     {{"compare", "--workloads", "/dev/zero"}, "'/dev/zero' is a character device"},
                     {{"run", "-P", big}, "is over 1 MiB"}});
}

// --seconds 0 (maxexecutiontime=0) ran forever; YCSB runs
// the workload's operationcount (1000 in workloada).
TEST(FrontDoor, SecondsZeroRunsTheWorkloadsOperations) {
  const Outcome o = RunWb("seconds0", {"run", "-P", kWorkloadA, "--seconds", "0"},
                          std::chrono::seconds(60));
  ASSERT_EQ(o.rc, 0) << o.err;
  std::smatch m;
  int64_t ops = 0;
  std::string rest = o.out;
  const std::regex line("\\[(READ|UPDATE)\\], Operations, ([0-9]+)");
  while (std::regex_search(rest, m, line)) {
    ops += std::stoll(m[2]);
    rest = m.suffix();
  }
  EXPECT_EQ(ops, 1000) << o.out;
}

// -target 1e-300 ended after 4 ms with a false stall.
TEST(FrontDoor, AbsurdTargetsAreRefused) {
  // YCSB's target is whole operations per second (Integer.parseInt).
  ExpectUsageErrors("target", {{{"run", "-P", kWorkloadA, "-target", "1e-300"},
                                "property 'target' must be an integer, got '1e-300'"},
                               {{"run", "-P", kWorkloadA, "-threads", "4", "-target", "1e-6"},
                                "YCSB's target is whole operations per second"}});
}

// `cd / && wirebench compare` could not write
// /results and did not say to pass --out; without gnuplot the hint named
// scripts/install-deps, which a package user does not have.
TEST(FrontDoor, OutputProblemsSayWhatToPass) {
  const std::string file = std::string(WIREBENCH_BINARY_DIR) + "/front_door_a_file";
  std::ofstream(file) << "x";
  ExpectUsageErrors("out", {{{"compare", "--out", file + "/sub", "--codecs", "raw", "--workloads", kWorkloadA},
                             "pass --out DIR, a folder you can write"}});
  const std::string out = std::string(WIREBENCH_BINARY_DIR) + "/front_door_nognuplot";
  std::filesystem::remove_all(out);
  const char* path = std::getenv("PATH");
  const std::string saved = path != nullptr ? path : "";
  setenv("PATH", "/nonexistent", 1);  // No gnuplot to be found.
  const Outcome o = RunWb("nognuplot", {"compare", "--codecs", "raw", "--workloads", kWorkloadA,
                                        "--threads", "1", "--repeat", "1", "--seconds", "0.2",
                                        "--warmup", "0", "--no-pin", "--out", out},
                          std::chrono::seconds(120));
  setenv("PATH", saved.c_str(), 1);
  EXPECT_NE(o.err.find("apt-get install gnuplot-nox"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("scripts/install-deps"), std::string::npos) << o.err;
}

// One name for one thing across subcommands. compare's --records
// is run's too (recordcount), run's -l is also --label (measure's name), and
// measure writes its JSON with --json as run does (--out kept as an alias).
TEST(FrontDoor, OneNameForOneThingAcrossSubcommands) {
  const std::string json = std::string(WIREBENCH_BINARY_DIR) + "/front_door_names.json";
  const Outcome o = RunWb("names", {"run", "-P", kWorkloadA, "--records", "7", "--ops", "50",
                                    "--label", "lbl", "-s", "--json", json});
  ASSERT_EQ(o.rc, 0) << o.err;
  std::ifstream in(json);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(doc.find("\"recordcount\": \"7\""), std::string::npos) << doc;
  EXPECT_NE(o.err.find("lbl"), std::string::npos) << o.err;

  const std::string measured = std::string(WIREBENCH_BINARY_DIR) + "/front_door_measure.json";
  std::filesystem::remove(measured);
  const Outcome m = RunWb("measure_json", {"measure", "--quiet", "--json", measured, "--", kBinary,
                                           "run", "-P", kWorkloadA, "--server", "{server}", "--ops", "20"});
  EXPECT_EQ(m.rc, 0) << m.err;
  EXPECT_TRUE(std::filesystem::exists(measured)) << m.err;
  const Outcome h = RunWb("measure_help", {"measure", "--help"});
  EXPECT_NE(h.out.find("--json"), std::string::npos) << h.out;
}

// A `wirebench server --rpc RPC` on a free port, stopped with the test.
class Server {
 public:
  explicit Server(const std::string& rpc)
      : p_(kBinary, {"server", "--rpc", rpc, "--port", "0"},
           std::string(WIREBENCH_BINARY_DIR) + "/front_door_server_" + rpc) {
    for (int i = 0; i < 200 && address_.empty(); ++i) {
      const std::string out = p_.Stdout();
      if (const size_t at = out.find("listening on "); at != std::string::npos &&
                                                      out.find('\n', at) != std::string::npos)
        address_ = out.substr(at + 13, out.find('\n', at) - at - 13);
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~Server() { p_.Signal(SIGTERM); }
  const std::string& address() const { return address_; }
  std::string banner() const { return p_.Stderr(); }

 private:
  WirebenchProcess p_;
  std::string address_;
};

// `run --codec raw --server <an --rpc hbase server>` said
// "is not a wirebench server: ... frame of 4093640704 bytes", a partial
// report and exit 3; the --rpc hbase banner listed all seven codecs.
TEST(FrontDoor, AClientAtAServerOfAnotherProtocolNamesItAndTheFlag) {
  Server hbase("hbase");
  Server plain("wirebench");
  ASSERT_FALSE(hbase.address().empty()) << hbase.banner();
  ASSERT_FALSE(plain.address().empty()) << plain.banner();
  EXPECT_NE(hbase.banner().find("codecs=[pb, cellblock]"), std::string::npos) << hbase.banner();
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  std::vector<Case> cases = {
      {{"--codec", "raw", "--server", hbase.address()}, "speaks HBase's RPC protocol"},
      {{"--codec", "raw", "--server", hbase.address()}, "pass --rpc hbase"},
      {{"--rpc", "hbase", "--server", plain.address()}, "speaks wirebench's own RPC protocol"},
      {{"--rpc", "hbase", "--server", plain.address()}, "pass --rpc wirebench"}};
  Server grpc("grpc");
  if (!grpc.address().empty()) {  // A build with gRPC.
    cases.push_back({{"--server", grpc.address()}, "speaks gRPC"});
    cases.push_back({{"--rpc", "hbase", "--server", grpc.address()}, "pass --rpc grpc"});
    cases.push_back({{"--rpc", "grpc", "--server", hbase.address()}, "pass --rpc hbase"});
    cases.push_back({{"--rpc", "grpc", "--server", plain.address()}, "pass --rpc wirebench"});
    // The same protocol, another service: grpc-native's generated methods
    // at the generic one (the grpc-native entry's hint).
    cases.push_back({{"--rpc", "grpc-native", "--server", grpc.address()},
                     "serves wirebench's generic gRPC service (`wirebench server --rpc grpc`), "
                     "not gRPC's generated one: pass --rpc grpc"});
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    std::vector<std::string> args = {"run", "-P", kWorkloadA, "--ops", "20"};
    args.insert(args.end(), cases[i].args.begin(), cases[i].args.end());
    const Outcome o = RunWb("protocol" + std::to_string(i), args);
    EXPECT_EQ(o.rc, 2) << cases[i].expect << "\n" << o.err;
    EXPECT_NE(o.err.find(cases[i].expect), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("4093640704"), std::string::npos) << o.err;
  }
}

}  // namespace
}  // namespace wirebench
