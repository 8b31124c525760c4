// The `flatbuffers` codec (id 5): one size-prefixed FlatBuffers `Call` buffer
// per payload (schema: codecs/schemas/wirebench.fbs). Encoding builds the
// buffer in a FlatBufferBuilder that the instance reuses (no allocation in
// steady state) and gathers the finished buffer into the output: byte strings
// of 512 bytes or more are only reserved in the builder and copied once,
// straight from the message into the output; shorter ones are copied twice,
// into the builder and with it into the output (cheaper for them). Decoding
// runs flatbuffers::Verifier over the whole payload and then reads every
// field in place: ByteViews point into the payload, nothing is copied, except
// for a payload that does not start on a 4-byte boundary, which is first
// copied to an aligned scratch buffer (and counted as copied).
// Thread-safety: one instance per connection or handler thread.
#pragma once

#include <memory>

#include "codecs/codec.h"

namespace wirebench {

std::unique_ptr<Codec> NewFlatBuffersCodec();

}  // namespace wirebench
