#include "trace/trace_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/sysmacros.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "support/error.h"

namespace loupe {

namespace {

[[noreturn]] void busy(const std::string& path) {
  throw Error(cat(path, ": another run is writing this trace right now (it holds the file's lock); wait for it to finish"
                        " or write to another path"));
}

// Closes a descriptor when it goes (the old file's lock is released with it).
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Retried for a moment: a lock that is released meanwhile (a writer finishing) is no conflict.
bool lock_exclusive(int fd) {
  for (int i = 0; i < 20; i++) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
    if (errno != EWOULDBLOCK && errno != EINTR) return false;
    usleep(5000);
  }
  return false;
}

bool same_file(int fd, const std::string& path) {
  struct stat a{}, b{};
  return fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

} // namespace

TraceFileLock::TraceFileLock(const std::string& path, const std::function<void(const std::string&)>& check_replaceable) {
  for (int attempt = 0; attempt < 16; attempt++) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      if (!lock_exclusive(fd)) {
        ::close(fd);
        busy(path);
      }
      // A racing writer may have taken and removed this new file before the lock: then it is not at
      // `path` any more, and the claim starts over.
      if (!same_file(fd, path)) {
        ::close(fd);
        continue;
      }
      for (const char* suffix : {"-wal", "-shm", "-journal"}) ::unlink((path + suffix).c_str());
      fd_ = fd;
      return;
    }
    if (errno != EEXIST) throw Error(cat(path, ": cannot create the trace file: ", std::strerror(errno)));
    Fd old{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (old.fd < 0) {
      if (errno == ENOENT) continue;  // removed meanwhile: try to create it again
      throw Error(cat(path, ": cannot open the existing file to replace it: ", std::strerror(errno)));
    }
    if (!lock_exclusive(old.fd)) busy(path);
    if (!same_file(old.fd, path)) continue;
    check_replaceable(path);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      throw Error(cat(path, ": cannot replace the existing trace: ", std::strerror(errno)));
  }
  throw Error(cat(path, ": other writers keep replacing this file; cannot claim it for the trace"));
}

TraceFileLock::~TraceFileLock() {
  if (fd_ >= 0) ::close(fd_);
}

// Read from /proc/locks instead of trying the lock: opening and closing the file here would drop the
// fcntl locks this process's own SQLite connections hold on it (POSIX releases them on any close).
bool TraceFileLock::is_being_written(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return false;
  std::ifstream locks("/proc/locks");
  char id[64];
  std::snprintf(id, sizeof id, " %02x:%02x:%llu ", major(st.st_dev), minor(st.st_dev), static_cast<unsigned long long>(st.st_ino));
  for (std::string line; std::getline(locks, line);)
    if (line.find("FLOCK") != std::string::npos && line.find("WRITE") != std::string::npos && line.find(id) != std::string::npos)
      return true;
  return false;
}

} // namespace loupe
