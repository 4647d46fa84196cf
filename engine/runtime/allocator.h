// Device memory: an Allocator hands out blocks and keeps freed ones in a least-recently-used cache
// keyed by size, so the repeated same-size buffers of a training step or a BEAM search reuse memory.
// Thread-safe.
#pragma once
#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace loupe {

class Allocator {
public:
  explicit Allocator(std::string device) : device_(std::move(device)) {}
  virtual ~Allocator() = default;
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  // A block of at least nbytes (0 allowed): a cached block of the same size if there is one. When the
  // device is out of memory the cache is emptied and the allocation retried; then loupe::Error.
  void* alloc(size_t nbytes);
  // Returns a block to the cache (or to the device when caching is off or the cache is over its limit).
  void free(void* handle, size_t nbytes);
  void clear_cache();
  void set_cache_limit(size_t bytes);  // default 1 GiB; 0 disables caching

  // Whether its handles are pointers into this process's memory (a copy between two such is one memcpy).
  virtual bool holds_host_memory() const { return false; }
  virtual void copyin(void* dst, const void* src, size_t nbytes) = 0;   // host -> device
  virtual void copyout(void* dst, const void* src, size_t nbytes) = 0;  // device -> host

  int64_t used_bytes() const;    // handed out and not freed
  int64_t peak_bytes() const;    // the most used_bytes() has been since the last reset_peak()
  void reset_peak();             // the peak starts again from what is in use now
  int64_t cached_bytes() const;  // kept for reuse
  const std::string& device() const { return device_; }

protected:
  virtual void* raw_alloc(size_t nbytes) = 0;  // null when out of memory
  virtual void raw_free(void* handle, size_t nbytes) = 0;

private:
  void evict_locked(size_t keep_bytes);
  std::string device_;
  mutable std::mutex mutex_;
  std::list<std::pair<size_t, void*>> lru_;  // most recently freed first
  std::unordered_map<size_t, std::vector<std::list<std::pair<size_t, void*>>::iterator>> by_size_;
  size_t cached_ = 0, used_ = 0, peak_ = 0, limit_ = size_t(1) << 30;
};

// Host memory for the CPU device: 64-byte aligned (4 KiB for large blocks), like tinygrad's.
class HostAllocator : public Allocator {
public:
  HostAllocator() : Allocator("CPU") {}
  ~HostAllocator() override { clear_cache(); }
  bool holds_host_memory() const override { return true; }
  void copyin(void* dst, const void* src, size_t nbytes) override;
  void copyout(void* dst, const void* src, size_t nbytes) override;

protected:
  void* raw_alloc(size_t nbytes) override;
  void raw_free(void* handle, size_t nbytes) override;
};

} // namespace loupe
