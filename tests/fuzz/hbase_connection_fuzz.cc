// libFuzzer target for `--rpc hbase`'s connection and call parser
// (transports/hbase/hbase_protocol.h): the bytes a peer sends on one
// connection (preamble, ConnectionHeader, calls), offered to a
// ConnectionCore over a null region with canned reads in chunks whose size
// the first input byte picks, as a slow or bursty peer delivers them.
// Checked: the core never consumes more than it was given, and everything
// it writes is a sequence of whole replies (a big-endian length, then a
// varint-delimited ResponseHeader that parses within it); once it says
// close, it consumes nothing more.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "codecs/hbase/pb_wire.h"
#include "codecs/schemas/RPC.pb.h"
#include "nullregion/null_region.h"
#include "nullregion/region_service.h"
#include "transports/hbase/hbase_protocol.h"

namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "hbase connection parser: %s\n", what);
  std::abort();
}

struct World {
  World() {
    wirebench::NullRegionOptions o;
    o.reads = wirebench::NullRegionOptions::Reads::kCanned;
    o.canned_fields = 2;
    o.canned_field_length = 8;
    region = wirebench::NewNullRegion(o);
    service = std::make_unique<wirebench::RegionService>(region.get());
    wirebench::hbaserpc::ServerIdentity id;
    id.host = "127.0.0.1";
    id.port = 16020;
    id.start_code = 1;
    id.cluster_id = "00000000-0000-4000-8000-000000000000";
    hbase = std::make_unique<wirebench::hbaserpc::HBaseService>(region.get(), service.get(), id);
  }
  std::unique_ptr<wirebench::Region> region;
  std::unique_ptr<wirebench::RegionService> service;
  std::unique_ptr<wirebench::hbaserpc::HBaseService> hbase;
};

void CheckReplies(wirebench::ByteView out) {
  using namespace wirebench;
  size_t pos = 0;
  while (pos < out.size()) {
    if (out.size() - pos < 4) Fail("a reply shorter than its length word");
    const uint32_t len = LoadBE32(out.data() + pos);
    if (out.size() - pos - 4 < len) Fail("a reply shorter than its length says");
    ByteView body(out.data() + pos + 4, len), header;
    if (!pb::ReadDelimited(&body, &header)) Fail("a reply without a delimited ResponseHeader");
    hbase::ResponseHeader h;
    if (!h.ParseFromArray(header.data(), int(header.size()))) Fail("a ResponseHeader that does not parse");
    if (h.has_exception() && h.exception().exception_class_name().empty())
      Fail("an exception without a class name");
    pos += 4 + len;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wirebench;
  static World* world = new World;
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 64;
  hbaserpc::HBaseIoStats stats;
  hbaserpc::ConnectionCore core(world->hbase.get(), nullptr, &stats, 1u << 16);
  ByteBuffer in, out;
  bool closed = false;
  for (size_t pos = 1; pos < size && !closed;) {
    const size_t n = std::min(chunk, size - pos);
    in.Append(data + pos, n);
    pos += n;
    const size_t used = core.Consume(in.view(), &out, &closed);
    if (used > in.size()) Fail("consumed more than it was given");
    in.Consume(used);
  }
  if (closed) {
    bool again = false;
    in.Append(ByteView("HBas\x00\x50", 6));
    if (core.Consume(in.view(), &out, &again) != 0) Fail("consumed bytes after closing");
  }
  CheckReplies(out.view());
  return 0;
}
