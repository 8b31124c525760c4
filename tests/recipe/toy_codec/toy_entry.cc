// `--codec toy`: its registry entry.
#include "codecs/codec.h"
#include "codecs/toy/toy_codec.h"

namespace wirebench {

const CodecInfo& ToyCodecEntry() {
  // Raw's guarantees, as every decode is raw's.
  static const CodecInfo entry{
      CodecId(8), "toy", "the recipe test's codec: raw's bytes under its own name and id",
      &NewToyCodec, {.rejects_every_truncation = true, .rejects_all_garbage = true}, {}};
  return entry;
}

}  // namespace wirebench
