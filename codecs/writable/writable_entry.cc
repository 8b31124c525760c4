// `--codec writable`: its registry entry.
#include "codecs/codec.h"
#include "codecs/writable/writable_codec.h"

namespace wirebench {

const CodecInfo& WritableCodecEntry() {
  // Every count and length checked and the end exact; fixed class codes
  // and method names up front.
  static const CodecInfo entry{
      CodecId(7), "writable",
      "HBase 0.94's Writable RPC: Invocation, HbaseObjectWritable class codes, Put/Get/Result "
      "with KeyValues, vints; written once into the frame, decoded as views",
      &NewWritableCodec, {.rejects_every_truncation = true, .rejects_all_garbage = true}, {}};
  return entry;
}

}  // namespace wirebench
