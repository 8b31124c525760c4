#include "ycsb/huge_page_buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace wirebench::ycsb {

HugePageBuffer::HugePageBuffer(size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  const size_t align = bytes >= kHugePage ? kHugePage : 64;
  const size_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (p == nullptr) throw std::bad_alloc();
  // A hint: where it is refused the buffer is still good memory.
  if (align == kHugePage) madvise(p, rounded, MADV_HUGEPAGE);
  data_.reset(static_cast<uint8_t*>(p));
}

void HugePageBuffer::Free::operator()(uint8_t* p) const { std::free(p); }

}  // namespace wirebench::ycsb
