// Tests for ycsb/standard_workloads.h: YCSB's workloads a-f are found
// from any working directory (as given, installed beside the binary, or
// built in), and Properties::LoadFile (-P) uses that lookup.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ycsb/properties.h"
#include "ycsb/standard_workloads.h"

namespace wirebench::ycsb {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs the test body from an empty folder of its own (no workloads/ in it).
class StandardWorkloadsFromEmptyDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(WIREBENCH_BINARY_DIR) /
           ("standard_workloads_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    old_ = fs::current_path();
    fs::current_path(dir_);
  }
  void TearDown() override {
    fs::current_path(old_);
    fs::remove_all(dir_);
  }
  fs::path dir_, old_;
};

TEST(StandardWorkloads, BuiltInCopiesAreTheSourceTreesFilesByteForByte) {
  const fs::path src = fs::path(WIREBENCH_SOURCE_DIR) / "workloads";
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(src)) {
    ++files;
    const std::string name = e.path().filename().string();
    bool found = false;
    for (const EmbeddedWorkload& w : EmbeddedWorkloads()) {
      if (w.name != name) continue;
      found = true;
      EXPECT_EQ(std::string(w.text), ReadFile(e.path())) << name;
    }
    EXPECT_TRUE(found) << name << " is not built in";
  }
  EXPECT_EQ(EmbeddedWorkloads().size(), files);
  for (char c = 'a'; c <= 'f'; ++c) {
    bool found = false;
    for (const EmbeddedWorkload& w : EmbeddedWorkloads())
      found |= w.name == std::string("workload") + c;
    EXPECT_TRUE(found) << "workload" << c;
  }
}

TEST(StandardWorkloads, LettersNameTheStandardFiles) {
  EXPECT_EQ(WorkloadSpecForLetter("a"), "workloads/workloada");
  EXPECT_EQ(WorkloadSpecForLetter("f"), "workloads/workloadf");
  EXPECT_EQ(WorkloadSpecForLetter("g"), "g");
  EXPECT_EQ(WorkloadSpecForLetter("workloadb"), "workloadb");
  EXPECT_EQ(WorkloadSpecForLetter("/x/workloadb"), "/x/workloadb");
}

TEST_F(StandardWorkloadsFromEmptyDir, MissingStandardPathFallsBackToTheBuiltInCopy) {
  WorkloadPlaces places;  // No installed folder.
  for (const std::string spec : {"workloads/workloadc", "workloadc", "./workloads/workloadc"}) {
    auto f = FindWorkload(spec, places);
    ASSERT_TRUE(f.ok()) << spec << ": " << f.status().ToString();
    EXPECT_EQ(f->name, "workloadc");
    EXPECT_EQ(f->path, "");
    EXPECT_EQ(f->source, "workloadc (built in)");
    EXPECT_NE(f->note.find(spec + " is not in " + dir_.string()), std::string::npos) << f->note;
    EXPECT_NE(f->note.find("built into wirebench"), std::string::npos) << f->note;
    auto text = ReadWorkload(*f);
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(*text, ReadFile(fs::path(WIREBENCH_SOURCE_DIR) / "workloads/workloadc"));
  }
}

TEST_F(StandardWorkloadsFromEmptyDir, AFileThatExistsIsUsedAsGiven) {
  fs::create_directories("workloads");
  std::ofstream("workloads/workloada") << "readproportion=0.25\n";
  auto f = FindWorkload("workloads/workloada", WorkloadPlaces{});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->path, "workloads/workloada");
  EXPECT_EQ(f->note, "");
  EXPECT_EQ(*ReadWorkload(*f), "readproportion=0.25\n");
}

TEST_F(StandardWorkloadsFromEmptyDir, TheInstalledCopyComesBeforeTheBuiltInOne) {
  const fs::path installed = dir_ / "share/wirebench/workloads";
  fs::create_directories(installed);
  std::ofstream(installed / "workloadb") << "readproportion=0.75\n";
  WorkloadPlaces places;
  places.installed_dir = installed.string();
  auto f = FindWorkload("workloads/workloadb", places);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->path, (installed / "workloadb").string());
  EXPECT_NE(f->note.find("using " + (installed / "workloadb").string()), std::string::npos)
      << f->note;
  EXPECT_EQ(*ReadWorkload(*f), "readproportion=0.75\n");
  // Not installed there: the built-in copy.
  f = FindWorkload("workloads/workloadd", places);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->source, "workloadd (built in)");
}

TEST_F(StandardWorkloadsFromEmptyDir, NotFoundListsEveryPlaceLookedAt) {
  WorkloadPlaces places;
  places.installed_dir = "/nonexistent/share/wirebench/workloads";
  auto f = FindWorkload("workloads/workloadz", places);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), Status::Code::kNotFound);
  const std::string m(f.status().message());
  EXPECT_NE(m.find("'workloads/workloadz' not found"), std::string::npos) << m;
  EXPECT_NE(m.find((dir_ / "workloads/workloadz").string()), std::string::npos) << m;
  EXPECT_NE(m.find("/nonexistent/share/wirebench/workloads/workloadz"), std::string::npos) << m;
  EXPECT_NE(m.find("and the workloads built into wirebench ("), std::string::npos) << m;
  for (const EmbeddedWorkload& w : EmbeddedWorkloads())
    EXPECT_NE(m.find(std::string(w.name)), std::string::npos) << w.name << ": " << m;
}

TEST_F(StandardWorkloadsFromEmptyDir, OtherPathsDoNotFallBack) {
  // An absolute path or another folder names the user's own file: no
  // standard copy stands in for it.
  for (const std::string spec : {"/nonexistent/workloada", "mine/workloada", "../workloada"}) {
    WorkloadPlaces places;
    places.installed_dir = dir_.string();
    auto f = FindWorkload(spec, places);
    ASSERT_FALSE(f.ok()) << spec;
    const std::string m(f.status().message());
    EXPECT_NE(m.find("'" + spec + "' not found; looked at /"), std::string::npos) << m;
    EXPECT_EQ(m.find("built into"), std::string::npos) << m;
    EXPECT_EQ(m.find(dir_.string() + "/workloada"), std::string::npos) << m;
  }
}

TEST_F(StandardWorkloadsFromEmptyDir, DashPFindsTheStandardWorkloadFromAnywhere) {
  Properties p;
  const std::vector<std::string> files = {"workloads/workloadc"};
  ASSERT_TRUE(p.Load(files, {}).ok());
  EXPECT_EQ(p.GetDouble("readproportion").value(), 1.0);
  EXPECT_EQ(p.SourceOf("readproportion").rfind("workloadc (built in):", 0), 0u)
      << p.SourceOf("readproportion");
  Properties q;
  const std::vector<std::string> missing = {"workloads/workloadz"};
  const Status s = q.Load(missing, {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("property file 'workloads/workloadz' not found; looked at"),
            std::string::npos)
      << s.ToString();
  EXPECT_NE(s.ToString().find("(given with -P)"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace wirebench::ycsb
