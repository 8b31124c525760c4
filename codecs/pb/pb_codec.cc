// The generated-message codecs, pb and pb-arena. Both run the same mapping
// (pb_mapping.h) and serialization, so their bytes are identical; they
// differ only in where messages come from (MessageSource).
#include <google/protobuf/arena.h>

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>

#include "codecs/codec_adapter.h"
#include "codecs/hbase/pb_mapping.h"
#include "codecs/hbase/pb_wire.h"
#include "codecs/pb/pb_codecs.h"
#include "common/thread_stats.h"

namespace wirebench {

namespace {

using google::protobuf::Arena;

// One slot per generated message type a codec uses.
template <typename... Ms>
struct MessageSet {
  using Owned = std::tuple<std::unique_ptr<Ms>...>;
  using Borrowed = std::tuple<Ms*...>;
};
using AllMessages =
    MessageSet<hbase::RequestHeader, hbase::ResponseHeader, hbase::MutateRequest, hbase::GetRequest,
               hbase::ScanRequest, hbase::MultiRequest, hbase::MutateResponse, hbase::GetResponse,
               hbase::ScanResponse, hbase::MultiResponse>;

// Hands out the generated messages one direction (encode or decode) of a
// codec needs, one message per type per call.
//  kFresh:      a new heap message every call (the previous one, still
//               backing the last decode's views until now, is freed).
//  kArenaReuse: one message per type on the arena, Clear()ed per call.
//  kArenaReset: the arena is Reset() at the start of every call and each
//               message created anew on it.
class MessageSource {
 public:
  enum class Mode { kFresh, kArenaReuse, kArenaReset };

  MessageSource(Mode mode, const PbArenaOptions& options)
      : mode_(mode), max_retained_(options.max_retained_bytes) {
    if (mode_ == Mode::kFresh) return;
    block_size_ = options.initial_block_bytes;
    block_ = std::make_unique<char[]>(block_size_);
    google::protobuf::ArenaOptions ao;
    ao.initial_block = block_.get();
    ao.initial_block_size = block_size_;
    arena_ = std::make_unique<Arena>(ao);
  }
  MessageSource(const MessageSource&) = delete;
  MessageSource& operator=(const MessageSource&) = delete;

  // Called once at the start of each call, before any Get().
  void BeginCall() {
    if (mode_ == Mode::kFresh) return;
    if (mode_ == Mode::kArenaReset || arena_->SpaceAllocated() > max_retained_) {
      arena_->Reset();
      reused_ = {};
    }
  }

  // An empty message of type M, valid until the next BeginCall().
  template <typename M>
  M* Get() {
    if (mode_ == Mode::kFresh) {
      auto& slot = std::get<std::unique_ptr<M>>(fresh_);
      slot = std::make_unique<M>();
      return slot.get();
    }
    M*& slot = std::get<M*>(reused_);
    if (slot == nullptr || mode_ == Mode::kArenaReset) {
      slot = Arena::CreateMessage<M>(arena_.get());
    } else {
      slot->Clear();
    }
    return slot;
  }

 private:
  Mode mode_;
  size_t max_retained_;
  size_t block_size_ = 0;
  std::unique_ptr<char[]> block_;  // Outlives arena_ (declared before it).
  std::unique_ptr<Arena> arena_;
  AllMessages::Owned fresh_;
  AllMessages::Borrowed reused_{};
};

// Protobuf messages are limited to 2 GiB.
constexpr size_t kMaxMessageBytes = size_t(INT32_MAX);

// Appends header and param, each varint-delimited; false (and `out`
// unchanged) when one is over protobuf's 2 GiB limit.
bool PutDelimited(const google::protobuf::MessageLite& header,
                  const google::protobuf::MessageLite& param, ByteBuffer* out) {
  size_t h = header.ByteSizeLong(), p = param.ByteSizeLong();
  if (h > kMaxMessageBytes || p > kMaxMessageBytes) return false;
  uint8_t* at = out->Extend(pb::VarintSize(h) + h + pb::VarintSize(p) + p);
  at = header.SerializeWithCachedSizesToArray(pb::WriteVarint(at, h));
  param.SerializeWithCachedSizesToArray(pb::WriteVarint(at, p));
  return true;
}

bool ParseDelimited(ByteView* in, google::protobuf::MessageLite* m) {
  ByteView bytes;
  return pb::ReadDelimited(in, &bytes) && bytes.size() <= kMaxMessageBytes &&
         m->ParseFromArray(bytes.data(), int(bytes.size()));
}

// The generated message that carries each model message as the call's param.
template <typename M>
using ProtoOf = std::tuple_element_t<
    kMessageIndex<M>,
    std::tuple<hbase::MutateRequest, hbase::GetRequest, hbase::ScanRequest, hbase::MultiRequest,
               hbase::MutateResponse, hbase::GetResponse, hbase::ScanResponse,
               hbase::MultiResponse>>;

class ProtoCodec final : public CodecAdapter<ProtoCodec> {
 public:
  ProtoCodec(CodecId id, std::string_view name, MessageSource::Mode mode,
             const PbArenaOptions& options)
      : CodecAdapter(id, name, /*zero_copy_decode=*/false),
        name_(name),
        enc_(mode, options),
        dec_(mode, options) {}

