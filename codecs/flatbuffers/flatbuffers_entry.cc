// `--codec flatbuffers`: its registry entry.
#include "codecs/codec.h"
#include "codecs/flatbuffers/flatbuffers_codec.h"

namespace wirebench {

const CodecInfo& FlatBuffersCodecEntry() {
  // A size prefix the Verifier checks against the payload length.
  static const CodecInfo entry{
      CodecId::kFlatBuffers, "flatbuffers",
      "a FlatBuffers table per call, verified and read in place; builder reused",
      &NewFlatBuffersCodec, {.rejects_every_truncation = true, .rejects_all_garbage = true},
      {"wirebench::fb::", "flatbuffers::"}};
  return entry;
}

}  // namespace wirebench
