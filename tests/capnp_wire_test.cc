// The `capnp` codec writes and reads Cap'n Proto's encoding itself
// (codecs/capnp/capnp_wire.h), so its round trips alone cannot tell a wrong
// field offset from a right one. These tests check it against Cap'n Proto's
// own C++ library and the accessors generated from the schema: what the codec
// writes, libcapnp reads (every word reachable and every field where the
// schema puts it), and what libcapnp builds, the codec reads; plus the
// encoding's less common shapes (far pointers, smaller structs, empty
// versus null Data) that libcapnp's builder never produces for our messages.
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "codecs/codec.h"
#include "common/bytes.h"
#include "wirebench.capnp.h"

namespace wirebench {
namespace {

std::unique_ptr<Codec> NewCapnp() {
  const CodecInfo* info = Codecs().Find("capnp");
  EXPECT_NE(info, nullptr);
  return info->factory();
}

// The payload's segment, copied to aligned words for libcapnp.
struct Segment {
  explicit Segment(const ByteBuffer& payload) {
    const uint32_t n = LoadLE32(payload.data());
    EXPECT_EQ(payload.size(), 4 + size_t(n) * 8);
    words.resize(n);
    std::memcpy(words.data(), payload.data() + 4, size_t(n) * 8);
  }
  kj::ArrayPtr<const capnp::word> array() const {
    return kj::ArrayPtr<const capnp::word>(
        reinterpret_cast<const capnp::word*>(words.data()), words.size());
  }
  std::vector<uint64_t> words;
};

// The payload as libcapnp reads it.
class LibcapnpRead {
 public:
  explicit LibcapnpRead(const ByteBuffer& payload)
      : seg_(payload), segments_{seg_.array()}, reader_(segments_) {}
  capn::Call::Reader call() { return reader_.getRoot<capn::Call>(); }
  // The root, every word of the segment expected reachable from it: nothing
  // stray, nothing missing.
  capn::Call::Reader WholeCall() {
    capn::Call::Reader root = call();
    EXPECT_EQ(root.totalSize().wordCount + 1, seg_.words.size());
    return root;
  }

