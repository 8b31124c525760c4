// The call-slot table of a client connection: which PendingCall each call in
// flight belongs to, found again from the reply's call id. A call id is a
// 16-bit generation over the 16-bit slot index (CallIdGenerator), so a late
// reply to a slot's previous call is told apart from its current one.
// Every client channel of the network core's transports keeps one; `Extra`
// is what a transport remembers per call besides its PendingCall (HBase:
// the method, whose reply it must decode).
//
// Zero heap allocations in steady state: the free list is sized with the
// table, so freeing a slot on the reply path never grows it.
// Thread-safety: none; a table belongs to its connection's thread.
#pragma once

#include <cstdint>
#include <vector>

#include "rpc/call_channel.h"

namespace wirebench::rpc {

struct NoCallExtra {};

template <typename Extra = NoCallExtra>
class CallSlots {
 public:
  struct Slot {
    PendingCall* pending = nullptr;
    uint32_t call_id = 0;
    [[no_unique_address]] Extra extra{};
  };

  // Takes a free slot for `pending` and gives it a fresh call id; false
  // when kMaxCallsInFlight calls already hold slots. The call is not yet in
  // flight: Sent() or Abandon() follows.
  bool Take(PendingCall* pending, const Extra& extra, uint32_t* slot, uint32_t* call_id,
            uint32_t id_mask = 0xFFFFFFFFu) {
    if (!free_.empty()) {
      *slot = free_.back();
      free_.pop_back();
    } else {
      if (slots_.size() >= kMaxCallsInFlight) return false;
      *slot = uint32_t(slots_.size());
      slots_.emplace_back();
      free_.reserve(slots_.capacity());
    }
    *call_id = ids_.Next(*slot) & id_mask;
    slots_[*slot] = Slot{pending, *call_id, extra};
    return true;
  }
  const Slot& operator[](uint32_t slot) const { return slots_[slot]; }
  // The call in `slot` went out.
  void Sent() { ++inflight_; }
  // The call in `slot` was never sent (encoding failed or it was refused).
  void Abandon(uint32_t slot) { Release(slot); }
  // The call `call_id` is in flight: its slot, or false for a stray id (a
  // reply to a call that was cancelled, failed or never made).
  bool Find(uint32_t call_id, uint32_t* slot) const {
    *slot = call_id & 0xFFFF;
    return *slot < slots_.size() && slots_[*slot].call_id == call_id && slots_[*slot].pending;
  }
  // The call `call_id` is over (answered or cancelled): returns its slot's
  // contents and frees it; a stray id returns an empty Slot.
  Slot Finish(uint32_t call_id) {
    uint32_t slot;
    if (!Find(call_id, &slot)) return Slot{};
    const Slot s = slots_[slot];
    Release(slot);
    --inflight_;
    return s;
  }
  // Empties the table and returns the calls that held slots (to fail them
  // after: a failure callback may start new calls).
  std::vector<PendingCall*> TakeAll() {
    std::vector<PendingCall*> out;
    for (Slot& s : slots_) {
      if (s.pending) out.push_back(s.pending);
      s = Slot{};
    }
    free_.clear();
    for (uint32_t i = 0; i < slots_.size(); ++i) free_.push_back(uint32_t(slots_.size() - 1 - i));
    inflight_ = 0;
    return out;
  }
  size_t inflight() const { return inflight_; }

 private:
  void Release(uint32_t slot) {
    slots_[slot] = Slot{};
    free_.push_back(slot);
  }

  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
  CallIdGenerator ids_;
  size_t inflight_ = 0;
};

}  // namespace wirebench::rpc
