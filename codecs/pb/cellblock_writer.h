// The encoding half of the cellblock codec: HBase's RequestHeader /
// ResponseHeader and param messages written by hand from the message model
// (no generated messages, so nothing is copied into intermediate strings),
// followed by the cells in KeyValueCodec format (key_value.h).
//
// Each Append() writes one complete payload at the end of `out` and counts
// the payload bytes it copies (row, family, qualifier, value) with
// CountEncodeCopy(). It first sizes everything and checks every cell against
// KeyValue's limits, so on error `out` is unchanged.
// The bytes are what the generated HBase messages would serialize: fields in
// number order, the same tags and lengths.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "codecs/message.h"
#include "common/bytes.h"
#include "common/status.h"

namespace wirebench::pb {

Status AppendCellBlockRequest(uint32_t call_id, const MutateRequest& req, ByteBuffer* out);
Status AppendCellBlockRequest(uint32_t call_id, const GetRequest& req, ByteBuffer* out);
Status AppendCellBlockRequest(uint32_t call_id, const ScanRequest& req, ByteBuffer* out);
Status AppendCellBlockRequest(uint32_t call_id, const MultiRequest& req, ByteBuffer* out);

Status AppendCellBlockResponse(uint32_t call_id, const MutateResponse& resp, ByteBuffer* out);
Status AppendCellBlockResponse(uint32_t call_id, const GetResponse& resp, ByteBuffer* out);
Status AppendCellBlockResponse(uint32_t call_id, const ScanResponse& resp, ByteBuffer* out);
Status AppendCellBlockResponse(uint32_t call_id, const MultiResponse& resp, ByteBuffer* out);

}  // namespace wirebench::pb
