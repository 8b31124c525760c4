// A validating reader of Cap'n Proto's encoding (one segment), for the
// `capnp` codec's decoders: each pointer the decoder follows is checked once,
// inline, against the segment's bounds and charged to a traversal budget, as
// libcapnp's reader does for every accessor call (out of line, ~90
// instructions per byte-string field in 0.9.2). Byte strings come back as
// views into the segment (zero copy).
//
// What it accepts is the encoding's rules for the shapes the schema uses:
// struct pointers, byte lists (Data) and INLINE_COMPOSITE struct lists, each
// possibly reached through a single or double far pointer whose landing pad
// is in segment 0 (a one-segment message may use them); a struct smaller than
// the schema's reads its missing fields as defaults, as Cap'n Proto's does.
// It rejects what libcapnp would reject for these fields (out-of-bounds
// targets, a list of the wrong element size, capabilities, far pointers to
// another segment) and one thing libcapnp accepts for schema evolution: a
// List(struct) encoded with a non-composite element size (no Cap'n Proto
// builder writes one for a struct list).
//
// Errors are sticky: the first one is kept (what()), and every later read
// returns an empty value, so a decoder reads on and checks ok() once.
// Thread-safety: one reader per decode.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/bytes.h"

namespace wirebench::capnp_wire {

static_assert(std::endian::native == std::endian::little,
              "capnp_wire reads Cap'n Proto's little-endian words in place");

// A struct: its data section (data_words words) followed by its pointers.
struct Struct {
  const uint8_t* data = nullptr;
  uint32_t data_words = 0;
  uint32_t pointers = 0;
  // Index (in words, from the segment's start) of the first pointer.
  size_t pointer_index = 0;

  // A data field of `T` at byte `offset`; 0 (the encoding's default: fields
  // are stored XOR their schema default) beyond a smaller struct's section.
  template <typename T>
  T Field(size_t offset) const {
    if (offset + sizeof(T) > size_t(data_words) * 8) return T(0);
    T v;
    std::memcpy(&v, data + offset, sizeof(T));
    return v;
  }
  bool Bit(size_t bit) const {
    if (bit >= size_t(data_words) * 64) return false;
    return (data[bit / 8] >> (bit % 8)) & 1;
  }
};

// A struct list (INLINE_COMPOSITE): `size` elements of `stride` words.
struct StructList {
  size_t first = 0;  // Word index of element 0.
  uint32_t size = 0;
  uint32_t data_words = 0;
  uint32_t pointers = 0;
};

class Reader {
 public:
  // `segment` may have any alignment: words are loaded with memcpy.
  Reader(const uint8_t* segment, size_t words, uint64_t traversal_budget)
      : seg_(segment), words_(words), budget_(traversal_budget) {}

  bool ok() const { return what_ == nullptr; }
  const char* what() const { return what_; }

  // The root struct (pointer in word 0).
  Struct Root() {
    if (words_ == 0) return Fail("empty segment");
    return StructAt(0);
  }

  bool IsNull(const Struct& s, unsigned i) const {
    return i >= s.pointers || Word(s.pointer_index + i) == 0;
  }

  // Pointer i of `s` as a struct; a null pointer is an empty struct (all
  // fields default).
  Struct GetStruct(const Struct& s, unsigned i) {
    if (i >= s.pointers) return {};
    return StructAt(s.pointer_index + i);
  }

  // Pointer i of `s` as Data: a view into the segment, {nullptr, 0} for a
  // null pointer (an empty but present blob has a non-null data()).
  ByteView GetData(const Struct& s, unsigned i) {
    if (i >= s.pointers) return {};
    const size_t p = s.pointer_index + i;
    const uint64_t w = Word(p);
    if (w == 0) return {};
    // The common case inline: a near pointer to a byte list inside the
    // segment, within the budget. Everything else (null, far, malformed)
    // goes to DataSlow.
    if ((w & 0x700000003ull) == 0x200000001ull) {
      const ptrdiff_t target = ptrdiff_t(p) + 1 + Offset(w);
      const uint64_t bytes = w >> 35;
      const uint64_t words = (bytes + 7) / 8;
      if (target >= 0 && uint64_t(target) <= words_ && words <= words_ - uint64_t(target) &&
          words <= budget_) {
        budget_ -= words;
        return ByteView(seg_ + target * 8, size_t(bytes));
      }
    }
    return DataSlow(p);
  }

