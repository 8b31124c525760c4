// The `raw` codec (id 1): hand-packed little-endian binary, u32 lengths
// followed by bytes. It is the floor of the comparison: encoding copies each
// payload byte once into the send buffer; decoding copies nothing (every
// ByteView points into the payload).
// Thread-safety: one instance per connection or handler thread.
#pragma once

#include <memory>

#include "codecs/codec.h"

namespace wirebench {

std::unique_ptr<Codec> NewRawCodec();

}  // namespace wirebench
