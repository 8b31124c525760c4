// Tests for ycsb/properties.h and workload_config.h: .properties
// syntax, -P order and -p precedence, unknown keys, malformed values, and the
// shipped workload files A-F.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ycsb/properties.h"
#include "ycsb/workload_config.h"

namespace wirebench::ycsb {
namespace {

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = std::string(WIREBENCH_BINARY_DIR) + "/ycsb_props_" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(YcsbProperties, SyntaxCases) {
  Properties p;
  ASSERT_TRUE(p.LoadText("# comment\n"
                         "! bang comment\n"
                         "\n"
                         "   \t\n"
                         "recordcount=1000\n"
                         "operationcount = 2000   \n"
                         "fieldcount:7\n"
                         "  table   mytable\n"
                         "columnfamily =  cf\\\n"
                         "     two\n"
                         "fieldnameprefix=f\\=x\\:\\u0041\n"
                         "label=\r\n"
                         "db=site.ycsb.BasicDB\r\n",
                         "inline")
                  .ok());
  EXPECT_EQ(p.GetInt("recordcount").value(), 1000);
  // Kept with its trailing spaces, as java.util.Properties keeps them; read
  // as a number, refused as Integer.parseInt refuses it.
  EXPECT_EQ(p.GetString("operationcount").value(), "2000   ");
  EXPECT_FALSE(p.GetInt("operationcount").ok());
  EXPECT_EQ(p.GetInt("fieldcount").value(), 7);
  EXPECT_EQ(p.GetString("table").value(), "mytable");
  EXPECT_EQ(p.GetString("columnfamily").value(), "cftwo");
  EXPECT_EQ(p.GetString("fieldnameprefix").value(), "f=x:A");
  EXPECT_EQ(p.GetString("label").value(), "");
  EXPECT_EQ(p.GetString("db").value(), "site.ycsb.BasicDB");
  EXPECT_EQ(p.SourceOf("fieldcount"), "inline:7");
  EXPECT_TRUE(p.CheckAllKnown().ok());
  // A comment line does not continue, and a '#' inside a value is kept.
  Properties q;
  ASSERT_TRUE(q.LoadText("# a comment \\\ntable=t#1\n", "x").ok());
  EXPECT_EQ(q.GetString("table").value(), "t#1");
}

TEST(YcsbProperties, DefaultsAndTypedGetters) {
  Properties p;
  EXPECT_FALSE(p.Has("fieldlength"));
  EXPECT_EQ(p.GetInt("fieldlength").value(), 100);
  EXPECT_DOUBLE_EQ(p.GetDouble("readproportion").value(), 0.95);
  EXPECT_TRUE(p.GetBool("readallfields").value());
  EXPECT_EQ(p.GetInt("writebuffersize").value(), 12582912);  // HBaseClient2's 12 MiB.
  EXPECT_EQ(p.GetString("columnfamily").value(), "family");
  EXPECT_EQ(p.GetDoubleList("hdrhistogram.percentiles").value(), (std::vector<double>{50, 95, 99}));
  StatusOr<std::string> none = p.GetString("insertcount");
  EXPECT_EQ(none.status().code(), Status::Code::kNotFound);
  p.Set("readallfields", "FALSE");
  EXPECT_FALSE(p.GetBool("readallfields").value());
}

TEST(YcsbProperties, FileOrderAndOverridePrecedence) {
  const std::string a = WriteTemp("a", "recordcount=10\noperationcount=20\ntable=from_a\n");
  const std::string b = WriteTemp("b", "recordcount=30\n");
  Properties p;
  const std::vector<std::string> files = {a, b};
  // The override comes first on the command line but is applied last.
  const std::vector<std::string> overrides = {"operationcount=99", "table=x=y"};
  ASSERT_TRUE(p.Load(files, overrides).ok());
  EXPECT_EQ(p.GetInt("recordcount").value(), 30);     // b after a.
  EXPECT_EQ(p.GetInt("operationcount").value(), 99);  // -p after both files.
  EXPECT_EQ(p.GetString("table").value(), "x=y");     // Only the first '=' splits.
  EXPECT_EQ(p.SourceOf("recordcount"), b + ":1");
  EXPECT_EQ(p.SourceOf("operationcount"), "-p");
  Properties q;
  const std::vector<std::string> reversed = {b, a};
  ASSERT_TRUE(q.Load(reversed, {}).ok());
  EXPECT_EQ(q.GetInt("recordcount").value(), 10);
  std::remove(a.c_str());
  std::remove(b.c_str());
}

TEST(YcsbProperties, UnknownPropertyNamesItAndHints) {
  Properties p;
  ASSERT_TRUE(p.LoadText("recordcount=1\nreadproprtion=0.5\n", "w").ok());
  Status s = p.CheckAllKnown();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'readproprtion'"), std::string_view::npos) << s.ToString();
  EXPECT_NE(s.message().find("w:2"), std::string_view::npos) << s.ToString();
  EXPECT_NE(s.message().find("did you mean 'readproportion'"), std::string_view::npos)
      << s.ToString();
  // Nothing close: no hint.
  Properties q;
  q.Set("zzzzzzzzzzzzzzzzqqq", "1", "-p");
  Status t = q.CheckAllKnown();
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.message().find("did you mean"), std::string_view::npos) << t.ToString();
}

TEST(YcsbProperties, DriverRegisteredKeys) {
  Properties p;
  p.Set("codec", "raw", "-p");
  EXPECT_FALSE(p.CheckAllKnown().ok());
  p.RegisterKey({"codec", "raw", "codec to use"});
  EXPECT_TRUE(p.CheckAllKnown().ok());
  p.RegisterKey({"server", "127.0.0.1:0", "server address"});
  EXPECT_EQ(p.GetString("server").value(), "127.0.0.1:0");
}

TEST(YcsbProperties, MalformedValues) {
  Properties p;
  p.Set("recordcount", "abc", "-p");
  StatusOr<int64_t> r = p.GetInt("recordcount");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("property 'recordcount' must be an integer, got 'abc'"),
            std::string_view::npos)
      << r.status().ToString();
  p.Set("recordcount", "12x", "-p");
  EXPECT_FALSE(p.GetInt("recordcount").ok());
  p.Set("recordcount", "99999999999999999999", "-p");
  EXPECT_FALSE(p.GetInt("recordcount").ok());
  p.Set("readproportion", "0.5.1", "-p");
  EXPECT_FALSE(p.GetDouble("readproportion").ok());
  p.Set("readallfields", "yes", "-p");
  EXPECT_FALSE(p.GetBool("readallfields").ok());
  p.Set("hdrhistogram.percentiles", "50,x", "-p");
  EXPECT_FALSE(p.GetDoubleList("hdrhistogram.percentiles").ok());
  EXPECT_FALSE(p.ApplyOverride("noequals").ok());
  EXPECT_FALSE(p.ApplyOverride("=v").ok());
  EXPECT_EQ(p.LoadFile("/nonexistent/workloadz").code(), Status::Code::kNotFound);
}

