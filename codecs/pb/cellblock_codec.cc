// The cellblock codec (id 4): the hand-written HBase header/param writer
// and reader (cellblock_writer.h, cellblock_reader.h) behind the Codec
// interface.
#include <memory>

#include "codecs/codec_adapter.h"
#include "codecs/pb/cellblock_reader.h"
#include "codecs/pb/cellblock_writer.h"
#include "codecs/pb/pb_codecs.h"

namespace wirebench {

namespace {

class CellBlockCodec final : public CodecAdapter<CellBlockCodec> {
 public:
  CellBlockCodec() : CodecAdapter(CodecId::kCellBlock, "cellblock", /*zero_copy_decode=*/true) {}

  template <typename M>
  Status Encode(uint32_t call_id, const M& m, ByteBuffer* out) {
    if constexpr (kIsRequest<M>) {
      return pb::AppendCellBlockRequest(call_id, m, out);
    } else {
      return pb::AppendCellBlockResponse(call_id, m, out);
    }
  }
  template <typename M>
  Status Decode(ByteView payload, M* m) {
    return reader_.Read(payload, m);
  }

 private:
  pb::CellBlockReader reader_;
};

}  // namespace

std::unique_ptr<Codec> NewCellBlockCodec() { return std::make_unique<CellBlockCodec>(); }

}  // namespace wirebench