  template <typename M>
  Status Encode(uint32_t call_id, const M& m, ByteBuffer* out) {
    if constexpr (kIsRequest<M>) {
      return EncodeReq<ProtoOf<M>>(call_id, kMethodOf<M>, m, out);
    } else {
      return EncodeResp<ProtoOf<M>>(call_id, m, out);
    }
  }
  template <typename M>
  Status Decode(ByteView payload, M* m) {
    if constexpr (kIsRequest<M>) {
      return DecodeReq<ProtoOf<M>>(payload, kMethodOf<M>, m);
    } else {
      return DecodeResp<ProtoOf<M>>(payload, m);
    }
  }

 private:
  Status TooLarge() const {
    return Status::InvalidArgument(std::string(name_) +
                                   ": message over protobuf's 2 GiB limit; split the call");
  }
  Status Corrupt(const char* what) const {
    return Status::Corruption(std::string(name_) + ": " + what);
  }

  template <typename Proto, typename Model>
  Status EncodeReq(uint32_t call_id, Method method, const Model& m, ByteBuffer* out) {
    enc_.BeginCall();
    hbase::RequestHeader* header = enc_.Get<hbase::RequestHeader>();
    header->set_call_id(call_id);
    std::string_view method_name = MethodName(method);
    header->mutable_method_name()->assign(method_name.data(), method_name.size());
    header->set_request_param(true);
    return EncodeParam<Proto>(*header, m, out);
  }

  template <typename Proto, typename Model>
  Status EncodeResp(uint32_t call_id, const Model& m, ByteBuffer* out) {
    enc_.BeginCall();
    hbase::ResponseHeader* header = enc_.Get<hbase::ResponseHeader>();
    header->set_call_id(call_id);
    return EncodeParam<Proto>(*header, m, out);
  }

  // The message after its header: the model copied into a Proto, both
  // written delimited to `out`.
  template <typename Proto, typename Header, typename Model>
  Status EncodeParam(const Header& header, const Model& m, ByteBuffer* out) {
    Proto* param = enc_.Get<Proto>();
    const size_t copied = pb::Fill(m, param);
    if (!PutDelimited(header, *param, out)) return TooLarge();
    // Once into the message's strings, once more serializing them into `out`.
    CountEncodeCopy(2 * copied);
    return Status::Ok();
  }

  template <typename Proto, typename Model>
  Status DecodeReq(ByteView payload, Method method, Model* m) {
    dec_.BeginCall();
    hbase::RequestHeader* header = dec_.Get<hbase::RequestHeader>();
    if (!ParseDelimited(&payload, header)) return Corrupt("RequestHeader does not parse");
    std::string_view expected = MethodName(method);
    if (header->method_name() != expected)
      return Status::Corruption(std::string(name_) + ": RequestHeader.method_name is '" +
                                header->method_name() + "', expected '" + std::string(expected) +
                                "'");
    if (!header->request_param()) return Corrupt("RequestHeader.request_param is not set");
    if (header->cell_block_meta().length() != 0)
      return Corrupt("the request carries a cell block; use the cellblock codec");
    return DecodeParam<Proto>(payload, "param message", m);
  }

  template <typename Proto, typename Model>
  Status DecodeResp(ByteView payload, Model* m) {
    dec_.BeginCall();
    hbase::ResponseHeader* header = dec_.Get<hbase::ResponseHeader>();
    if (!ParseDelimited(&payload, header)) return Corrupt("ResponseHeader does not parse");
    if (header->has_exception())
      return Status::Internal(std::string(name_) + ": the server answered with " +
                              header->exception().exception_class_name() + ": " +
                              header->exception().stack_trace());
    if (header->cell_block_meta().length() != 0)
      return Corrupt("the response carries a cell block; use the cellblock codec");
    return DecodeParam<Proto>(payload, "response message", m);
  }

  // The message after its header, which must end the payload, read into a
  // Proto and from it into the model (copying its values).
  template <typename Proto, typename Model>
  Status DecodeParam(ByteView payload, const char* what, Model* m) {
    Proto* param = dec_.Get<Proto>();
    if (!ParseDelimited(&payload, param))
      return Status::Corruption(std::string(name_) + ": " + what + " does not parse");
    if (!payload.empty())
      return Status::Corruption(std::string(name_) + ": bytes after the " + what);
    WB_RETURN_IF_ERROR(builder_.Read(*param, m));
    CountDecodeCopy(builder_.copied());
    return Status::Ok();
  }

  std::string_view name_;  // For messages.
  MessageSource enc_;
  MessageSource dec_;  // Its messages back the views of the last decode.
  pb::ModelBuilder builder_;
};

}  // namespace

std::unique_ptr<Codec> NewPbCodec() {
  return std::make_unique<ProtoCodec>(CodecId::kPb, "pb", MessageSource::Mode::kFresh,
                                      PbArenaOptions{});
}

std::unique_ptr<Codec> NewPbArenaCodec() { return NewPbArenaCodec(PbArenaOptions{}); }

std::unique_ptr<Codec> NewPbArenaCodec(const PbArenaOptions& options) {
  return std::make_unique<ProtoCodec>(CodecId::kPbArena, "pb-arena",
                                      options.reset_every_call ? MessageSource::Mode::kArenaReset
                                                               : MessageSource::Mode::kArenaReuse,
                                      options);
}

}  // namespace wirebench