TEST(YcsbWorkloadConfig, ValidationErrorsNameTheProperty) {
  struct Case {
    const char* key;
    const char* value;
    const char* expect;
  };
  const Case cases[] = {
      {"requestdistribution", "pareto", "requestdistribution"},
      {"fieldlengthdistribution", "normal", "fieldlengthdistribution"},
      {"scanlengthdistribution", "constant", "scanlengthdistribution"},
      {"readproportion", "-0.1", "readproportion"},
      {"hotspotdatafraction", "1.5", "hotspotdatafraction"},
      {"zeropadding", "100000", "zeropadding"},
      {"fieldcount", "0", "fieldcount"},
      {"maxscanlength", "0", "maxscanlength"},
      {"workload", "site.ycsb.workloads.RestWorkload", "workload"},
      {"insertcount", "2000", "insertcount"},
  };
  for (const Case& c : cases) {
    Properties p;
    p.Set("recordcount", "1000");
    p.Set(c.key, c.value);
    StatusOr<CoreWorkloadConfig> config = CoreWorkloadConfig::FromProperties(p);
    ASSERT_FALSE(config.ok()) << c.key << "=" << c.value;
    EXPECT_NE(config.status().message().find(c.expect), std::string_view::npos)
        << config.status().ToString();
  }
  Properties zero;
  zero.Set("readproportion", "0");
  zero.Set("updateproportion", "0");
  EXPECT_FALSE(CoreWorkloadConfig::FromProperties(zero).ok());
  Properties integrity;
  integrity.Set("dataintegrity", "true");
  integrity.Set("fieldlengthdistribution", "uniform");
  EXPECT_FALSE(CoreWorkloadConfig::FromProperties(integrity).ok());
}