  // Pointer i of `s` as a struct list; null reads as an empty list.
  StructList GetList(const Struct& s, unsigned i) {
    if (i >= s.pointers) return {};
    const size_t p = s.pointer_index + i;
    uint64_t w = Word(p);
    if (w == 0) return {};
    ptrdiff_t target;
    if (!Resolve(p, 1, "struct list pointer is not a list pointer", &w, &target)) return {};
    if (((w >> 32) & 7) != 7) {
      Fail("struct list is not INLINE_COMPOSITE (the only encoding of a struct list "
           "wirebench reads)");
      return {};
    }
    const uint64_t words = w >> 35;  // Elements' words, without the tag.
    if (!InBounds(target, words + 1)) return {};
    const uint64_t tag = Word(size_t(target));
    if ((tag & 3) != 0 || Offset(tag) < 0) {
      Fail("struct list tag is not a struct header");
      return {};
    }
    const uint64_t n = uint64_t(Offset(tag));
    const uint32_t dw = uint32_t((tag >> 32) & 0xFFFF);
    const uint32_t pc = uint32_t(tag >> 48);
    if (n * (dw + pc) > words) {
      Fail("struct list holds more elements than its words");
      return {};
    }
    // Zero-sized elements cost a word each, so a huge count of them cannot
    // make the decoder do unbounded work for no bytes (as libcapnp charges).
    if (!Charge(words + 1 > n ? words + 1 : n)) return {};
    return StructList{size_t(target) + 1, uint32_t(n), dw, pc};
  }

  static Struct Element(const StructList& l, uint32_t i, const uint8_t* seg) {
    const size_t at = l.first + size_t(i) * (l.data_words + l.pointers);
    return Struct{seg + at * 8, l.data_words, l.pointers, at + l.data_words};
  }
  Struct Element(const StructList& l, uint32_t i) const { return Element(l, i, seg_); }

 private:
  uint64_t Word(size_t i) const {
    uint64_t w;
    std::memcpy(&w, seg_ + i * 8, 8);
    return w;
  }

  // The signed 30-bit word offset of a struct or list pointer.
  static ptrdiff_t Offset(uint64_t w) { return ptrdiff_t(int32_t(uint32_t(w)) >> 2); }

  Struct Fail(const char* what) {
    if (what_ == nullptr) what_ = what;
    words_ = 0;  // Every later bounds check fails; reads return empty.
    budget_ = 0;
    return {};
  }

  bool InBounds(ptrdiff_t target, uint64_t words) {
    if (target < 0 || uint64_t(target) > words_ || words > words_ - uint64_t(target)) {
      Fail("pointer out of the segment's bounds");
      return false;
    }
    return true;
  }

  bool Charge(uint64_t words) {
    if (words > budget_) {
      Fail("traversal limit exceeded (pointers that overlap or a list of many empty "
           "elements)");
      return false;
    }
    budget_ -= words;
    return true;
  }

  // Resolves the far pointer at word p (value *w): on return *w is the
  // pointer that describes the object and *target its first word.
  bool Far(size_t p, uint64_t* w, ptrdiff_t* target) {
    (void)p;
    const uint64_t far = *w;
    if ((far & 3) != 2) {
      Fail((far & 3) == 3 ? "capability pointer where bytes or structs belong"
                          : "unexpected pointer kind");
      return false;
    }
    if ((far >> 32) != 0) {
      Fail("far pointer to a second segment (the payload has one)");
      return false;
    }
    const ptrdiff_t pad = ptrdiff_t((far >> 3) & 0x1FFFFFFF);
    const bool twice = (far >> 2) & 1;
    if (!InBounds(pad, twice ? 2 : 1)) return false;
    const uint64_t landing = Word(size_t(pad));
    if (!twice) {
      if ((landing & 3) == 2) {
        Fail("far pointer lands on another far pointer");
        return false;
      }
      *w = landing;
      *target = pad + 1 + Offset(landing);
      return true;
    }
    // Double far: a far pointer to the object's start, then its tag.
    if ((landing & 7) != 2 || (landing >> 32) != 0) {
      Fail("double-far landing pad is not a single far pointer into this segment");
      return false;
    }
    *w = Word(size_t(pad) + 1);
    *target = ptrdiff_t((landing >> 3) & 0x1FFFFFFF);
    return true;
  }

  // Resolves the non-null pointer at word p (value *w), near or far, to the
  // pointer that describes the object (*w) and the object's first word
  // (*target). The object's pointer must be of `kind` (0 struct, 1 list);
  // otherwise fails with `what`.
  bool Resolve(size_t p, uint64_t kind, const char* what, uint64_t* w, ptrdiff_t* target) {
    if ((*w & 3) == kind) {
      *target = ptrdiff_t(p) + 1 + Offset(*w);
      return true;
    }
    if (Far(p, w, target) && (*w & 3) == kind) return true;
    Fail(what);
    return false;
  }

  [[gnu::noinline]] ByteView DataSlow(size_t p) {
    uint64_t w = Word(p);
    if (w == 0) return {};
    ptrdiff_t target;
    if (!Resolve(p, 1, "Data pointer is not a list pointer", &w, &target)) return {};
    if (((w >> 32) & 7) != 2) {
      Fail("Data pointer is not a list of bytes");
      return {};
    }
    const uint64_t bytes = w >> 35;
    const uint64_t words = (bytes + 7) / 8;
    if (!InBounds(target, words) || !Charge(words)) return {};
    return ByteView(seg_ + target * 8, size_t(bytes));
  }

  Struct StructAt(size_t p) {
    uint64_t w = Word(p);
    if (w == 0) return {};
    ptrdiff_t target;
    if (!Resolve(p, 0, "struct pointer is not a struct pointer", &w, &target)) return {};
    const uint32_t dw = uint32_t((w >> 32) & 0xFFFF);
    const uint32_t pc = uint32_t(w >> 48);
    if (!InBounds(target, uint64_t(dw) + pc) || !Charge(uint64_t(dw) + pc)) return {};
    return Struct{seg_ + target * 8, dw, pc, size_t(target) + dw};
  }

