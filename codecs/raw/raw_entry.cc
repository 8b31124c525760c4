// `--codec raw`: its registry entry.
#include "codecs/codec.h"
#include "codecs/raw/raw_codec.h"

namespace wirebench {

const CodecInfo& RawCodecEntry() {
  // Lengths and an exact end: every truncation and all garbage is caught.
  static const CodecInfo entry{
      CodecId::kRaw, "raw", "hand-packed binary; the floor (one copy on encode, none on decode)",
      &NewRawCodec, {.rejects_every_truncation = true, .rejects_all_garbage = true}, {}};
  return entry;
}

}  // namespace wirebench
