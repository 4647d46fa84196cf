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

} // namespace loupe
