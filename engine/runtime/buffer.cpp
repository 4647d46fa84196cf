#include "runtime/buffer.h"

#include <atomic>
#include <cstdint>
#include <limits>
#include <vector>

#include "observe/observer.h"
#include "runtime/device.h"
#include "support/error.h"

namespace loupe {

namespace {
std::atomic<uint64_t> next_buffer_id{1};

// Allocations, frees and copies are reported to the process's observer, if any (observe/observer.h).
void record_host_copy(ExecutionObserver& w, const std::string& device, bool to_device, size_t bytes, int64_t start_ns) {
  BufferCopy c;
  c.src_device = to_device ? "HOST" : device;
  c.dst_device = to_device ? device : "HOST";
  c.bytes = static_cast<int64_t>(bytes);
  c.start_ns = start_ns;
  c.duration_ns = w.now_ns() - start_ns;
  c.name = cat("copy ", bytes, ", ", c.dst_device, " <- ", c.src_device);
  w.record_copy(c);
}
} // namespace

Buffer::Buffer(const std::string& device, DType dtype, int64_t size)
    : device_(&get_device(device)), dtype_(dtype), size_(size), id_(next_buffer_id++) {
  if (dtype.is_ptr || dtype.count != 1 || dtype.is_void() || dtype.is_weak())
    throw Error(cat("Buffer on ", device_->name(), ": dtype must be a concrete scalar, got ", dtype.name()));
  if (size < 0) throw Error(cat("Buffer on ", device_->name(), ": negative size ", size));
  // the byte count must not wrap: 2**62 float32s would be a buffer of 0 bytes that kernels write past
  if (size > std::numeric_limits<int64_t>::max() / static_cast<int64_t>(dtype.itemsize()))
    throw Error(cat("Buffer on ", device_->name(), ": ", size, " x ", dtype.short_name(), " is more bytes than memory can address"));
  nbytes_ = static_cast<size_t>(size) * static_cast<size_t>(dtype.itemsize());
}

Buffer::Buffer(std::shared_ptr<Buffer> base, size_t byte_offset, DType dtype, int64_t size)
    : Buffer(base->device().name(), dtype, size) {
  if (byte_offset > base->nbytes() || nbytes_ > base->nbytes() - byte_offset)
    throw Error(cat("a view of ", nbytes_, " bytes at byte ", byte_offset, " of a ", device_->name(), " buffer of ", base->nbytes(), " bytes"));
  if (base->base_) {  // a view of a view: of the first buffer
    byte_offset += base->byte_offset_;
    base = base->base_;
  }
  base_ = std::move(base);
  byte_offset_ = byte_offset;
  ensure_allocated();  // (the base's memory, mapped now if it was not)
}

Buffer::~Buffer() { deallocate(); }

void Buffer::deallocate() {
  if (!allocated_) return;
  if (base_) {  // the memory is the base's
    handle_ = nullptr;
    allocated_ = false;
    return;
  }
  device_->allocator().free(handle_, nbytes_);
  handle_ = nullptr;
  allocated_ = false;
  if (ExecutionObserver* w = execution_observer())
    w->record_free({device_->name(), static_cast<int64_t>(id_), static_cast<int64_t>(nbytes_), w->now_ns()});
}

Buffer& Buffer::ensure_allocated() {
  if (!allocated_ && base_) {
    void* b = base_->handle();
    handle_ = b ? static_cast<char*>(b) + byte_offset_ : nullptr;
    allocated_ = true;
  }
  if (!allocated_) {
    handle_ = device_->allocator().alloc(nbytes_);
    allocated_ = true;
    if (ExecutionObserver* w = execution_observer())
      w->record_alloc({device_->name(), static_cast<int64_t>(id_), static_cast<int64_t>(nbytes_), w->now_ns(),
                       cat(size_, " x ", dtype_.short_name())});
  }
  return *this;
}

void* Buffer::handle() {
  ensure_allocated();
  return handle_;
}

void Buffer::copyin(const void* src, size_t nbytes) {
  if (nbytes != nbytes_)
    throw Error(cat("copyin to a ", device_->name(), " buffer of ", size_, " x ", dtype_.short_name(), " (", nbytes_,
                    " bytes) from ", nbytes, " bytes"));
  ensure_allocated();
  ExecutionObserver* w = execution_observer();
  int64_t start = w ? w->now_ns() : 0;
  device_->allocator().copyin(handle_, src, nbytes);
  wrote();
  if (w) record_host_copy(*w, device_->name(), true, nbytes, start);
}

void Buffer::copyout(void* dst, size_t nbytes) {
  if (nbytes != nbytes_)
    throw Error(cat("copyout of a ", device_->name(), " buffer of ", size_, " x ", dtype_.short_name(), " (", nbytes_,
                    " bytes) into ", nbytes, " bytes"));
  LOUPE_ASSERT(allocated_, "copyout of a ", device_->name(), " buffer that was never allocated");
  device_->synchronize();
  ExecutionObserver* w = execution_observer();
  int64_t start = w ? w->now_ns() : 0;
  device_->allocator().copyout(dst, handle_, nbytes);
  if (w) record_host_copy(*w, device_->name(), false, nbytes, start);
}

void Buffer::copy_from(Buffer& src) {
  if (src.dtype_ != dtype_ || src.nbytes_ != nbytes_)
    throw Error(cat("copy to a ", device_->name(), " buffer of ", size_, " x ", dtype_.short_name(), " from a ",
                    src.device_->name(), " buffer of ", src.size_, " x ", src.dtype_.short_name()));
  LOUPE_ASSERT(src.allocated_, "copy from a ", src.device_->name(), " buffer that was never allocated");
  ensure_allocated();
  ExecutionObserver* w = execution_observer();
  int64_t start = w ? w->now_ns() : 0;
  src.device_->synchronize();
  if (src.device_->allocator().holds_host_memory() && device_->allocator().holds_host_memory()) {
    device_->allocator().copyin(handle_, src.handle_, nbytes_);  // both in this process's memory (a file mapped, the CPU's)
  } else {
    std::vector<uint8_t> staging(nbytes_);
    src.device_->allocator().copyout(staging.data(), src.handle_, nbytes_);
    device_->allocator().copyin(handle_, staging.data(), nbytes_);
  }
  wrote();
  if (w) {
    BufferCopy c;
    c.src_device = src.device_->name();
    c.dst_device = device_->name();
    c.bytes = static_cast<int64_t>(nbytes_);
    c.start_ns = start;
    c.duration_ns = w->now_ns() - start;
    c.name = cat("copy ", nbytes_, ", ", c.dst_device, " <- ", c.src_device);
    w->record_copy(c);
  }
}

} // namespace loupe
