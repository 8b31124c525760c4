// Arithmetic for counter structs, written once: a struct lists its counter
// fields once, as a FieldList of member pointers, and gets field-wise +=, -
// and a race-free sum of another thread's copy from it. Array fields (a
// counter per method, say) are added element by element.
//
// Shared counters (one writer thread, readers elsewhere) are plain integers
// accessed through std::atomic_ref: the writer uses BumpShared (a relaxed
// load + store, no read-modify-write), readers AddShared (relaxed loads).
//
// Thread-safety: pure functions; BumpShared/AddShared are the only accesses
// that may race, and they are atomic.
#pragma once

#include <atomic>
#include <cstddef>
#include <type_traits>

namespace wirebench {

template <typename U>
U LoadShared(const U& v) {
  return std::atomic_ref<U>(const_cast<U&>(v)).load(std::memory_order_relaxed);
}

// Adds `n` to a counter that only the calling thread writes.
template <typename U>
void BumpShared(U& v, std::type_identity_t<U> n) {
  std::atomic_ref<U> r(v);
  r.store(r.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

namespace counters_internal {

template <typename U>
void Add(U& a, const U& b) {
  a += b;
}
template <typename U, size_t N>
void Add(U (&a)[N], const U (&b)[N]) {
  for (size_t i = 0; i < N; ++i) a[i] += b[i];
}
template <typename U>
void Subtract(U& a, const U& b) {
  a -= b;
}
template <typename U, size_t N>
void Subtract(U (&a)[N], const U (&b)[N]) {
  for (size_t i = 0; i < N; ++i) a[i] -= b[i];
}
template <typename U>
void AddShared(U& a, const U& b) {
  a += LoadShared(b);
}
template <typename U, size_t N>
void AddShared(U (&a)[N], const U (&b)[N]) {
  for (size_t i = 0; i < N; ++i) a[i] += LoadShared(b[i]);
}

}  // namespace counters_internal

// The counter fields of a struct T, e.g.
//   using Fields = FieldList<&Stats::reads, &Stats::writes>;
template <auto... kMembers>
struct FieldList {
  template <typename T>
  static void Add(T& a, const T& b) {
    (counters_internal::Add(a.*kMembers, b.*kMembers), ...);
  }
  template <typename T>
  static void Subtract(T& a, const T& b) {
    (counters_internal::Subtract(a.*kMembers, b.*kMembers), ...);
  }
  // a += b, where b's fields are written concurrently with BumpShared.
  template <typename T>
  static void AddShared(T& a, const T& b) {
    (counters_internal::AddShared(a.*kMembers, b.*kMembers), ...);
  }
};

// Field-wise operators for a struct T with a `Fields` FieldList; use as
//   T& operator+=(const T& o) { return AddFields(*this, o); }
//   T operator-(const T& o) const { return SubtractFields(*this, o); }
template <typename T>
T& AddFields(T& a, const T& b) {
  T::Fields::Add(a, b);
  return a;
}
template <typename T>
T SubtractFields(T a, const T& b) {
  T::Fields::Subtract(a, b);
  return a;
}

}  // namespace wirebench
