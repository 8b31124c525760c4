// The cellblock codec (id 4): the hand-written HBase header/param writer
// and reader (cellblock_writer.h, cellblock_reader.h) behind the Codec
// interface.
#include <memory>

#include "codecs/pb/cellblock_reader.h"
#include "codecs/pb/cellblock_writer.h"
#include "codecs/pb/pb_codecs.h"

namespace wirebench {

namespace {

class CellBlockCodec final : public Codec {
 public:
  CodecId id() const override { return CodecId::kCellBlock; }
  std::string_view name() const override { return "cellblock"; }
  bool zero_copy_decode() const override { return true; }

  Status EncodeRequest(uint32_t call_id, const MutateRequest& req, ByteBuffer* out) override {
    return pb::AppendCellBlockRequest(call_id, req, out);
  }
  Status EncodeRequest(uint32_t call_id, const GetRequest& req, ByteBuffer* out) override {
    return pb::AppendCellBlockRequest(call_id, req, out);
  }
  Status EncodeRequest(uint32_t call_id, const ScanRequest& req, ByteBuffer* out) override {
    return pb::AppendCellBlockRequest(call_id, req, out);
  }
  Status EncodeRequest(uint32_t call_id, const MultiRequest& req, ByteBuffer* out) override {
    return pb::AppendCellBlockRequest(call_id, req, out);
  }
  Status DecodeRequest(ByteView payload, MutateRequest* req) override {
    return reader_.Read(payload, req);
  }
  Status DecodeRequest(ByteView payload, GetRequest* req) override {
    return reader_.Read(payload, req);
  }
  Status DecodeRequest(ByteView payload, ScanRequest* req) override {
    return reader_.Read(payload, req);
  }
  Status DecodeRequest(ByteView payload, MultiRequest* req) override {
    return reader_.Read(payload, req);
  }

  Status EncodeResponse(uint32_t call_id, const MutateResponse& resp, ByteBuffer* out) override {
    return pb::AppendCellBlockResponse(call_id, resp, out);
  }
  Status EncodeResponse(uint32_t call_id, const GetResponse& resp, ByteBuffer* out) override {
    return pb::AppendCellBlockResponse(call_id, resp, out);
  }
  Status EncodeResponse(uint32_t call_id, const ScanResponse& resp, ByteBuffer* out) override {
    return pb::AppendCellBlockResponse(call_id, resp, out);
  }
  Status EncodeResponse(uint32_t call_id, const MultiResponse& resp, ByteBuffer* out) override {
    return pb::AppendCellBlockResponse(call_id, resp, out);
  }
  Status DecodeResponse(ByteView payload, MutateResponse* resp) override {
    return reader_.Read(payload, resp);
  }
  Status DecodeResponse(ByteView payload, GetResponse* resp) override {
    return reader_.Read(payload, resp);
  }
  Status DecodeResponse(ByteView payload, ScanResponse* resp) override {
    return reader_.Read(payload, resp);
  }
  Status DecodeResponse(ByteView payload, MultiResponse* resp) override {
    return reader_.Read(payload, resp);
  }

 private:
  pb::CellBlockReader reader_;
};

}  // namespace

std::unique_ptr<Codec> NewCellBlockCodec() { return std::make_unique<CellBlockCodec>(); }

}  // namespace wirebench
