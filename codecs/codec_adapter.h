// CodecAdapter<Impl>: the Codec interface implemented once over a codec's
// own encode and decode functions, so a codec writes only those (the way
// seastar's rpc takes its serializer as a template parameter).
//
// Impl derives from CodecAdapter<Impl> and provides, as overloads or
// templates, for every message type M of codecs/message.h:
//   Status Encode(uint32_t call_id, const M& message, ByteBuffer* out);
//   Status Decode(ByteView payload, M* message);
// with the contract of Codec's Encode*/Decode* (codecs/codec.h). Each
// virtual method of Codec calls Impl's function directly (Impl is final), so
// a message costs one virtual call, as before.
//
// Thread-safety: as the codec it adapts (one instance per thread at a time).
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "codecs/codec.h"

namespace wirebench {

// What a message type is: a request (and of which method) or a response.
template <typename M>
struct MessageTraits;
template <>
struct MessageTraits<MutateRequest> {
  static constexpr bool kIsRequest = true;
  static constexpr Method kMethod = Method::kMutate;
};
template <>
struct MessageTraits<GetRequest> {
  static constexpr bool kIsRequest = true;
  static constexpr Method kMethod = Method::kGet;
};
template <>
struct MessageTraits<ScanRequest> {
  static constexpr bool kIsRequest = true;
  static constexpr Method kMethod = Method::kScan;
};
template <>
struct MessageTraits<MultiRequest> {
  static constexpr bool kIsRequest = true;
  static constexpr Method kMethod = Method::kMulti;
};
template <>
struct MessageTraits<MutateResponse> {
  static constexpr bool kIsRequest = false;
  static constexpr Method kMethod = Method::kMutate;
};
template <>
struct MessageTraits<GetResponse> {
  static constexpr bool kIsRequest = false;
  static constexpr Method kMethod = Method::kGet;
};
template <>
struct MessageTraits<ScanResponse> {
  static constexpr bool kIsRequest = false;
  static constexpr Method kMethod = Method::kScan;
};
template <>
struct MessageTraits<MultiResponse> {
  static constexpr bool kIsRequest = false;
  static constexpr Method kMethod = Method::kMulti;
};

template <typename Impl>
class CodecAdapter : public Codec {
 public:
  CodecId id() const final { return id_; }
  std::string_view name() const final { return name_; }
  bool zero_copy_decode() const final { return zero_copy_decode_; }

  Status EncodeRequest(uint32_t id, const MutateRequest& m, ByteBuffer* out) final {
    return self().Encode(id, m, out);
  }
  Status EncodeRequest(uint32_t id, const GetRequest& m, ByteBuffer* out) final {
    return self().Encode(id, m, out);
  }
  Status EncodeRequest(uint32_t id, const ScanRequest& m, ByteBuffer* out) final {
    return self().Encode(id, m, out);
  }
  Status EncodeRequest(uint32_t id, const MultiRequest& m, ByteBuffer* out) final {
    return self().Encode(id, m, out);
  }
  Status DecodeRequest(ByteView payload, MutateRequest* m) final {
    return self().Decode(payload, m);
  }
  Status DecodeRequest(ByteView payload, GetRequest* m) final { return self().Decode(payload, m); }
  Status DecodeRequest(ByteView payload, ScanRequest* m) final { return self().Decode(payload, m); }
  Status DecodeRequest(ByteView payload, MultiRequest* m) final {
    return self().Decode(payload, m);
  }

  Status EncodeResponse(uint32_t id, const MutateResponse& m, ByteBuffer* out) final {
    return self().Encode(id, m, out);
  }
  Status EncodeResponse(uint32_t id, const GetResponse& m, ByteBuffer* out) final {
    return self().Encode(id, m, out);
  }
  Status EncodeResponse(uint32_t id, const ScanResponse& m, ByteBuffer* out) final {
    return self().Encode(id, m, out);
  }
  Status EncodeResponse(uint32_t id, const MultiResponse& m, ByteBuffer* out) final {
    return self().Encode(id, m, out);
  }
  Status DecodeResponse(ByteView payload, MutateResponse* m) final {
    return self().Decode(payload, m);
  }
  Status DecodeResponse(ByteView payload, GetResponse* m) final {
    return self().Decode(payload, m);
  }
  Status DecodeResponse(ByteView payload, ScanResponse* m) final {
    return self().Decode(payload, m);
  }
  Status DecodeResponse(ByteView payload, MultiResponse* m) final {
    return self().Decode(payload, m);
  }

 protected:
  CodecAdapter(CodecId id, std::string_view name, bool zero_copy_decode)
      : id_(id), name_(name), zero_copy_decode_(zero_copy_decode) {}

 private:
  Impl& self() {
    static_assert(std::is_final_v<Impl>, "declare the codec final, so calls into it are direct");
    return static_cast<Impl&>(*this);
  }

  CodecId id_;
  std::string_view name_;
  bool zero_copy_decode_;
};

}  // namespace wirebench
