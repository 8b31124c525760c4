// The protobuf-based codecs, all laying out their payload as HBase lays out
// a call (docs/design.md, "Wire format"): a varint-delimited RequestHeader / ResponseHeader,
// the varint-delimited param message of HBase's Client.proto, and for
// cellblock the cell block.
//
//  pb (id 2)        Generated messages, a fresh message object per call,
//                   every cell inside MutationProto.column_value /
//                   Result.cell: values copied into std::string on encode and
//                   out of the wire into std::string on decode (HBase 0.96.0
//                   without a cell-block codec).
//  pb-arena (id 3)  The same bytes as pb; messages allocated on a
//                   google::protobuf::Arena owned by the codec and reused
//                   call after call (see README.md for what that avoids).
//  cellblock (id 4) HBase's default since 0.96: header and param carry
//                   associated_cell_count, cells follow in KeyValueCodec
//                   format; decoded cells are views into the payload, and a
//                   decode neither allocates nor copies in steady state.
//
// Thread-safety: one codec instance per connection or handler thread.
#pragma once

#include <cstddef>
#include <memory>

#include "codecs/codec.h"

namespace wirebench {

struct PbArenaOptions {
  // Size of the block each of the codec's two arenas (one for encoding, one
  // for decoding) starts with; allocated once, with the codec. Default 64 KiB.
  size_t initial_block_bytes = 64 << 10;
  // An arena that has grown past this (after an unusually large message) is
  // reset, and its messages recreated, at the start of the next call that
  // uses it. Default 4 MiB.
  size_t max_retained_bytes = 4 << 20;
  // false (default): the arena's messages are kept and Clear()ed between
  // calls, so their strings and repeated fields keep their capacity and a
  // steady-state call allocates nothing. true: protobuf's textbook arena use,
  // Reset() before every call and messages created anew; arena blocks are
  // reused, but every string longer than the small-string buffer is
  // heap-allocated again, every call. For measuring the difference.
  bool reset_every_call = false;
};

std::unique_ptr<Codec> NewPbCodec();
std::unique_ptr<Codec> NewPbArenaCodec();
std::unique_ptr<Codec> NewPbArenaCodec(const PbArenaOptions& options);
std::unique_ptr<Codec> NewCellBlockCodec();

}  // namespace wirebench
