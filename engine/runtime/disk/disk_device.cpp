#include "runtime/disk/disk_device.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/interp/interp_device.h"
#include "support/error.h"
#include "support/regular_file.h"

namespace loupe {

bool is_disk_device(const std::string& device) {
  if (device.size() < 5 || device[4] != ':') return false;
  for (size_t i = 0; i < 4; i++)
    if (std::tolower(static_cast<unsigned char>(device[i])) != "disk"[i]) return false;
  return true;
}

std::string disk_path(const std::string& device) { return is_disk_device(device) ? device.substr(5) : std::string(); }

DiskAllocator::DiskAllocator(std::string device, std::string path) : Allocator(std::move(device)), path_(std::move(path)) {
  set_cache_limit(0);  // a freed mapping is unmapped at once: its writes are in the file
}

void* DiskAllocator::raw_alloc(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  // a FIFO or a device would block or never end: refused before opening (and opened without waiting)
  if (std::string why = irregular_file_reason(path_); !why.empty() && why != "does not exist")
    throw Error(cat("DISK:", path_, " ", why));
  bool writable = true;
  int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd < 0 && (errno == EACCES || errno == EROFS)) {
    writable = false;
    fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  }
  if (fd < 0) throw Error(cat("DISK:", path_, ": cannot open the file: ", std::strerror(errno)));
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(cat("DISK:", path_, ": not a regular file"));
  }
  if (static_cast<size_t>(st.st_size) < nbytes) {
    if (!writable || ::ftruncate(fd, static_cast<off_t>(nbytes)) != 0) {
      std::string why = writable ? std::strerror(errno) : "the file is read-only";
      ::close(fd);
      throw Error(cat("DISK:", path_, ": a buffer of ", nbytes, " bytes, but the file has ", st.st_size, " and cannot grow (", why, ")"));
    }
  }
  void* p = ::mmap(nullptr, nbytes, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
  int err = errno;
  ::close(fd);  // the mapping keeps the file
  if (p == MAP_FAILED) throw Error(cat("DISK:", path_, ": cannot map ", nbytes, " bytes: ", std::strerror(err)));
  std::lock_guard lock(mutex_);
  mappings_[static_cast<const char*>(p)] = {nbytes, writable};
  return p;
}

void DiskAllocator::raw_free(void* handle, size_t nbytes) {
  if (!handle) return;
  ::munmap(handle, nbytes);
  std::lock_guard lock(mutex_);
  mappings_.erase(static_cast<const char*>(handle));
}

void DiskAllocator::copyin(void* dst, const void* src, size_t nbytes) {
  if (!nbytes) return;
  {  // a write into a read-only mapping would be a segmentation fault: an error instead
    std::lock_guard lock(mutex_);
    auto it = mappings_.upper_bound(static_cast<const char*>(dst));
    if (it != mappings_.begin() && !std::prev(it)->second.second)
      throw Error(cat("DISK:", path_, ": the file is read-only here; it cannot be written"));
  }
  std::memcpy(dst, src, nbytes);
}

void DiskAllocator::copyout(void* dst, const void* src, size_t nbytes) {
  if (nbytes) std::memcpy(dst, src, nbytes);
}

DiskDevice::DiskDevice(const std::string& canonical)
    : Device(canonical), renderer_(renderer_of_target("CPU")), allocator_(canonical, disk_path(canonical)) {}

std::shared_ptr<Program> DiskDevice::compile(const RenderedKernel& kernel) {
  throw NotImplementedError(cat(name(), " holds bytes and runs no kernels (", kernel.name, " would compute on it): a DISK tensor "
                                "takes views (reshape, contiguous slices, bitcast) and copies (.to(device), assign); move it to "
                                "a device first, e.g. t.to('CPU')"));
}

} // namespace loupe
