// Rng: the per-logical-client random number generator of the YCSB workload
// (xoshiro256**, seeded through splitmix64).
//
// YCSB draws from java.util.Random / ThreadLocalRandom; wirebench draws from
// this generator instead, so the sequences differ from Java's, but every
// generator built on it implements YCSB's distributions. Each logical client
// owns one Rng derived from the run's seed and its client index, so a run is
// reproducible from its printed seed. Never seeded from std::random_device.
// Thread-safety: a value; one owner at a time.
#pragma once

#include <cstdint>

namespace wirebench::ycsb {

// One step of splitmix64: advances *state and returns the next output.
inline uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t sm = seed;
    for (uint64_t& w : s_) w = SplitMix64(&sm);
  }
  // The generator of logical client `client_index` in a run seeded with `seed`.
  static Rng ForClient(uint64_t seed, uint64_t client_index) {
    uint64_t sm = seed ^ (client_index * 0xD1B54A32D192ED03ull);
    return Rng(SplitMix64(&sm) ^ client_index);
  }

  // 64 uniformly distributed bits.
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 bits of precision (what Java's nextDouble gives).
  double NextDouble() { return double(Next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n) without modulo bias (Lemire's multiply-shift).
  // REQUIRES: n > 0
  uint64_t Below(uint64_t n) {
    unsigned __int128 m = (unsigned __int128)Next() * n;
    uint64_t low = uint64_t(m);
    if (low < n) {
      const uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = (unsigned __int128)Next() * n;
        low = uint64_t(m);
      }
    }
    return uint64_t(m >> 64);
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace wirebench::ycsb