 private:
  Segment seg_;
  const kj::ArrayPtr<const capnp::word> segments_[1];
  capnp::SegmentArrayMessageReader reader_;
};

std::string Str(capnp::Data::Reader d) {
  return std::string(reinterpret_cast<const char*>(d.begin()), d.size());
}

TEST(CapnpWire, LibcapnpReadsAnEncodedPut) {
  auto codec = NewCapnp();
  const std::string value(100, 'v');
  const Cell cells[] = {
      {"row1", "fam", "q0", 11, CellType::kPut, value},
      {"row1", "fam", "", 12, CellType::kDelete, ""},      // Empty qualifier and value.
      {"row1", "other", "q2", 13, CellType::kDeleteFamily, "x"},
  };
  MutateRequest req;
  req.mutation.row = "row1";
  req.mutation.type = MutationType::kDelete;
  req.mutation.timestamp = 99;
  req.mutation.cells = cells;
  ByteBuffer out;
  ASSERT_TRUE(codec->EncodeRequest(1, req, &out).ok());
  LibcapnpRead decoded(out);
  capn::Call::Reader call = decoded.WholeCall();
  ASSERT_EQ(call.getBody().which(), capn::Call::Body::MUTATE_REQUEST);
  capn::Mutation::Reader m = call.getBody().getMutateRequest().getMutation();
  EXPECT_EQ(Str(m.getRow()), "row1");
  EXPECT_EQ(m.getType(), uint8_t(MutationType::kDelete));
  EXPECT_EQ(m.getTimestamp(), 99u);
  ASSERT_EQ(m.getCells().size(), 3u);
  for (unsigned i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    capn::Cell::Reader c = m.getCells()[i];
    EXPECT_FALSE(c.hasRow());  // A mutation's cells carry no row.
    EXPECT_EQ(c.getTimestamp(), cells[i].timestamp);
    EXPECT_EQ(c.getType(), uint8_t(cells[i].type));
    EXPECT_EQ(Str(c.getQualifier()), cells[i].qualifier.str());
    EXPECT_EQ(Str(c.getValue()), cells[i].value.str());
  }
  // A family equal to the previous cell's is left out.
  EXPECT_EQ(Str(m.getCells()[0].getFamily()), "fam");
  EXPECT_FALSE(m.getCells()[1].hasFamily());
  EXPECT_EQ(Str(m.getCells()[2].getFamily()), "other");
}

TEST(CapnpWire, LibcapnpReadsEncodedResponsesAndRequests) {
  auto codec = NewCapnp();
  const Cell result_cells[] = {
      {"r", "f", "a", 1, CellType::kPut, "va"},
      {"s", "f", "b", 2, CellType::kPut, ""},
  };
  const ActionResult results[] = {
      {7, true, Result{result_cells, true}, {}},
      {8, false, Result{}, "no such region"},
  };
  MultiResponse multi;
  multi.results = results;
  ByteBuffer out;
  ASSERT_TRUE(codec->EncodeResponse(1, multi, &out).ok());
  {
    LibcapnpRead decoded(out);
    capn::Call::Reader call = decoded.WholeCall();
    ASSERT_EQ(call.getBody().which(), capn::Call::Body::MULTI_RESPONSE);
    auto rs = call.getBody().getMultiResponse().getResults();
    ASSERT_EQ(rs.size(), 2u);
    EXPECT_EQ(rs[0].getIndex(), 7u);
    EXPECT_TRUE(rs[0].getOk());
    EXPECT_TRUE(rs[0].getResult().getExists());
    EXPECT_EQ(Str(rs[0].getResult().getRow()), "r");
    ASSERT_EQ(rs[0].getResult().getCells().size(), 2u);
    EXPECT_FALSE(rs[0].getResult().getCells()[0].hasRow());  // The Result's row.
    EXPECT_EQ(Str(rs[0].getResult().getCells()[1].getRow()), "s");
    EXPECT_EQ(Str(rs[0].getResult().getCells()[1].getQualifier()), "b");
    EXPECT_EQ(rs[1].getIndex(), 8u);
    EXPECT_FALSE(rs[1].getOk());
    EXPECT_FALSE(rs[1].hasResult());
    EXPECT_EQ(Str(rs[1].getError()), "no such region");
  }

  const Column columns[] = {{"f", "q"}, {"g", ""}};
  ScanRequest scan;
  scan.start_row = "a";
  scan.stop_row = "zz";
  scan.number_of_rows = 42;
  scan.columns = columns;
  out.Clear();
  ASSERT_TRUE(codec->EncodeRequest(1, scan, &out).ok());
  {
    LibcapnpRead decoded(out);
    capn::Call::Reader call = decoded.WholeCall();
    ASSERT_EQ(call.getBody().which(), capn::Call::Body::SCAN_REQUEST);
    auto s = call.getBody().getScanRequest();
    EXPECT_EQ(Str(s.getStartRow()), "a");
    EXPECT_EQ(Str(s.getStopRow()), "zz");
    EXPECT_EQ(s.getNumberOfRows(), 42u);
    ASSERT_EQ(s.getColumns().size(), 2u);
    EXPECT_EQ(Str(s.getColumns()[0].getQualifier()), "q");
    EXPECT_EQ(Str(s.getColumns()[1].getFamily()), "g");
    EXPECT_FALSE(s.getColumns()[1].hasQualifier());
  }

  GetRequest get;
  get.row = "row";
  get.columns = columns;
  Action action;
  action.index = 3;
  action.kind = ActionKind::kGet;
  action.get = get;
  const Action actions[] = {action};
  MultiRequest mreq;
  mreq.actions = actions;
  out.Clear();
  ASSERT_TRUE(codec->EncodeRequest(1, mreq, &out).ok());
  {
    LibcapnpRead decoded(out);
    capn::Call::Reader call = decoded.WholeCall();
    auto as = call.getBody().getMultiRequest().getActions();
    ASSERT_EQ(as.size(), 1u);
    EXPECT_EQ(as[0].getIndex(), 3u);
    ASSERT_TRUE(as[0].isGet());
    EXPECT_EQ(Str(as[0].getGet().getRow()), "row");
    EXPECT_EQ(as[0].getGet().getColumns().size(), 2u);
  }

  MutateResponse mresp;
  mresp.processed = false;
  out.Clear();
  ASSERT_TRUE(codec->EncodeResponse(1, mresp, &out).ok());
  {
    LibcapnpRead decoded(out);
    EXPECT_FALSE(decoded.call().getBody().getMutateResponse().getProcessed());
  }
}

// A payload from the words of a libcapnp-built message (one segment).
ByteBuffer PayloadOf(capnp::MallocMessageBuilder& builder) {
  auto segments = builder.getSegmentsForOutput();
  EXPECT_EQ(segments.size(), 1u);
  ByteBuffer payload;
  uint8_t* p = payload.Extend(4 + segments[0].size() * 8);
  StoreLE32(p, uint32_t(segments[0].size()));
  std::memcpy(p + 4, segments[0].begin(), segments[0].size() * 8);
  return payload;
}

TEST(CapnpWire, CodecReadsWhatLibcapnpBuilds) {
  capnp::MallocMessageBuilder builder;
  auto body = builder.initRoot<capn::Call>().initBody();
  auto m = body.initMutateRequest().initMutation();
  const std::string value(300, 'x');
  m.setRow(capnp::Data::Reader(reinterpret_cast<const uint8_t*>("rowk"), 4));
  m.setType(uint8_t(MutationType::kPut));
  m.setTimestamp(5);
  auto cells = m.initCells(2);
  cells[0].setFamily(capnp::Data::Reader(reinterpret_cast<const uint8_t*>("f"), 1));
  cells[0].setQualifier(capnp::Data::Reader(reinterpret_cast<const uint8_t*>("q"), 1));
  cells[0].setValue(capnp::Data::Reader(reinterpret_cast<const uint8_t*>(value.data()), 300));
  cells[0].setTimestamp(77);
  cells[1].setType(uint8_t(CellType::kDeleteColumn));
  cells[1].setQualifier(capnp::Data::Reader(reinterpret_cast<const uint8_t*>("r"), 1));
  const ByteBuffer payload = PayloadOf(builder);
  auto codec = NewCapnp();
  MutateRequest got;
  ASSERT_TRUE(codec->DecodeRequest(payload.view(), &got).ok());
  EXPECT_EQ(got.mutation.row.str(), "rowk");
  EXPECT_EQ(got.mutation.type, MutationType::kPut);
  EXPECT_EQ(got.mutation.timestamp, 5u);
  ASSERT_EQ(got.mutation.cells.size(), 2u);
  EXPECT_EQ(got.mutation.cells[0].family.str(), "f");
  EXPECT_EQ(got.mutation.cells[0].value.str(), value);
  EXPECT_EQ(got.mutation.cells[0].timestamp, 77u);
  EXPECT_EQ(got.mutation.cells[0].type, CellType::kPut);  // The schema's default.
  EXPECT_EQ(got.mutation.cells[1].family.str(), "f");     // Null: the previous family.
  EXPECT_EQ(got.mutation.cells[1].type, CellType::kDeleteColumn);
  // Views into the payload: nothing was copied.
  EXPECT_GE(got.mutation.cells[0].value.data(), payload.data());
  EXPECT_LT(got.mutation.cells[0].value.data(), payload.data() + payload.size());
}

// Hand-made segments: word 0 is the root pointer.
ByteBuffer PayloadOfWords(const std::vector<uint64_t>& words) {
  ByteBuffer payload;
  uint8_t* p = payload.Extend(4 + words.size() * 8);
  StoreLE32(p, uint32_t(words.size()));
  std::memcpy(p + 4, words.data(), words.size() * 8);
  return payload;
}

constexpr uint64_t StructPtr(int64_t offset, uint64_t data, uint64_t ptrs) {
  return uint64_t(uint32_t(offset) << 2) | (data << 32) | (ptrs << 48);
}
constexpr uint64_t FarPtr(uint64_t pad, bool twice) {
  return 2 | (uint64_t(twice) << 2) | (pad << 3);
}

TEST(CapnpWire, FarPointersAndSmallerStructs) {
  // Root -> (single far) pad at 5 -> Call at 2 (1 data word: tag 4, then a
  // pointer); the body pointer is a double far: pad at 6..7 says the
  // MutateResponse struct is at word 4 with 1 data word (processed stored
  // inverted: 1 = false).
  const std::vector<uint64_t> words = {
      FarPtr(5, false),           // 0: root
      0,                          // 1: unused
      4,                          // 2: Call data: body tag 4 (mutateResponse)
      FarPtr(6, true),            // 3: Call's body pointer
      1,                          // 4: MutateResponse data: processed = false
      StructPtr(-4, 1, 1),        // 5: landing pad -> word 2 (5 + 1 - 4)
      FarPtr(4, false),           // 6: double-far pad: content at word 4
      StructPtr(0, 1, 0),         // 7: its tag
  };
  // libcapnp agrees that this is a valid message saying "not processed".
  const kj::ArrayPtr<const capnp::word> segments[] = {kj::ArrayPtr<const capnp::word>(
      reinterpret_cast<const capnp::word*>(words.data()), words.size())};
  capnp::SegmentArrayMessageReader reader(segments);
  EXPECT_FALSE(reader.getRoot<capn::Call>().getBody().getMutateResponse().getProcessed());
  auto codec = NewCapnp();
  MutateResponse resp;
  ASSERT_TRUE(codec->DecodeResponse(PayloadOfWords(words).view(), &resp).ok());
  EXPECT_FALSE(resp.processed);

  // A Call whose MutateResponse has no data section reads the default (true).
  const std::vector<uint64_t> small = {StructPtr(0, 1, 1), 4, StructPtr(0, 0, 1), 0};
  resp.processed = false;
  ASSERT_TRUE(codec->DecodeResponse(PayloadOfWords(small).view(), &resp).ok());
  EXPECT_TRUE(resp.processed);
}

TEST(CapnpWire, RejectsPointersOutOfBoundsAndOverBudget) {
  auto codec = NewCapnp();
  MutateResponse resp;
  // The Call's body pointer points past the segment.
  const std::vector<uint64_t> out_of_bounds = {StructPtr(0, 1, 1), 4, StructPtr(10, 1, 0)};
  Status s = codec->DecodeResponse(PayloadOfWords(out_of_bounds).view(), &resp);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("bounds"), std::string::npos) << s.ToString();
  // A far pointer to another segment.
  const std::vector<uint64_t> far_away = {FarPtr(1, false) | (uint64_t(1) << 32), 0};
  EXPECT_FALSE(codec->DecodeResponse(PayloadOfWords(far_away).view(), &resp).ok());

  // A scan response whose result list claims 2^28 zero-sized results in one
  // word: charged a word each, it runs out of traversal budget instead of
  // making the decoder size arrays for them.
  const std::vector<uint64_t> empty_elements = {
      StructPtr(0, 1, 1), 6,                 // Call, tag 6 (scanResponse)
      StructPtr(0, 1, 1), 0,                 // ScanResponse
      1 | (uint64_t(7) << 32),               // results: inline composite, 0 words
      uint64_t(1) << 28 << 2,                // its tag: 2^28 elements of 0 words
  };
  ScanResponse scan;
  s = codec->DecodeResponse(PayloadOfWords(empty_elements).view(), &scan);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("traversal"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace wirebench
