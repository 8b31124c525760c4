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

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "codecs/codec.h"

namespace wirebench {

// A decoder's scratch array of n elements (the cells, results or columns its
// decoded views point into): grows the vector to at least n and never
// shrinks it, so a codec that has seen its largest message stops allocating.
template <typename T>
T* ScratchSlots(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

// Every message type: the requests in Method order, then the responses.
using MessageTypes = std::tuple<MutateRequest, GetRequest, ScanRequest, MultiRequest,
                                MutateResponse, GetResponse, ScanResponse, MultiResponse>;

template <typename M, typename... Ts>
constexpr size_t IndexOfType(std::tuple<Ts...>*) {
  constexpr bool match[] = {std::is_same_v<M, Ts>...};
  for (size_t i = 0; i < sizeof...(Ts); ++i)
    if (match[i]) return i;
  return sizeof...(Ts);
}

// M's position in MessageTypes (for mapping it to a codec's own types with
// std::tuple_element_t), whether it is a request, and its method.
template <typename M>
inline constexpr size_t kMessageIndex = IndexOfType<M>(static_cast<MessageTypes*>(nullptr));
template <typename M>
inline constexpr bool kIsRequest = kMessageIndex<M> < 4;
template <typename M>
inline constexpr Method kMethodOf = Method(uint8_t(Method::kMutate) + kMessageIndex<M> % 4);

static_assert(kMethodOf<MultiResponse> == Method::kMulti && kIsRequest<ScanRequest> &&
              !kIsRequest<GetResponse>);

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