TEST(YcsbWorkloadConfig, AcceptsBothCoreWorkloadNames) {
  for (const char* name :
       {"site.ycsb.workloads.CoreWorkload", "com.yahoo.ycsb.workloads.CoreWorkload"}) {
    Properties p;
    p.Set("recordcount", "10");
    p.Set("workload", name);
    EXPECT_TRUE(CoreWorkloadConfig::FromProperties(p).ok()) << name;
  }
  Properties latest;  // recordcount=0 with latest would sum zeta over 2^31 items.
  latest.Set("requestdistribution", "latest");
  StatusOr<CoreWorkloadConfig> c = CoreWorkloadConfig::FromProperties(latest);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("recordcount"), std::string_view::npos);
}

TEST(YcsbWorkloadConfig, DefaultsMatchYcsb) {
  Properties p;
  p.Set("recordcount", "1000");
  StatusOr<CoreWorkloadConfig> c = CoreWorkloadConfig::FromProperties(p);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->field_count, 10);
  EXPECT_EQ(c->field_length, 100);
  EXPECT_EQ(c->insert_count, 1000);
  EXPECT_EQ(c->request_distribution, RequestDistribution::kUniform);
  EXPECT_FALSE(c->ordered_inserts);
  EXPECT_EQ(c->max_scan_length, 1000);
  Properties zero;  // recordcount=0 means Integer.MAX_VALUE in YCSB.
  StatusOr<CoreWorkloadConfig> z = CoreWorkloadConfig::FromProperties(zero);
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  EXPECT_EQ(z->record_count, 2147483647);
}

struct WorkloadFile {
  const char* name;
  double read, update, insert, scan, rmw;
  RequestDistribution dist;
};

TEST(YcsbWorkloadFiles, EachParsesToItsDefinition) {
  const WorkloadFile files[] = {
      {"workloada", 0.5, 0.5, 0, 0, 0, RequestDistribution::kZipfian},
      {"workloadb", 0.95, 0.05, 0, 0, 0, RequestDistribution::kZipfian},
      {"workloadc", 1, 0, 0, 0, 0, RequestDistribution::kZipfian},
      {"workloadd", 0.95, 0, 0.05, 0, 0, RequestDistribution::kLatest},
      {"workloade", 0, 0, 0.05, 0.95, 0, RequestDistribution::kZipfian},
      {"workloadf", 0.5, 0, 0, 0, 0.5, RequestDistribution::kZipfian},
  };
  for (const WorkloadFile& f : files) {
    SCOPED_TRACE(f.name);
    Properties p;
    const std::vector<std::string> paths = {std::string(WIREBENCH_SOURCE_DIR) + "/workloads/" +
                                            f.name};
    Status s = p.Load(paths, {});
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(p.GetString("workload").value(), "site.ycsb.workloads.CoreWorkload");
    StatusOr<CoreWorkloadConfig> c = CoreWorkloadConfig::FromProperties(p);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_EQ(c->record_count, 1000);
    EXPECT_EQ(c->operation_count, 1000);
    EXPECT_TRUE(c->read_all_fields);
    EXPECT_DOUBLE_EQ(c->read_proportion, f.read);
    EXPECT_DOUBLE_EQ(c->update_proportion, f.update);
    EXPECT_DOUBLE_EQ(c->insert_proportion, f.insert);
    EXPECT_DOUBLE_EQ(c->scan_proportion, f.scan);
    EXPECT_DOUBLE_EQ(c->read_modify_write_proportion, f.rmw);
    EXPECT_EQ(c->request_distribution, f.dist);
    if (std::string(f.name) == "workloade") {
      EXPECT_EQ(c->max_scan_length, 100);
      EXPECT_EQ(c->scan_length_distribution, LengthDistribution::kUniform);
    } else {
      EXPECT_EQ(c->max_scan_length, 1000);
    }
  }
}

