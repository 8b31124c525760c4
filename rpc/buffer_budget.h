// The bytes a server's connections hold for calls still arriving, bounded
// across all of them (--max-buffered-bytes): each connection reads into a
// base buffer of kReadChunk that is not counted, and every byte of capacity
// beyond it is taken from the budget first. A connection that cannot get
// room is refused, so connections holding unfinished large calls cannot take
// the server's memory (100 of them each announcing 16 MiB held 1.66 GB
// before this budget).
//
// Room is made as a call's bytes arrive, not when its length announces them
// (GrowFor): the buffer at most doubles what it holds, so a connection is
// charged at most about twice what it has received. Charging the announced
// size let twelve connections that announced large calls and sent a byte
// every few seconds hold the whole 256 MiB while the server's RSS stayed at
// 125 MB, and every larger call of a good client was refused.
// Thread-safety: Move and the readers may be called from any thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "common/bytes.h"
#include "rpc/asio_io.h"

namespace wirebench::rpc {

class BufferBudget {
 public:
  // 0 = no limit (still counted). Set before connections use it.
  explicit BufferBudget(uint64_t limit = 0) : limit_(limit) {}
  void set_limit(uint64_t limit) { limit_ = limit; }

  // Changes what one connection holds from *held to `want` bytes. Growing
  // past the limit changes nothing and returns false.
  bool Move(uint64_t* held, uint64_t want) {
    if (want <= *held) {
      used_.fetch_sub(*held - want, std::memory_order_relaxed);
      *held = want;
      return true;
    }
    const uint64_t more = want - *held;
    uint64_t cur = used_.load(std::memory_order_relaxed);
    do {
      if (limit_ != 0 && cur + more > limit_) {
        refused_.fetch_add(1, std::memory_order_relaxed);
        return false;
      }
    } while (!used_.compare_exchange_weak(cur, cur + more, std::memory_order_relaxed));
    *held = want;
    return true;
  }
  // Over half the limit: connections give back large buffers they no longer use.
  bool Crowded() const { return limit_ != 0 && used() * 2 > limit_; }
  uint64_t used() const { return used_.load(std::memory_order_relaxed); }
  uint64_t refused() const { return refused_.load(std::memory_order_relaxed); }
  uint64_t limit() const { return limit_; }

 private:
  uint64_t limit_;
  std::atomic<uint64_t> used_{0};
  std::atomic<uint64_t> refused_{0};
};

// A connection's input buffer with its share of a BufferBudget.
// Thread-safety: one connection's, used by its thread.
class BudgetedInput {
 public:
  explicit BudgetedInput(BufferBudget* budget) : budget_(budget) { buf_.Reserve(kReadChunk); }
  ~BudgetedInput() { Release(); }
  BudgetedInput(const BudgetedInput&) = delete;
  BudgetedInput& operator=(const BudgetedInput&) = delete;

  ByteBuffer& buf() { return buf_; }
  const ByteBuffer& buf() const { return buf_; }
  // Makes room for `n` bytes in all; false (nothing changed) when the budget
  // has not that much left.
  bool Reserve(size_t n) {
    if (n <= buf_.capacity()) return true;
    size_t cap = buf_.capacity() ? buf_.capacity() : 256;
    while (cap < n) cap *= 2;  // What ByteBuffer::Reserve will allocate.
    if (!budget_->Move(&held_, cap > kReadChunk ? cap - kReadChunk : 0)) return false;
    buf_.Reserve(n);
    return true;
  }
  // Makes room for the next read of a unit of `unit` bytes in all (0: not
  // known), of which the buffer holds size(): doubles the capacity (at least
  // one kReadChunk more), but no further than the unit needs. False (nothing
  // changed) when the budget has not that much left.
  bool GrowFor(size_t unit) {
    const size_t have = buf_.size();
    size_t want = have + kReadChunk;
    if (unit > have) want = std::min(std::max(want, 2 * buf_.capacity()), unit);
    return Reserve(want);
  }
  // Gives a large, empty buffer back when the budget runs short.
  void Trim() {
    if (!buf_.empty() || held_ == 0 || !budget_->Crowded()) return;
    ByteBuffer fresh(kReadChunk);
    buf_.Swap(fresh);
    budget_->Move(&held_, 0);
  }
  // Gives the budget back (the connection is closing).
  void Release() { budget_->Move(&held_, 0); }

 private:
  BufferBudget* budget_;
  ByteBuffer buf_;
  uint64_t held_ = 0;
};

}  // namespace wirebench::rpc
