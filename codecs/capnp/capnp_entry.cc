// `--codec capnp`: its registry entry (built when Cap'n Proto is installed).
#include "codecs/capnp/capnp_codec.h"
#include "codecs/codec.h"

namespace wirebench {

const CodecInfo& CapnpCodecEntry() {
  // A word count the payload length must match exactly.
  static const CodecInfo entry{
      CodecId(6), "capnp",
      "a Cap'n Proto message built in the frame, read in place with traversal limits",
      &NewCapnpCodec, {.rejects_every_truncation = true, .rejects_all_garbage = true},
      {"wirebench::capn::", "capnp::", "kj::"}};
  return entry;
}

}  // namespace wirebench