// As YCSB, every property passes through to the binding.
// The keys of YCSB master's workload_template and of the HBase binding load
// without a note; a typo loads too, with one note naming the closest key.
TEST(YcsbProperties, UnknownKeysPassThroughWithANote) {
  Properties p;
  ASSERT_TRUE(p.LoadText("recordcount=1000\n"
                         "discardscannedrecord=false\n"
                         "maxscanrate=0\n"
                         "scanoptimelimit=0\n"
                         "readallfieldsbyname=false\n"
                         "core_workload_insertion_keep_going_on_error=false\n"
                         "spin.sleep=false\n"
                         "hbase.zookeeper.quorum=zk1,zk2\n"
                         "zookeeper.znode.parent=/hbase\n"
                         "readproprtion=0.5\n",
                         "template")
                  .ok());
  const std::vector<std::string> paths = {};
  const std::vector<std::string> overrides = {"my.binding.option=7"};
  ASSERT_TRUE(p.Load(paths, overrides).ok());
  const std::vector<std::string> notes = p.UnknownKeyNotes();
  ASSERT_EQ(notes.size(), 2u) << ::testing::PrintToString(notes);
  EXPECT_NE(notes[0].find("'my.binding.option' (set at -p)"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("'readproprtion' (set at template:10)"), std::string::npos) << notes[1];
  EXPECT_NE(notes[1].find("passed through unused"), std::string::npos) << notes[1];
  EXPECT_NE(notes[1].find("did you mean 'readproportion'"), std::string::npos) << notes[1];
  EXPECT_TRUE(CoreWorkloadConfig::FromProperties(p).ok());
}

// What YCSB accepts is accepted, read as YCSB reads it, with a note where
// YCSB's reading is surprising; an integer with a trailing space, which
// Integer.parseInt refuses, is refused.
TEST(YcsbProperties, LenientValuesAreReadAsYcsbReadsThem) {
  Properties p;
  ASSERT_TRUE(p.LoadText("recordcount=1000\n"
                         "readallfields=yes\n"       // Boolean.parseBoolean: false.
                         "writeallfields=TRUE\n"     // true, silently.
                         "dataintegrity=true \n"     // Trailing space: false in YCSB.
                         "insertorder=random\n"      // Anything but hashed: ordered.
                         "zeropadding=0\n"           // No padding, as 1.
                         "readproportion=0.5 \n",    // Double.parseDouble trims.
                         "w")
                  .ok());
  StatusOr<CoreWorkloadConfig> c = CoreWorkloadConfig::FromProperties(p);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->record_count, 1000);
  EXPECT_FALSE(c->read_all_fields);
  EXPECT_TRUE(c->write_all_fields);
  EXPECT_FALSE(c->data_integrity);
  EXPECT_TRUE(c->ordered_inserts);
  EXPECT_EQ(c->zero_padding, 1);
  EXPECT_DOUBLE_EQ(c->read_proportion, 0.5);
  const std::string notes = ::testing::PrintToString(p.notes());
  for (const char* expect : {"'readallfields' = 'yes'",
                             "'dataintegrity' = 'true '", "'insertorder' = 'random'"})
    EXPECT_NE(notes.find(expect), std::string::npos) << expect << " in " << notes;
  EXPECT_EQ(notes.find("writeallfields"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("readproportion"), std::string::npos) << notes;
  Properties hashed;
  hashed.Set("insertorder", "hashed ");  // YCSB compares the whole value.
  ASSERT_TRUE(CoreWorkloadConfig::FromProperties(hashed).ok());
  EXPECT_TRUE(CoreWorkloadConfig::FromProperties(hashed)->ordered_inserts);
  Properties spaced;
  spaced.Set("recordcount", "1000 ");  // Integer.parseInt refuses it, so does wirebench.
  const StatusOr<CoreWorkloadConfig> refused = CoreWorkloadConfig::FromProperties(spaced);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().ToString().find("'recordcount' = '1000 '"), std::string::npos)
      << refused.status().ToString();
}

