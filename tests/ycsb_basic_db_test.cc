// YCSB's BasicDB lines: the text BasicDB's verbose mode
// prints for each call, from the request wirebench builds, with fields in
// java.util.HashMap order as CoreWorkload's maps hold them.
#include "ycsb/basic_db.h"

#include <gtest/gtest.h>

namespace wirebench::ycsb {
namespace {

TEST(YcsbBasicDb, JavaStringHash) {
  EXPECT_EQ(JavaStringHash(""), 0);
  EXPECT_EQ(JavaStringHash("a"), 97);
  EXPECT_EQ(JavaStringHash("field0"), -1274708362);  // "field0".hashCode() in Java.
}

TEST(YcsbBasicDb, HashMapOrderOfYcsbFieldNames) {
  std::vector<std::string> names;
  for (int i = 0; i < 13; ++i) names.push_back("field" + std::to_string(i));
  std::vector<std::string_view> ten(names.begin(), names.begin() + 10);
  // BasicDB's well-known "field1=... field0=... field7=..." order.
  EXPECT_EQ(JavaHashMapOrder(ten), (std::vector<size_t>{1, 0, 7, 6, 9, 8, 3, 2, 5, 4}));
  // Thirteen entries: the table has grown to 32 buckets.
  std::vector<std::string_view> thirteen(names.begin(), names.end());
  EXPECT_EQ(JavaHashMapOrder(thirteen),
            (std::vector<size_t>{11, 12, 1, 0, 10, 7, 6, 9, 8, 3, 2, 5, 4}));
}

TEST(YcsbBasicDb, LinesAsBasicDbPrintsThem) {
  const Column family{ByteView("family"), ByteView()};
  EXPECT_EQ(BasicDbReadLine("usertable", ByteView("user42"), std::span<const Column>(&family, 1)),
            "READ usertable user42 [ <all fields>]");
  const Column one{ByteView("family"), ByteView("field3")};
  EXPECT_EQ(BasicDbReadLine("usertable", ByteView("user42"), std::span<const Column>(&one, 1)),
            "READ usertable user42 [ field3 ]");
  ScanRequest scan;
  scan.start_row = ByteView("user7");
  scan.number_of_rows = 12;
  scan.columns = std::span<const Column>(&family, 1);
  EXPECT_EQ(BasicDbScanLine("usertable", scan), "SCAN usertable user7 12 [ <all fields>]");
  const Cell cells[] = {{ByteView("user9"), ByteView("family"), ByteView("field0"), 0,
                         CellType::kPut, ByteView("aa")},
                        {ByteView("user9"), ByteView("family"), ByteView("field1"), 0,
                         CellType::kPut, ByteView("bb")}};
  Mutation m;
  m.row = ByteView("user9");
  m.cells = cells;
  EXPECT_EQ(BasicDbWriteLine("INSERT", "usertable", m),
            "INSERT usertable user9 [ field1=bb field0=aa ]");
  // basicdb.count's hashes: fields sorted, values after their field.
  EXPECT_EQ(BasicDbWriteHash("usertable", m), JavaStringHash("usertableuser9field0aafield1bb"));
  EXPECT_EQ(BasicDbReadHash("usertable", ByteView("user42"), std::span<const Column>(&family, 1)),
            JavaStringHash("usertableuser42"));
  const Column two[] = {{ByteView("family"), ByteView("field3")},
                        {ByteView("family"), ByteView("field1")}};
  EXPECT_EQ(BasicDbReadHash("usertable", ByteView("user42"), two),
            JavaStringHash("usertableuser42field1field3"));
  EXPECT_EQ(BasicDbPropertiesBlock({{"db", "site.ycsb.BasicDB"}}),
            "***************** properties *****************\n"
            "\"db\"=\"site.ycsb.BasicDB\"\n"
            "**********************************************\n");
}

}  // namespace
}  // namespace wirebench::ycsb
