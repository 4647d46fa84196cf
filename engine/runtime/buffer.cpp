#include "runtime/buffer.h"

#include "runtime/device.h"
#include "support/error.h"

namespace loupe {

Buffer::Buffer(const std::string& device, DType dtype, int64_t size)
    : device_(&get_device(device)), dtype_(dtype), size_(size) {
  if (dtype.is_ptr || dtype.count != 1 || dtype.is_void() || dtype.is_weak())
    throw Error(cat("Buffer on ", device_->name(), ": dtype must be a concrete scalar, got ", dtype.name()));
  if (size < 0) throw Error(cat("Buffer on ", device_->name(), ": negative size ", size));
  nbytes_ = static_cast<size_t>(size) * static_cast<size_t>(dtype.itemsize());
}

Buffer::~Buffer() {
  if (allocated_) device_->allocator().free(handle_, nbytes_);
}

Buffer& Buffer::ensure_allocated() {
  if (!allocated_) {
    handle_ = device_->allocator().alloc(nbytes_);
    allocated_ = true;
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
  device_->allocator().copyin(handle_, src, nbytes);
}

void Buffer::copyout(void* dst, size_t nbytes) {
  if (nbytes != nbytes_)
    throw Error(cat("copyout of a ", device_->name(), " buffer of ", size_, " x ", dtype_.short_name(), " (", nbytes_,
                    " bytes) into ", nbytes, " bytes"));
  LOUPE_ASSERT(allocated_, "copyout of a ", device_->name(), " buffer that was never allocated");
  device_->synchronize();
  device_->allocator().copyout(dst, handle_, nbytes);
}

} // namespace loupe
