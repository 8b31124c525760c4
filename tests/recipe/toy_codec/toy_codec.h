// The `toy` codec of the recipe test: raw's bytes under another name and id.
// Thread-safety: one instance per connection or handler thread, as raw's.
#pragma once

#include <memory>

#include "codecs/codec.h"

namespace wirebench {

std::unique_ptr<Codec> NewToyCodec();

}  // namespace wirebench
