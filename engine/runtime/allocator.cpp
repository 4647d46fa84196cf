#include "runtime/allocator.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "support/error.h"

namespace loupe {

void* Allocator::alloc(size_t nbytes) {
  {
    std::lock_guard lock(mutex_);
    auto it = by_size_.find(nbytes);
    if (it != by_size_.end() && !it->second.empty()) {
      auto entry = it->second.back();
      it->second.pop_back();
      void* p = entry->second;
      lru_.erase(entry);
      cached_ -= nbytes;
      used_ += nbytes;
      peak_ = std::max(peak_, used_);
      return p;
    }
  }
  void* p = nullptr;
  try {
    p = raw_alloc(nbytes);
  } catch (const std::bad_alloc&) {
    p = nullptr;
  }
  if (!p) {
    clear_cache();
    try {
      p = raw_alloc(nbytes);
    } catch (const std::bad_alloc&) {
      p = nullptr;
    }
  }
  if (!p) throw Error(cat(device_, ": out of memory allocating ", nbytes, " bytes (", used_bytes(), " in use)"));
  std::lock_guard lock(mutex_);
  used_ += nbytes;
  peak_ = std::max(peak_, used_);
  return p;
}

void Allocator::free(void* handle, size_t nbytes) {
  if (!handle) return;
  std::unique_lock lock(mutex_);
  LOUPE_ASSERT(used_ >= nbytes, device_, ": freeing more than was allocated");
  used_ -= nbytes;
  if (nbytes > limit_) {
    lock.unlock();
    raw_free(handle, nbytes);
    return;
  }
  lru_.emplace_front(nbytes, handle);
  by_size_[nbytes].push_back(lru_.begin());
  cached_ += nbytes;
  evict_locked(limit_);
}

// Frees the least recently cached blocks until at most keep_bytes remain cached.
void Allocator::evict_locked(size_t keep_bytes) {
  while (cached_ > keep_bytes && !lru_.empty()) {
    auto last = std::prev(lru_.end());
    auto& stack = by_size_[last->first];
    stack.erase(std::find(stack.begin(), stack.end(), last));
    if (stack.empty()) by_size_.erase(last->first);
    cached_ -= last->first;
    raw_free(last->second, last->first);
    lru_.erase(last);
  }
}

void Allocator::clear_cache() {
  std::lock_guard lock(mutex_);
  evict_locked(0);
}

void Allocator::set_cache_limit(size_t bytes) {
  std::lock_guard lock(mutex_);
  limit_ = bytes;
  evict_locked(limit_);
}

int64_t Allocator::used_bytes() const {
  std::lock_guard lock(mutex_);
  return static_cast<int64_t>(used_);
}

int64_t Allocator::peak_bytes() const {
  std::lock_guard lock(mutex_);
  return static_cast<int64_t>(peak_);
}

void Allocator::reset_peak() {
  std::lock_guard lock(mutex_);
  peak_ = used_;
}

int64_t Allocator::cached_bytes() const {
  std::lock_guard lock(mutex_);
  return static_cast<int64_t>(cached_);
}

// A large buffer starts on a 2 MiB boundary and asks the kernel for transparent huge pages (as numpy
// does): a kernel walking a matrix down its columns touches a new 4 KiB page every row, and with 4 KiB
// pages a 2048-wide float matrix's column panel spans more pages than the TLB holds.
void* HostAllocator::raw_alloc(size_t nbytes) {
  constexpr size_t kHugePage = size_t(2) << 20;
  size_t align = nbytes >= kHugePage ? kHugePage : nbytes >= 4096 ? 4096 : 64;
  size_t rounded = (std::max<size_t>(nbytes, 1) + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
#ifdef MADV_HUGEPAGE
  if (p && align == kHugePage) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: its failure changes nothing
#endif
  return p;
}

void HostAllocator::raw_free(void* handle, size_t) { std::free(handle); }

void HostAllocator::copyin(void* dst, const void* src, size_t nbytes) {
  if (nbytes) std::memcpy(dst, src, nbytes);
}

void HostAllocator::copyout(void* dst, const void* src, size_t nbytes) {
  if (nbytes) std::memcpy(dst, src, nbytes);
}

} // namespace loupe
