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
  const uint64_t* data = nullptr;
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
    std::memcpy(&v, reinterpret_cast<const uint8_t*>(data) + offset, sizeof(T));
    return v;
  }
  bool Bit(size_t bit) const {
    if (bit >= size_t(data_words) * 64) return false;
    return (reinterpret_cast<const uint8_t*>(data)[bit / 8] >> (bit % 8)) & 1;
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
  Reader(const uint64_t* segment, size_t words, uint64_t traversal_budget)
      : seg_(segment), words_(words), budget_(traversal_budget) {}

  bool ok() const { return what_ == nullptr; }
  const char* what() const { return what_; }

  // The root struct (pointer in word 0).
  Struct Root() {
    if (words_ == 0) return Fail("empty segment");
    return StructAt(0);
  }

  bool IsNull(const Struct& s, unsigned i) const {
    return i >= s.pointers || seg_[s.pointer_index + i] == 0;
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
    const uint64_t w = seg_[p];
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
        return ByteView(reinterpret_cast<const uint8_t*>(seg_ + target), size_t(bytes));
      }
    }
    return DataSlow(p);
  }

  // Pointer i of `s` as a struct list; null reads as an empty list.
  StructList GetList(const Struct& s, unsigned i) {
    if (i >= s.pointers) return {};
    const size_t p = s.pointer_index + i;
    uint64_t w = seg_[p];
    if (w == 0) return {};
    ptrdiff_t target;
    if ((w & 3) == 1) {
      target = ptrdiff_t(p) + 1 + Offset(w);
    } else if (!Far(p, &w, &target) || (w & 3) != 1) {
      Fail("struct list pointer is not a list pointer");
      return {};
    }
    if (((w >> 32) & 7) != 7) {
      Fail("struct list is not INLINE_COMPOSITE (the only encoding of a struct list "
           "wirebench reads)");
      return {};
    }
    const uint64_t words = w >> 35;  // Elements' words, without the tag.
    if (!InBounds(target, words + 1)) return {};
    const uint64_t tag = seg_[target];
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

  static Struct Element(const StructList& l, uint32_t i, const uint64_t* seg) {
    const size_t at = l.first + size_t(i) * (l.data_words + l.pointers);
    return Struct{seg + at, l.data_words, l.pointers, at + l.data_words};
  }
  Struct Element(const StructList& l, uint32_t i) const { return Element(l, i, seg_); }

 private:
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
    const uint64_t landing = seg_[pad];
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
    *w = seg_[pad + 1];
    *target = ptrdiff_t((landing >> 3) & 0x1FFFFFFF);
    return true;
  }

  [[gnu::noinline]] ByteView DataSlow(size_t p) {
    uint64_t w = seg_[p];
    if (w == 0) return {};
    ptrdiff_t target;
    if ((w & 3) == 1) {
      target = ptrdiff_t(p) + 1 + Offset(w);
    } else if (!Far(p, &w, &target) || (w & 3) != 1) {
      Fail("Data pointer is not a list pointer");
      return {};
    }
    if (((w >> 32) & 7) != 2) {
      Fail("Data pointer is not a list of bytes");
      return {};
    }
    const uint64_t bytes = w >> 35;
    const uint64_t words = (bytes + 7) / 8;
    if (!InBounds(target, words) || !Charge(words)) return {};
    return ByteView(reinterpret_cast<const uint8_t*>(seg_ + target), size_t(bytes));
  }

  Struct StructAt(size_t p) {
    uint64_t w = seg_[p];
    if (w == 0) return {};
    ptrdiff_t target;
    if ((w & 3) == 0) {
      target = ptrdiff_t(p) + 1 + Offset(w);
    } else if (!Far(p, &w, &target) || (w & 3) != 0) {
      return Fail("struct pointer is not a struct pointer");
    }
    const uint32_t dw = uint32_t((w >> 32) & 0xFFFF);
    const uint32_t pc = uint32_t(w >> 48);
    if (!InBounds(target, uint64_t(dw) + pc) || !Charge(uint64_t(dw) + pc)) return {};
    return Struct{seg_ + target, dw, pc, size_t(target) + dw};
  }

  const uint64_t* seg_;
  uint64_t words_;
  uint64_t budget_;
  const char* what_ = nullptr;
};

}  // namespace wirebench::capnp_wire
