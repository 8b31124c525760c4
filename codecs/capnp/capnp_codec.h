// The `capnp` codec (id 6): one single-segment Cap'n Proto `Call` message per
// payload (schema: codecs/schemas/wirebench.capnp), preceded by its length in
// words.
//
// Encoding writes the message straight into the output buffer after a word
// count (codecs/capnp/capnp_wire.h's Writer, sized from an upper bound of the
// message), so every payload byte is copied once, as the `raw` codec copies
// it, and nothing is allocated.
//
// Decoding reads the segment in place at any alignment (views point into
// the payload) through capnp_wire.h's Reader: every pointer followed is
// bounds-checked against the segment and charged to a traversal budget of
// 8x the segment's words (plus a little), the fairness rule for untrusted
// input that FlatBuffers' Verifier is for `flatbuffers`.
// Thread-safety: one instance per connection or handler thread.
#pragma once

#include <memory>

#include "codecs/codec.h"

namespace wirebench {

std::unique_ptr<Codec> NewCapnpCodec();

}  // namespace wirebench
