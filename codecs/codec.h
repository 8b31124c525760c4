// The Codec interface: one serialization scheme for every method's request
// and response (docs/design.md, "Codecs"), plus the registry that finds codecs by name
// and by wire id.
//
// A Codec instance belongs to one connection (or one handler thread) and is
// used by one thread at a time; it may keep arenas, builders and scratch
// vectors between calls, and takes no locks.
//
// Encode* appends the payload (what follows the fixed call header) to `out`;
// it never clears `out`, because the RPC layer has already written the frame
// header there. Decode* fills a message whose views stay valid until the next
// Decode* call on this instance or until the payload bytes change.
// Every codec counts the payload bytes it copies with CountEncodeCopy() and
// CountDecodeCopy() (common/thread_stats.h): "payload" means row, family,
// qualifier and value bytes; the codec's own headers and lengths do not count.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "codecs/message.h"
#include "common/bytes.h"
#include "common/calls.h"
#include "common/registry.h"
#include "common/status.h"

namespace wirebench {

// A codec's id: the connection preamble's codec byte (docs/design.md,
// "Codecs"). The registry entry (codecs/codec_registry.cc) assigns it; the
// named values are the built-in codecs', for code and tests that name one. A
// new codec needs no name here: its entry gives CodecId(N) with the next free N.
enum class CodecId : uint8_t {
  kRaw = 1,
  kPb = 2,
  kPbArena = 3,
  kCellBlock = 4,
  kFlatBuffers = 5,
};

class Codec {
 public:
  virtual ~Codec() = default;

  virtual CodecId id() const = 0;
  virtual std::string_view name() const = 0;
  // True when decoded values are views into the payload (no copy on decode).
  virtual bool zero_copy_decode() const = 0;

  // Requests. `call_id` is the RPC call id; codecs that carry it inside the
  // payload (the HBase RequestHeader) write it there too.
  virtual Status EncodeRequest(uint32_t call_id, const MutateRequest& req, ByteBuffer* out) = 0;
  virtual Status EncodeRequest(uint32_t call_id, const GetRequest& req, ByteBuffer* out) = 0;
  virtual Status EncodeRequest(uint32_t call_id, const ScanRequest& req, ByteBuffer* out) = 0;
  virtual Status EncodeRequest(uint32_t call_id, const MultiRequest& req, ByteBuffer* out) = 0;
  virtual Status DecodeRequest(ByteView payload, MutateRequest* req) = 0;
  virtual Status DecodeRequest(ByteView payload, GetRequest* req) = 0;
  virtual Status DecodeRequest(ByteView payload, ScanRequest* req) = 0;
  virtual Status DecodeRequest(ByteView payload, MultiRequest* req) = 0;

  // Responses.
  virtual Status EncodeResponse(uint32_t call_id, const MutateResponse& resp, ByteBuffer* out) = 0;
  virtual Status EncodeResponse(uint32_t call_id, const GetResponse& resp, ByteBuffer* out) = 0;
  virtual Status EncodeResponse(uint32_t call_id, const ScanResponse& resp, ByteBuffer* out) = 0;
  virtual Status EncodeResponse(uint32_t call_id, const MultiResponse& resp, ByteBuffer* out) = 0;
  virtual Status DecodeResponse(ByteView payload, MutateResponse* resp) = 0;
  virtual Status DecodeResponse(ByteView payload, GetResponse* resp) = 0;
  virtual Status DecodeResponse(ByteView payload, ScanResponse* resp) = 0;
  virtual Status DecodeResponse(ByteView payload, MultiResponse* resp) = 0;
};

// Encodes or decodes any message kind through the overload for its side
// (request or response: a request type has an EncodeRequest overload), for
// code that treats every kind alike (the codec tests and benchmarks).
template <typename M>
Status EncodeMessage(Codec& c, uint32_t call_id, const M& m, ByteBuffer* out) {
  if constexpr (requires { c.EncodeRequest(call_id, m, out); }) {
    return c.EncodeRequest(call_id, m, out);
  } else {
    return c.EncodeResponse(call_id, m, out);
  }
}

template <typename M>
Status DecodeMessage(Codec& c, ByteView payload, M* m) {
  if constexpr (requires { c.DecodeRequest(payload, m); }) {
    return c.DecodeRequest(payload, m);
  } else {
    return c.DecodeResponse(payload, m);
  }
}

// What a codec's decoders promise for untrusted input; the conformance suite
// (tests/codec_conformance_test.cc) holds every codec to its own.
struct DecodeGuarantees {
  // Every proper prefix of a valid payload is rejected (the format can tell
  // a cut payload from a whole one). Otherwise a prefix must be rejected or
  // decode exactly the original message.
  bool rejects_every_truncation = false;
  // Every random input of 16 bytes or more is rejected. Otherwise at most 1%
  // may be accepted (protobuf accepts unknown fields by design), and what is
  // accepted must be sane.
  bool rejects_all_garbage = false;
};

// A codec's registry entry: the one place a codec is described. Its name,
// summary and symbol prefixes (the code it runs besides its Codec class: its
// generated code, its library) are every entry's (common/registry.h).
struct CodecInfo : RegistryEntry {
  CodecInfo(CodecId id, std::string_view name, std::string_view summary,
            std::unique_ptr<Codec> (*factory)(), DecodeGuarantees guarantees,
            std::initializer_list<std::string_view> symbol_prefixes)
      : RegistryEntry(name, summary, symbol_prefixes),
        id(id),
        factory(factory),
        guarantees(guarantees) {}

  CodecId id;  // The preamble's codec byte; a new codec takes the next free number.
  std::unique_ptr<Codec> (*factory)();
  DecodeGuarantees guarantees;
};

// Every codec wirebench knows, in id order (codecs/codec_registry.cc); the
// first is the default.
const Registry<CodecInfo>& Codecs();
// The entry for a preamble's codec byte; nullptr when unknown.
const CodecInfo* FindCodec(uint8_t id);
// A new instance, or an error naming the codecs that exist.
StatusOr<std::unique_ptr<Codec>> NewCodec(std::string_view name);
StatusOr<std::unique_ptr<Codec>> NewCodec(uint8_t id);
// "raw, pb, pb-arena, cellblock, flatbuffers, capnp, writable" (capnp where it is built).
std::string CodecNames();

}  // namespace wirebench
