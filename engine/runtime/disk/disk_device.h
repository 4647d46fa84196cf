// The DISK device: a file as tensor memory, tinygrad's DISK:<path>. Its buffers are the file mapped
// into this process (shared, so writes reach the file); every buffer of one DISK device maps the file
// from its first byte, as in tinygrad, and a view of one (a contiguous slice, a reshape, a bitcast) is
// a sub-buffer at a byte offset. It runs no kernels: data moves in and out by copies.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/device.h"

namespace loupe {

// Maps the device's file: created or grown to a buffer's size when writable; a read-only file maps read
// only (writes to it are errors). Each block is its own mapping from offset 0; nothing is cached.
class DiskAllocator : public Allocator {
public:
  DiskAllocator(std::string device, std::string path);
  ~DiskAllocator() override { clear_cache(); }
  bool holds_host_memory() const override { return true; }
  void copyin(void* dst, const void* src, size_t nbytes) override;
  void copyout(void* dst, const void* src, size_t nbytes) override;

protected:
  void* raw_alloc(size_t nbytes) override;
  void raw_free(void* handle, size_t nbytes) override;

private:
  std::string path_;
  std::mutex mutex_;
  std::map<const char*, std::pair<size_t, bool>> mappings_;  // start -> (bytes, writable)
};

class DiskDevice : public Device {
public:
  explicit DiskDevice(const std::string& canonical);
  // The C renderer, for planning only: a kernel on DISK stops at compile() with an error saying what to do.
  const Renderer& renderer() const override { return *renderer_; }
  Allocator& allocator() override { return allocator_; }
  std::shared_ptr<Program> compile(const RenderedKernel& kernel) override;

private:
  std::unique_ptr<Renderer> renderer_;
  DiskAllocator allocator_;
};

// "DISK:/tmp/x" -> true (any spelling of the kind: "disk:...").
bool is_disk_device(const std::string& device);
// The file of a DISK device name ("DISK:/tmp/x" -> "/tmp/x").
std::string disk_path(const std::string& device);

} // namespace loupe
