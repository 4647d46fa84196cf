// A stable (process- and platform-independent) 128-bit content hash, used for UOp keys and caches.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace loupe {

struct Hash128 {
  uint64_t lo = 0, hi = 0;
  bool operator==(const Hash128&) const = default;
  std::string hex() const;
};

class StableHasher {
public:
  void bytes(const void* data, size_t n);
  void u64(uint64_t v) { mix(v); }
  void i64(int64_t v) { mix(static_cast<uint64_t>(v)); }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    mix(bits);
  }
  void str(std::string_view s) {
    mix(s.size());
    bytes(s.data(), s.size());
  }
  void hash(const Hash128& h) {
    mix(h.lo);
    mix(h.hi);
  }
  Hash128 finish() const;

private:
  inline void mix(uint64_t v);
  uint64_t a_ = 0x9E3779B97F4A7C15ull, b_ = 0xC2B2AE3D27D4EB4Full;
};

inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

// The high and low halves of a*b folded together (the multiply-fold of wyhash and MUM).
inline uint64_t fold_multiply(uint64_t a, uint64_t b) {
  unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(p) ^ static_cast<uint64_t>(p >> 64);
}

// inline: every UOp built hashes its op, dtype, arg and sources through it. Two independent 64-bit
// lanes, one multiply-fold each per word (a multiply reaches every bit above it, the fold brings the
// high half down); finish() avalanches both into each half of the key.
inline void StableHasher::mix(uint64_t v) {
  a_ = fold_multiply(a_ ^ v, 0x9FB21C651E98DF25ull);
  b_ = fold_multiply(b_ + v, 0xD6E8FEB86659FD93ull);
}

} // namespace loupe
