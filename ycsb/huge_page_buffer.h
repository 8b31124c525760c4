// Memory for a table the load generator reads at spread-out offsets on every
// operation (the value pool, the key table). Tables of 2 MiB or more are
// 2 MiB-aligned and advised to transparent huge pages (MADV_HUGEPAGE, which
// Debian's default "madvise" mode honours): with 4 KiB pages nearly every
// read of such a table also misses the TLB, and under a VM's nested paging
// that walk costs as much as the cache miss. Where the kernel gives no huge
// page the buffer is ordinary memory. Contents start uninitialised.
// Thread-safety: none needed; the owner fills it once, then only reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace wirebench::ycsb {

class HugePageBuffer {
 public:
  static constexpr size_t kHugePage = 2 << 20;

  HugePageBuffer() = default;
  explicit HugePageBuffer(size_t bytes);

  uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const;
  };
  size_t size_ = 0;
  std::unique_ptr<uint8_t[], Free> data_;
};

}  // namespace wirebench::ycsb
