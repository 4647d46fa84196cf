#include "support/hash.h"

namespace loupe {

void StableHasher::bytes(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    mix(v);
    p += 8;
    n -= 8;
  }
  uint64_t tail = 0;
  for (size_t i = 0; i < n; i++) tail |= uint64_t(p[i]) << (8 * i);
  mix(tail ^ (uint64_t(n) << 56));
}

Hash128 StableHasher::finish() const {
  return {mix64(a_ ^ (b_ >> 32 | b_ << 32)), mix64(b_ + fold_multiply(a_, 0x94D049BB133111EBull))};
}

std::string Hash128::hex() const {
  static const char* digits = "0123456789abcdef";
  std::string s(32, '0');
  for (int i = 0; i < 16; i++) {
    s[15 - i] = digits[(hi >> (4 * i)) & 15];
    s[31 - i] = digits[(lo >> (4 * i)) & 15];
  }
  return s;
}

} // namespace loupe
