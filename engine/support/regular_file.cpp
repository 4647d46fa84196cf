#include "support/regular_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/error.h"

namespace loupe {

namespace {
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}
} // namespace

std::string irregular_file_reason(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return errno == ENOENT ? "does not exist" : cat("cannot be read (", std::strerror(errno), ")");
  if (S_ISREG(st.st_mode)) return "";
  return cat("is ", kind_of(st.st_mode), ", not a regular file");
}

std::vector<uint8_t> read_regular_file(const std::string& path, const std::string& what) {
  const std::string where = cat(what, " '", path, "'");
  // O_NONBLOCK: opening a FIFO with no writer returns at once (so fstat can refuse it) instead of waiting
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) {
    if (errno == ENOENT) throw ValueError(cat(where, ": no such file"));
    throw ValueError(cat(where, ": cannot open it for reading (", std::strerror(errno), ")"));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw RuntimeError(cat(where, ": cannot read its size (", std::strerror(errno), ")"));
  if (!S_ISREG(st.st_mode)) throw ValueError(cat(where, ": is ", kind_of(st.st_mode), ", not a regular file"));
  std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < bytes.size()) {  // at most the size it had: a file still growing is read as it was
    ssize_t n = ::read(f.fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw RuntimeError(cat(where, ": reading failed (", std::strerror(errno), ")"));
    if (n == 0) break;  // it shrank meanwhile
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

void write_regular_file(const std::string& path, const std::vector<uint8_t>& bytes, const std::string& what) {
  const std::string where = cat(what, " '", path, "'");
  // O_NONBLOCK: a FIFO with no reader fails at once (ENXIO) instead of waiting for one
  Fd f{::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0666)};
  if (f.fd < 0) {
    if (errno == ENXIO) throw ValueError(cat(where, ": is a FIFO (named pipe), not a regular file"));
    throw ValueError(cat(where, ": cannot open it for writing (", std::strerror(errno), ")"));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw RuntimeError(cat(where, ": cannot inspect it (", std::strerror(errno), ")"));
  if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISDIR(st.st_mode))
    throw ValueError(cat(where, ": is ", kind_of(st.st_mode), ", not a regular file"));
  int flags = ::fcntl(f.fd, F_GETFL);
  if (flags >= 0) ::fcntl(f.fd, F_SETFL, flags & ~O_NONBLOCK);  // a regular file's writes block as usual
  size_t put = 0;
  while (put < bytes.size()) {
    ssize_t n = ::write(f.fd, bytes.data() + put, bytes.size() - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw RuntimeError(cat(where, ": writing failed (", n < 0 ? std::strerror(errno) : "no progress", ")"));
    put += static_cast<size_t>(n);
  }
  if (::close(f.fd) != 0) {
    f.fd = -1;
    throw RuntimeError(cat(where, ": writing failed at close (", std::strerror(errno), ")"));
  }
  f.fd = -1;
}

} // namespace loupe
