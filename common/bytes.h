// Byte vocabulary shared by every layer: ByteView (a non-owning view of bytes,
// LevelDB's Slice), ByteBuffer (a growable output buffer that keeps its
// capacity across Clear() so it can be reused per connection without
// allocating), and little/big-endian load/store helpers.
// Thread-safety: plain values; no internal synchronization.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace wirebench {

// A pointer and a length. Owns nothing: the bytes must outlive the view.
class ByteView {
 public:
  constexpr ByteView() = default;
  constexpr ByteView(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  ByteView(const char* data, size_t size)
      : data_(reinterpret_cast<const uint8_t*>(data)), size_(size) {}
  ByteView(std::string_view s)  // NOLINT: implicit by design, like Slice.
      : data_(reinterpret_cast<const uint8_t*>(s.data())), size_(s.size()) {}
  ByteView(const std::string& s) : ByteView(std::string_view(s)) {}  // NOLINT
  ByteView(const char* s) : ByteView(std::string_view(s)) {}         // NOLINT

  const uint8_t* data() const { return data_; }
  const char* chars() const { return reinterpret_cast<const char*>(data_); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const uint8_t* begin() const { return data_; }
  const uint8_t* end() const { return data_ + size_; }
  // REQUIRES: i < size()
  uint8_t operator[](size_t i) const {
    assert(i < size_);
    return data_[i];
  }
  std::string_view str() const { return std::string_view(chars(), size_); }
  std::string ToString() const { return std::string(chars(), size_); }
  // REQUIRES: n <= size()
  void RemovePrefix(size_t n) {
    assert(n <= size_);
    data_ += n;
    size_ -= n;
  }
  // REQUIRES: pos + n <= size()
  ByteView Sub(size_t pos, size_t n) const {
    assert(pos + n <= size_);
    return ByteView(data_ + pos, n);
  }
  // True when this view lies entirely inside [base, base + len).
  bool Within(const uint8_t* base, size_t len) const {
    return data_ >= base && data_ + size_ <= base + len;
  }

  friend bool operator==(ByteView a, ByteView b) {
    if (a.size_ != b.size_) return false;
    if (a.data_ == b.data_) return true;  // One string seen twice (a shared family, a row).
    const size_t n = a.size_;
    if (n >= 8 && n <= 32) {
      // Overlapping 8-byte words, no library call: rows, families and
      // qualifiers are mostly this long, and decoders compare them per cell.
      // [0,8) and [n-8,n) cover n <= 16; [8,16) and [n-16,n-8) the rest.
      const uint8_t* x = a.data_;
      const uint8_t* y = b.data_;
      uint64_t d = (Word(x) ^ Word(y)) | (Word(x + n - 8) ^ Word(y + n - 8));
      if (n > 16) d |= (Word(x + 8) ^ Word(y + 8)) | (Word(x + n - 16) ^ Word(y + n - 16));
      return d == 0;
    }
    return n == 0 || std::memcmp(a.data_, b.data_, n) == 0;
  }
  friend int Compare(ByteView a, ByteView b) {
    size_t n = a.size_ < b.size_ ? a.size_ : b.size_;
    int r = n ? std::memcmp(a.data_, b.data_, n) : 0;
    if (r != 0) return r;
    return a.size_ < b.size_ ? -1 : (a.size_ > b.size_ ? 1 : 0);
  }

 private:
  static uint64_t Word(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// A growable byte buffer. Clear() keeps the capacity, so a buffer reused per
// connection or per codec stops allocating once it has seen its largest message.
class ByteBuffer {
 public:
  ByteBuffer() = default;
  explicit ByteBuffer(size_t capacity) { Reserve(capacity); }
  ~ByteBuffer() { delete[] data_; }
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;
  ByteBuffer(ByteBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        cap_(std::exchange(o.cap_, 0)) {}
  ByteBuffer& operator=(ByteBuffer&& o) noexcept {
    if (this != &o) {
      delete[] data_;
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      cap_ = std::exchange(o.cap_, 0);
    }
    return *this;
  }

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  bool empty() const { return size_ == 0; }
  ByteView view() const { return ByteView(data_, size_); }
  void Clear() { size_ = 0; }
  void Swap(ByteBuffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
  }

  void Reserve(size_t n) {
    if (n <= cap_) return;
    size_t cap = cap_ ? cap_ : 256;
    while (cap < n) cap *= 2;
    // operator new (not realloc) so the allocation hook counts buffer growth.
    auto* p = new uint8_t[cap];
    if (size_) std::memcpy(p, data_, size_);
    delete[] data_;
    data_ = p;
    cap_ = cap;
  }
  // Appends n uninitialized bytes and returns a pointer to them.
  uint8_t* Extend(size_t n) {
    Reserve(size_ + n);
    uint8_t* p = data_ + size_;
    size_ += n;
    return p;
  }
  // REQUIRES: n <= size()
  void Resize(size_t n) {
    if (n > size_) {
      Extend(n - size_);
    } else {
      size_ = n;
    }
  }
  void Append(const void* p, size_t n) {
    if (n == 0) return;
    std::memcpy(Extend(n), p, n);
  }
  void Append(ByteView v) { Append(v.data(), v.size()); }
  void PushBack(uint8_t b) { *Extend(1) = b; }
  // Drops the first n bytes, moving the rest to the front.
  // REQUIRES: n <= size()
  void Consume(size_t n) {
    assert(n <= size_);
    if (n == size_) {
      size_ = 0;
      return;
    }
    std::memmove(data_, data_ + n, size_ - n);
    size_ -= n;
  }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;
};

// Little-endian and big-endian fixed-width loads and stores, safe on
// unaligned pointers. memcpy of a fixed size compiles to one mov; the
// big-endian forms add one bswap.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "wirebench assumes a little-endian host");
inline void StoreLE16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }
inline void StoreLE32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
inline void StoreLE64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
inline uint16_t LoadLE16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline uint32_t LoadLE32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t LoadLE64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline void StoreBE16(uint8_t* p, uint16_t v) { StoreLE16(p, __builtin_bswap16(v)); }
inline void StoreBE32(uint8_t* p, uint32_t v) { StoreLE32(p, __builtin_bswap32(v)); }
inline void StoreBE64(uint8_t* p, uint64_t v) { StoreLE64(p, __builtin_bswap64(v)); }
inline uint16_t LoadBE16(const uint8_t* p) { return __builtin_bswap16(LoadLE16(p)); }
inline uint32_t LoadBE32(const uint8_t* p) { return __builtin_bswap32(LoadLE32(p)); }
inline uint64_t LoadBE64(const uint8_t* p) { return __builtin_bswap64(LoadLE64(p)); }

// Stores v at p, little-endian or big-endian, and moves p past it, for
// encoders that fill space reserved up front field by field: the width comes
// from v's type, so a field cannot be stored at one width and stepped over at
// another.
template <typename T>
inline void PutLE(uint8_t*& p, T v) {
  static_assert(std::is_unsigned_v<T> && (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8));
  std::memcpy(p, &v, sizeof(T));
  p += sizeof(T);
}
template <typename T>
inline void PutBE(uint8_t*& p, T v) {
  if constexpr (sizeof(T) == 2) {
    PutLE(p, __builtin_bswap16(v));
  } else if constexpr (sizeof(T) == 4) {
    PutLE(p, __builtin_bswap32(v));
  } else {
    PutLE(p, __builtin_bswap64(v));
  }
}

// A fixed-size copy of W bytes between unaligned addresses: one load and one store.
template <size_t W>
inline void CopyWord(uint8_t* dst, const uint8_t* src) {
  uint8_t w[W];
  std::memcpy(w, src, W);
  std::memcpy(dst, w, W);
}

// memcpy of n bytes; up to 32 without a library call (rows, families,
// qualifiers and the like are usually that short, and a call per field costs
// more than the copy). Two overlapping fixed-size moves cover 4..32 bytes.
inline void CopySmall(uint8_t* dst, const uint8_t* src, size_t n) {
  if (n > 32) {
    std::memcpy(dst, src, n);
  } else if (n >= 16) {
    CopyWord<16>(dst, src);
    CopyWord<16>(dst + n - 16, src + n - 16);
  } else if (n >= 8) {
    CopyWord<8>(dst, src);
    CopyWord<8>(dst + n - 8, src + n - 8);
  } else if (n >= 4) {
    CopyWord<4>(dst, src);
    CopyWord<4>(dst + n - 4, src + n - 4);
  } else {
    for (size_t i = 0; i < n; ++i) dst[i] = src[i];
  }
}

}  // namespace wirebench
