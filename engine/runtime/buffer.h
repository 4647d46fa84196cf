// A Buffer is `size` elements of `dtype` on one device, allocated lazily (at the first write, kernel run
// or explicit ensure_allocated) and returned to the device's allocator cache when destroyed.
// Not thread-safe: one owner at a time (the tensor layer guards its BufferRef state).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace loupe {

class Device;

class Buffer {
public:
  // `device` in any spelling get_device accepts ("cpu", "CPU:0"); bad names, non-scalar dtypes and
  // negative sizes raise loupe::Error.
  Buffer(const std::string& device, DType dtype, int64_t size);
  // A view of `base`'s memory from byte `byte_offset`, as `size` elements of `dtype`: no memory of its own
  // (a DISK tensor's slice or bitcast). It keeps base alive; the range must lie inside base.
  Buffer(std::shared_ptr<Buffer> base, size_t byte_offset, DType dtype, int64_t size);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  Device& device() const { return *device_; }
  DType dtype() const { return dtype_; }
  int64_t size() const { return size_; }            // elements
  size_t nbytes() const { return nbytes_; }
  bool is_allocated() const { return allocated_; }
  uint64_t id() const { return id_; }  // unique in this process (the trace's buffer ids)

  // How many times its contents were written: copies into it count themselves; whoever runs a kernel
  // that stores into it calls wrote(). Lets a copy of an unchanged buffer be reused (exec/layout_memo.h).
  uint64_t writes() const { return writes_; }
  void wrote() { writes_++; }

  Buffer& ensure_allocated();
  // Returns the memory to the device (its contents are lost); the next use allocates it again.
  void deallocate();
  void* handle();  // device handle (a host pointer on the CPU); allocates on first use

  // Host <-> device copies of exactly nbytes() bytes (a mismatch is a loupe::Error naming both sizes).
  void copyin(const void* src, size_t nbytes);
  void copyout(void* dst, size_t nbytes);  // the buffer must have been allocated
  // Device-to-device copy of a buffer of the same dtype and size, staged through host memory (one
  // copy event in the trace: "copy N, DST <- SRC").
  void copy_from(Buffer& src);

  template <typename T> std::vector<T> read() {
    std::vector<T> out(nbytes_ / sizeof(T));
    copyout(out.data(), out.size() * sizeof(T));
    return out;
  }
  template <typename T> void write(const std::vector<T>& v) { copyin(v.data(), v.size() * sizeof(T)); }

private:
  Device* device_;
  DType dtype_;
  int64_t size_;
  uint64_t id_;  // unique in this process: how traces tell buffers apart
  size_t nbytes_;
  void* handle_ = nullptr;
  bool allocated_ = false;  // a zero-byte buffer can be allocated with a null handle
  uint64_t writes_ = 0;
  std::shared_ptr<Buffer> base_;  // a view's buffer
  size_t byte_offset_ = 0;
};

} // namespace loupe
