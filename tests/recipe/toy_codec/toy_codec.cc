// Every call is forwarded to a raw codec: the test is of the recipe (a folder,
// one registry line, one add_subdirectory), not of a format, so the toy has
// none of its own. Raw counts the payload bytes it copies, so the toy does too.
#include "codecs/toy/toy_codec.h"

#include <memory>
#include <utility>

#include "codecs/codec_adapter.h"

namespace wirebench {

namespace {

// The next id no codec of the tree takes (codecs/codec.h; the recipe test
// fails if another codec comes to take it).
constexpr CodecId kToyId = CodecId(8);

class ToyCodec final : public CodecAdapter<ToyCodec> {
 public:
  explicit ToyCodec(std::unique_ptr<Codec> raw)
      : CodecAdapter(kToyId, "toy", raw->zero_copy_decode()), raw_(std::move(raw)) {}

  template <typename M>
  Status Encode(uint32_t call_id, const M& message, ByteBuffer* out) {
    if constexpr (kIsRequest<M>)
      return raw_->EncodeRequest(call_id, message, out);
    else
      return raw_->EncodeResponse(call_id, message, out);
  }
  template <typename M>
  Status Decode(ByteView payload, M* message) {
    if constexpr (kIsRequest<M>)
      return raw_->DecodeRequest(payload, message);
    else
      return raw_->DecodeResponse(payload, message);
  }

 private:
  std::unique_ptr<Codec> raw_;
};

}  // namespace

std::unique_ptr<Codec> NewToyCodec() {
  // Through the registry: a codec's folder is its own business
  // (cmake/check_layering.cmake), so the toy names raw rather than include it.
  // Raw is always built, so the lookup cannot fail.
  return std::make_unique<ToyCodec>(std::move(NewCodec("raw")).value());
}

}  // namespace wirebench