// The HBase binding's properties as HBaseClient2 reads
// them: durability a Durability name, clientbuffering exactly "true", and a
// note where wirebench has a default the binding lacks (columnfamily).
TEST(YcsbWorkloadConfig, HBaseBindingProperties) {
  Properties p;
  p.Set("recordcount", "10");
  StatusOr<CoreWorkloadConfig> c = CoreWorkloadConfig::FromProperties(p);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->write_buffer_size, 12 << 20);
  EXPECT_EQ(c->durability, "USE_DEFAULT");
  ASSERT_EQ(c->notes.size(), 1u);
  EXPECT_NE(c->notes[0].find("columnfamily is not set"), std::string::npos) << c->notes[0];
  for (const char* d : {"SKIP_WAL", "ASYNC_WAL", "SYNC_WAL", "FSYNC_WAL"}) {
    p.Set("durability", d);
    EXPECT_TRUE(CoreWorkloadConfig::FromProperties(p).ok()) << d;
  }
  p.Set("durability", "true");
  c = CoreWorkloadConfig::FromProperties(p);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("Durability name"), std::string_view::npos);
  p.Set("durability", "SYNC_WAL");
  p.Set("columnfamily", "cf");
  p.Set("clientbuffering", "TRUE");
  c = CoreWorkloadConfig::FromProperties(p);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->client_buffering);  // "true".equals("TRUE") is false.
  EXPECT_TRUE(c->notes.empty());
  EXPECT_NE(::testing::PrintToString(p.notes()).find("'clientbuffering' = 'TRUE'"),
            std::string::npos);
}

// YCSB's Client loads recordcount records when insertcount
// is not set, insertstart or not (CoreWorkload's own insertcount, the range
// reads choose from, stays recordcount - insertstart).
TEST(YcsbWorkloadConfig, InsertstartWithoutInsertcountLoadsRecordcount) {
  Properties p;
  p.Set("recordcount", "1000");
  p.Set("insertstart", "400");
  p.Set("columnfamily", "family");
  StatusOr<CoreWorkloadConfig> c = CoreWorkloadConfig::FromProperties(p);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->load_count, 1000);
  EXPECT_EQ(c->insert_count, 600);
  ASSERT_EQ(c->notes.size(), 1u);
  EXPECT_NE(c->notes[0].find("keys 400 to 1399"), std::string::npos) << c->notes[0];
  p.Set("insertcount", "200");
  c = CoreWorkloadConfig::FromProperties(p);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->load_count, 200);
  EXPECT_TRUE(c->notes.empty());
}

// Every workload file YCSB ships loads unchanged; the
// time-series workload is refused naming what is missing.
TEST(YcsbWorkloadFiles, EveryShippedFileLoads) {
  const std::string dir = std::string(WIREBENCH_SOURCE_DIR) + "/workloads";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    SCOPED_TRACE(entry.path().string());
    ++files;
    Properties p;
    const std::vector<std::string> paths = {entry.path().string()};
    Status s = p.Load(paths, {});
    ASSERT_TRUE(s.ok()) << s.ToString();
    StatusOr<CoreWorkloadConfig> c = CoreWorkloadConfig::FromProperties(p);
    if (entry.path().filename().string().rfind("tsworkload", 0) == 0) {
      ASSERT_FALSE(c.ok());
      EXPECT_EQ(c.status().code(), Status::Code::kUnimplemented);
      EXPECT_NE(c.status().message().find("time-series workload is not implemented"),
                std::string_view::npos)
          << c.status().ToString();
      continue;
    }
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_TRUE(p.UnknownKeyNotes().empty()) << ::testing::PrintToString(p.UnknownKeyNotes());
  }
  EXPECT_GE(files, 8);  // a-f, workload_template, tsworkloada.
}

}  // namespace
}  // namespace wirebench::ycsb
