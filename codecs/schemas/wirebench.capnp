# The Cap'n Proto schema of the `capnp` codec (docs/design.md, "Codecs"):
# one single-segment `Call` message per RPC payload, whose `body` union holds
# the request or response of one method. capnp compiles it to C++ at build
# time (codecs/capnp/CMakeLists.txt); nothing generated is committed.
#
# Payload: a u32 little-endian word count N, then exactly N 8-byte words (the
# message's only segment). The 4-byte count sits right after the 12-byte
# frame header, so the segment starts 16 bytes into the frame: wherever a
# frame starts on an 8-byte boundary the segment is word-aligned and is read
# in place, and every capnp frame is a multiple of 8 bytes long, so frames
# that follow one another in a receive buffer keep that alignment.
#
# Byte strings (rows, families, qualifiers, values, error text) are Data: any
# byte, no terminator. A null pointer reads as empty.

@0xc6b02bb82b7d8d30;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("wirebench::capn");

# One cell. `type` is HBase's KeyValue.Type code (4 Put, 8 Delete,
# 12 DeleteColumn, 14 DeleteFamily). In a Mutation the row is absent (every
# cell's row is the mutation's). In a Result, a null `row` means the Result's
# `row`, and in both a null `family` means the previous cell's family: Cap'n
# Proto cannot point two fields at one blob, so repeats are left out instead.
struct Cell {
  row @0 :Data;
  family @1 :Data;
  qualifier @2 :Data;
  value @3 :Data;
  timestamp @4 :UInt64;
  type @5 :UInt8 = 4;
}

# `type` is HBase's MutationProto.MutationType (0 Append, 1 Increment,
# 2 Put, 3 Delete).
struct Mutation {
  row @0 :Data;
  cells @1 :List(Cell);
  timestamp @2 :UInt64;
  type @3 :UInt8 = 2;
}

struct Column {
  family @0 :Data;
  qualifier @1 :Data;
}

struct MutateRequest {
  mutation @0 :Mutation;
}

struct GetRequest {
  row @0 :Data;
  columns @1 :List(Column);
}

struct ScanRequest {
  startRow @0 :Data;
  stopRow @1 :Data;
  numberOfRows @2 :UInt32;
  columns @3 :List(Column);
}

struct Action {
  index @0 :UInt32;
  union {
    mutation @1 :Mutation;
    get @2 :GetRequest;
  }
}

struct MultiRequest {
  actions @0 :List(Action);
}

struct Result {
  exists @0 :Bool;
  row @1 :Data;
  cells @2 :List(Cell);
}

struct MutateResponse {
  processed @0 :Bool = true;
}

struct GetResponse {
  result @0 :Result;
}

struct ScanResponse {
  results @0 :List(Result);
  moreResults @1 :Bool;
}

struct ActionResult {
  index @0 :UInt32;
  ok @1 :Bool = true;
  result @2 :Result;
  error @3 :Data;
}

struct MultiResponse {
  results @0 :List(ActionResult);
}

struct Call {
  body :union {
    mutateRequest @0 :MutateRequest;
    getRequest @1 :GetRequest;
    scanRequest @2 :ScanRequest;
    multiRequest @3 :MultiRequest;
    mutateResponse @4 :MutateResponse;
    getResponse @5 :GetResponse;
    scanResponse @6 :ScanResponse;
    multiResponse @7 :MultiResponse;
  }
}