  const uint8_t* seg_;
  uint64_t words_;
  uint64_t budget_;
  const char* what_ = nullptr;
};

// Writes Cap'n Proto's encoding into one segment of at most `words` words
// at `seg` (any alignment: every store is a memcpy), allocating forward, so
// every pointer's offset is non-negative. The caller sizes the segment from
// an upper bound of the message; a message that would not fit fails the
// writer (what()) and nothing is written past the segment. Every word the
// message uses is written: struct and list words are zeroed when allocated,
// a byte string's padding is zeroed before it is copied.
class Writer {
 public:
  Writer(uint8_t* seg, size_t words) : seg_(seg), cap_(words) {}

  bool ok() const { return what_ == nullptr; }
  const char* what() const { return what_; }
  size_t used() const { return used_; }
  // Byte-string bytes copied into the segment.
  uint64_t copied() const { return copied_; }

  // The root pointer (word 0) and the struct it points at; returns the
  // struct's first word.
  template <uint32_t kData, uint32_t kPointers>
  size_t Root() {
    const size_t p = Alloc(1);
    return InitStruct<kData, kPointers>(p);
  }

  // Allocates a struct, zeroed, and points the pointer at word p to it.
  template <uint32_t kData, uint32_t kPointers>
  size_t InitStruct(size_t p) {
    constexpr size_t kWords = size_t(kData) + kPointers;
    const size_t at = Alloc(kWords);
    if (at + kWords <= cap_) std::memset(seg_ + at * 8, 0, kWords * 8);
    Put(p, (uint64_t(uint32_t(at - p - 1)) << 2) | (uint64_t(kData) << 32) |
               (uint64_t(kPointers) << 48));
    return at;
  }

  // Allocates an INLINE_COMPOSITE list of n zeroed structs, points the
  // pointer at word p to it and returns element 0's first word. With
  // kZeroed false the structs' words are left as they were: the caller
  // writes every one of them (a list of cells, whose words are all written
  // anyway, skips zeroing them first).
  template <bool kZeroed = true>
  size_t InitList(size_t p, size_t n, uint32_t data, uint32_t pointers) {
    const size_t words = n * (size_t(data) + pointers);
    const size_t tag = Alloc(1 + words);
    if (tag + 1 + words > cap_) return cap_;
    if constexpr (kZeroed) std::memset(seg_ + (tag + 1) * 8, 0, words * 8);
    Put(p, 1 | (uint64_t(uint32_t(tag - p - 1)) << 2) | (uint64_t(7) << 32) |
               (uint64_t(words) << 35));
    Put(tag, (uint64_t(n) << 2) | (uint64_t(data) << 32) | (uint64_t(pointers) << 48));
    return tag + 1;
  }

  // Copies v as Data and points the pointer at word p to it (an empty v
  // still makes a non-null pointer).
  void SetData(size_t p, ByteView v) {
    if (p >= cap_) return;  // Its struct did not fit (the writer failed).
    SetDataAt(p, v);
  }

  // As SetData, for a pointer word p known to lie inside an allocation
  // that succeeded (p < used()).
  void SetDataAt(size_t p, ByteView v) {
    const size_t n = v.size();
    if (n >= (size_t(1) << 29)) {
      Fail("byte string of 2^29 bytes or more (Cap'n Proto's limit for one list)");
      return;
    }
    const size_t words = (n + 7) / 8;
    const size_t at = Alloc(words);
    if (at + words > cap_) return;
    if (n != 0) {  // (An empty view's data() may be null: no memcpy.)
      if (n % 8 != 0) std::memset(seg_ + (at + words - 1) * 8, 0, 8);  // The padding.
      std::memcpy(seg_ + at * 8, v.data(), n);
      copied_ += n;
    }
    PutAt(p, 1 | (uint64_t(uint32_t(at - p - 1)) << 2) | (uint64_t(2) << 32) |
                 (uint64_t(n) << 35));
  }

  // Stores a whole word (a struct's data word, or a pointer).
  void Put(size_t word, uint64_t v) {
    if (word < cap_) PutAt(word, v);
  }
  // As Put, for a word known to lie inside an allocation that succeeded.
  void PutAt(size_t word, uint64_t v) { std::memcpy(seg_ + word * 8, &v, 8); }

 private:
  size_t Alloc(size_t words) {
    if (words > cap_ - used_) {
      if (what_ == nullptr) what_ = "message larger than the words reserved for it";
      return cap_;  // Every store at or beyond cap_ is dropped.
    }
    const size_t at = used_;
    used_ += words;
    return at;
  }
  void Fail(const char* what) {
    if (what_ == nullptr) what_ = what;
  }

  uint8_t* seg_;
  size_t cap_;
  size_t used_ = 0;
  uint64_t copied_ = 0;
  const char* what_ = nullptr;
};

}  // namespace wirebench::capnp_wire
