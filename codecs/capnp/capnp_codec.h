// The `capnp` codec (id 6): one single-segment Cap'n Proto `Call` message per
// payload (schema: codecs/schemas/wirebench.capnp), preceded by its length in
// words.
//
// Encoding builds the message straight into the output buffer: the segment
// Cap'n Proto fills is the stretch of `out` after the frame header, sized from
// an upper bound of the message, so every payload byte is copied once (as the
// `raw` codec copies it) and nothing is allocated. Where `out`'s end is not
// 8-byte aligned (a frame after an odd-sized one), the message is built in a
// reused aligned scratch segment and copied into `out`: a second copy,
// counted.
//
// Decoding reads the segment in place (views point into the payload) with
// Cap'n Proto's ReaderOptions limits on: traversal of at most 8x the
// segment's words (plus a little) and nesting of 16, the fairness rule for
// untrusted input that FlatBuffers' Verifier is for `flatbuffers`. A payload
// whose segment is not 8-byte aligned is first copied to an aligned scratch
// buffer (counted as copied).
// Thread-safety: one instance per connection or handler thread.
#pragma once

#include <memory>

#include "codecs/codec.h"

namespace wirebench {

std::unique_ptr<Codec> NewCapnpCodec();

}  // namespace wirebench
