#include "transports/hbase/hbase_regions.h"

#include "transports/hbase/hbase_wire.pb.h"

namespace wirebench::hbaserpc {

namespace pbw = hbasewire;

std::string RegionRow(std::string_view table, uint32_t i, const RegionLayout& layout) {
  return std::string(table) + "," + SplitPoint(layout, i) + "," + std::to_string(kUserRegionId);
}

namespace {

// MD5 (RFC 1321), for HBase's encoded region names.
struct Md5 {
  uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  void Block(const uint8_t* p) {
    static constexpr uint32_t kK[64] = {
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
        0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
        0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
        0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
        0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
        0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
        0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
        0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
        0xeb86d391};
    static constexpr uint8_t kS[16] = {7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21};
    uint32_t m[16];
    for (int i = 0; i < 16; ++i)
      m[i] = uint32_t(p[4 * i]) | uint32_t(p[4 * i + 1]) << 8 | uint32_t(p[4 * i + 2]) << 16 |
             uint32_t(p[4 * i + 3]) << 24;
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    for (int i = 0; i < 64; ++i) {
      uint32_t f;
      int g;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) % 16;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) % 16;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) % 16;
      }
      const uint32_t t = d;
      d = c;
      c = b;
      const uint32_t x = a + f + kK[i] + m[g];
      const int r = kS[(i / 16) * 4 + i % 4];
      b = b + ((x << r) | (x >> (32 - r)));
      a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
  }
};

}  // namespace

std::string EncodedRegionName(std::string_view name) {
  Md5 md5;
  std::string data(name);
  const uint64_t bits = uint64_t(name.size()) * 8;
  data.push_back(char(0x80));
  while (data.size() % 64 != 56) data.push_back('\0');
  for (int i = 0; i < 8; ++i) data.push_back(char(bits >> (8 * i)));
  for (size_t at = 0; at < data.size(); at += 64)
    md5.Block(reinterpret_cast<const uint8_t*>(data.data()) + at);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint32_t w : md5.h)
    for (int i = 0; i < 4; ++i) {
      const uint8_t byte = uint8_t(w >> (8 * i));
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    }
  return out;
}

int RegionIndex(std::string_view name, const RegionLayout& layout) {
  const std::string_view table = TableOf(name);
  if (table.empty() || IsMetaRegion(ByteView(name))) return -1;
  std::string_view base = name;
  constexpr size_t kSuffix = 34;  // "." + 32 hex digits + "."
  if (name.size() > table.size() + kSuffix && name.back() == '.' &&
      name[name.size() - kSuffix] == '.') {
    base = name.substr(0, name.size() - kSuffix);
    if (EncodedRegionName(base) != name.substr(name.size() - kSuffix + 1, 32)) return -1;
  }
  const size_t last = base.rfind(',');
  if (last == std::string_view::npos || last <= table.size()) return -1;
  if (base.substr(last + 1) != std::to_string(kUserRegionId)) return -1;
  return layout.RegionStartingAt(base.substr(table.size() + 1, last - table.size() - 1));
}

Status CheckRegionName(ByteView name, const HBaseService& service, int* index) {
  int i = -1;
  bool held;
  if (IsMetaRegion(name)) {
    held = IsMetaRegionName(name) && service.ServesMeta();
  } else {
    i = RegionIndex(name.str(), service.layout());
    held = i >= 0 && service.Holds(uint32_t(i));
  }
  if (index != nullptr) *index = i;
  if (held) return Status::Ok();
  return Status::NotFound(std::string(exceptions::kNotServingRegion) + ": Region " +
                          (name.empty() ? std::string("(none named)") : name.ToString()) +
                          " is not online on " + service.identity().ServerNameString());
}

namespace {

int Bytewise(std::string_view a, std::string_view b) {
  const int c = a.compare(b);  // char_traits<char>: as unsigned bytes, as memcmp.
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace

int MetaCompare(std::string_view a, std::string_view b) {
  constexpr size_t npos = std::string_view::npos;
  const size_t ta = a.find(','), tb = b.find(',');
  int r = Bytewise(a.substr(0, ta), b.substr(0, tb));
  if (r != 0) return r;
  if (ta == npos || tb == npos) return ta == tb ? 0 : (ta == npos ? -1 : 1);
  const std::string_view ra = a.substr(ta + 1), rb = b.substr(tb + 1);
  const size_t fa = ra.rfind(','), fb = rb.rfind(',');
  r = Bytewise(ra.substr(0, fa), rb.substr(0, fb));
  if (r != 0) return r;
  // The region id: after the last ','. (HBase compares from the row's
  // start when there is no second ','; so does this.)
  return Bytewise(fa == npos ? a : ra.substr(fa + 1), fb == npos ? b : rb.substr(fb + 1));
}

std::string BigEndian64(uint64_t v) {
  std::string s(8, '\0');
  StoreBE64(reinterpret_cast<uint8_t*>(s.data()), v);
  return s;
}

void SetTableName(std::string_view table, pbw::TableName* t) {
  const size_t colon = table.find(':');
  if (colon == std::string_view::npos) {
    t->set_namespace_("default");
    t->set_qualifier(std::string(table));
  } else {
    t->set_namespace_(std::string(table.substr(0, colon)));
    t->set_qualifier(std::string(table.substr(colon + 1)));
  }
}

void SetServerName(const ServerIdentity& id, pbw::ServerName* s) {
  s->set_host_name(id.host);
  s->set_port(id.port);
  s->set_start_code(id.start_code);
}

void MetaRegionInfo(pbw::RegionInfo* ri) {
  ri->set_region_id(1);
  SetTableName(kMetaTable, ri->mutable_table_name());
  ri->set_start_key("");
  ri->set_end_key("");
  ri->set_offline(false);
  ri->set_split(false);
  ri->set_replica_id(0);
}

// A TimeRange message (HBase.proto) as the model's; all of time when empty.
StatusOr<TimeRange> ReadTimeRange(const std::string& bytes) {
  TimeRange tr;
  if (bytes.empty()) return tr;
  pbw::TimeRange p;
  if (!p.ParseFromString(bytes)) return Status::InvalidArgument("malformed TimeRange");
  if (p.has_from()) tr.min = p.from();
  if (p.has_to()) tr.max = p.to();
  if (tr.max < tr.min)
    return Status::InvalidArgument("TimeRange: maxStamp " + std::to_string(tr.max) +
                                   " is smaller than minStamp " + std::to_string(tr.min));
  return tr;
}

}  // namespace wirebench::hbaserpc
