#include "support/private_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "support/error.h"

namespace loupe {

namespace fs = std::filesystem;

bool is_plain_file_name(std::string_view name) {
  if (name.empty() || name.size() > 128 || name == "." || name == "..") return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

PrivateDir::PrivateDir(std::string_view purpose) {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string tag(purpose);
  if (!is_plain_file_name(tag)) tag = "work";
  std::string templ = (base / ("loupe-" + tag + "-XXXXXX")).string();
  if (!mkdtemp(templ.data()))  // mkdtemp makes it 0700
    throw Error(cat("cannot make a private temporary folder under ", base.string(), ": ", std::strerror(errno)));
  path_ = templ;
}

PrivateDir::~PrivateDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

fs::path PrivateDir::file(std::string_view name) const {
  if (!is_plain_file_name(name)) throw Error(cat("internal: '", name, "' is not a plain file name for a temporary file"));
  return path_ / std::string(name);
}

fs::path PrivateDir::write(std::string_view name, std::string_view bytes) const {
  fs::path p = file(name);
  int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw Error(cat("cannot create ", p.string(), ": ", std::strerror(errno)));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      throw Error(cat("cannot write ", p.string(), ": ", std::strerror(err)));
    }
    done += size_t(n);
  }
  ::close(fd);
  return p;
}

} // namespace loupe
