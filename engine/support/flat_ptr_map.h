// Open-addressing hash map and set keyed by pointers (linear probing, power-of-two capacity, never
// shrinks, no erase). The compiler's passes key their memo tables by node address; std::unordered_map
// allocates a block per entry, which made up a large share of a kernel's compile time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace loupe {

// The slot hash of a pointer (murmur3's finalizer: nodes sit at multiples of their alignment, so the
// low bits alone would crowd a power-of-two table).
inline size_t pointer_hash(const void* p) {
  uint64_t x = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return static_cast<size_t>(x);
}

template <typename K, typename V> class FlatPtrMap {
  static_assert(std::is_pointer_v<K>, "FlatPtrMap keys are pointers");

public:
  FlatPtrMap() = default;
  explicit FlatPtrMap(size_t expected) { reserve(expected); }

  V* find(K key) {
    if (size_ == 0) return nullptr;
    for (size_t i = slot_of(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return &values_[i];
      if (keys_[i] == nullptr) return nullptr;
    }
  }
  const V* find(K key) const { return const_cast<FlatPtrMap*>(this)->find(key); }
  bool contains(K key) const { return find(key) != nullptr; }

  // The value of `key`, default-constructed when new; second is true when it was inserted.
  std::pair<V*, bool> try_emplace(K key) {
    if ((size_ + 1) * 4 > keys_.size() * 3) grow();
    for (size_t i = slot_of(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return {&values_[i], false};
      if (keys_[i] == nullptr) {
        keys_[i] = key;
        size_++;
        return {&values_[i], true};
      }
    }
  }
  V& operator[](K key) { return *try_emplace(key).first; }

  void reserve(size_t n) {
    size_t cap = 16;
    while (cap * 3 < n * 4) cap *= 2;
    if (cap > keys_.size()) rehash(cap);
  }
  size_t size() const { return size_; }

  template <typename F> void for_each(F&& f) const {
    for (size_t i = 0; i < keys_.size(); i++)
      if (keys_[i]) f(keys_[i], values_[i]);
  }

private:
  size_t slot_of(K key) const { return pointer_hash(key) & mask_; }
  // by four while small: a pass's memo grows from nothing to the size of its graph and each rehash
  // moves it all (by two past 64k slots, where the slack would cost megabytes)
  void grow() { rehash(keys_.empty() ? 16 : keys_.size() * (keys_.size() < (size_t(1) << 16) ? 4 : 2)); }
  void rehash(size_t cap) {
    std::vector<K> old_keys = std::exchange(keys_, std::vector<K>(cap, nullptr));
    std::vector<V> old_values = std::exchange(values_, std::vector<V>(cap));
    mask_ = cap - 1;
    size_ = 0;
    for (size_t i = 0; i < old_keys.size(); i++)
      if (old_keys[i]) *try_emplace(old_keys[i]).first = std::move(old_values[i]);
  }

  std::vector<K> keys_;
  std::vector<V> values_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

// A set of pointers on the same table (the value is an unused byte).
template <typename K> class FlatPtrSet {
public:
  FlatPtrSet() = default;
  explicit FlatPtrSet(size_t expected) : map_(expected) {}
  bool insert(K key) { return map_.try_emplace(key).second; }  // true when it was new
  bool contains(K key) const { return map_.contains(key); }

private:
  FlatPtrMap<K, char> map_;
};

} // namespace loupe
