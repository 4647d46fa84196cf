#include "trace/trace_trust.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "support/error.h"
#include "support/sha256.h"

namespace loupe {

namespace fs = std::filesystem;

namespace {

constexpr off_t kMaxRecord = 4 << 20;  // about 60,000 traces; older ones are forgotten past it

std::string first_line(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

fs::path config_dir() {
  if (const char* d = std::getenv("LOUPE_CONFIG_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return fs::path(x) / "loupe";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".config" / "loupe";
  return {};
}

// The record, opened without following a link and only when this user owns it (another user's file,
// or one others may write, proves nothing).
int open_record(int flags) {
  const fs::path file = recorded_traces_file();
  if (file.empty()) return -1;
  int fd = ::open(file.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  struct stat st{};
  if (fstat(fd, &st) != 0 || st.st_uid != getuid() || (st.st_mode & 022) || !S_ISREG(st.st_mode)) {
    ::close(fd);
    errno = EPERM;
    return -1;
  }
  return fd;
}

std::string read_all(int fd) {
  std::string out;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, size_t(n));
    if (out.size() > size_t(kMaxRecord) * 2) break;
  }
  return out;
}

} // namespace

std::string this_machine_trace_id() {
  std::string id;
  for (const char* f : {"/etc/machine-id", "/var/lib/dbus/machine-id"})
    if (id = first_line(f); !id.empty()) break;
  if (id.empty()) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    id = std::string("host:") + host;
  }
  return sha256_hex("loupe-machine\n" + id).substr(0, 32);
}

std::string trace_run_digest(const std::map<std::string, std::string>& meta, const std::map<std::string, std::string>& run_info) {
  Sha256 h;
  h.field("loupe-trace-run-1");
  for (const char* k : {"trace_id", "machine_id", "writer_uid"}) {
    auto it = meta.find(k);
    h.field(k).field(it == meta.end() ? std::string() : it->second);
  }
  for (const auto& [k, v] : run_info)
    if (k != "script") h.field(k).field(v);
  return h.hex();
}

fs::path recorded_traces_file() {
  fs::path dir = config_dir();
  return dir.empty() ? fs::path() : dir / "recorded-traces";
}

std::string remember_recorded_trace(const std::string& digest) {
  const fs::path file = recorded_traces_file();
  if (file.empty()) return "no config folder (neither LOUPE_CONFIG_DIR, XDG_CONFIG_HOME nor HOME is set)";
  std::error_code ec;
  if (!fs::exists(file.parent_path(), ec)) {
    fs::create_directories(file.parent_path(), ec);
    if (ec) return cat("cannot make ", file.parent_path().string(), ": ", ec.message());
    ::chmod(file.parent_path().c_str(), 0700);
  }
  int fd = open_record(O_RDWR | O_CREAT | O_APPEND);
  if (fd < 0) return cat("cannot open ", file.string(), ": ", std::strerror(errno));
  flock(fd, LOCK_EX);
  struct stat st{};
  if (fstat(fd, &st) == 0 && st.st_size > kMaxRecord) {
    // keep the newer half: rewrite the file in place under the lock
    std::string all = read_all(fd);
    size_t cut = all.find('\n', all.size() / 2);
    std::string keep = cut == std::string::npos ? std::string() : all.substr(cut + 1);
    if (ftruncate(fd, 0) == 0 && !keep.empty()) (void)!::write(fd, keep.data(), keep.size());
  }
  const std::string line = digest + "\n";
  const bool ok = ::write(fd, line.data(), line.size()) == ssize_t(line.size());
  ::close(fd);
  return ok ? std::string() : cat("cannot write ", file.string());
}

TraceTrust trace_trust(const std::map<std::string, std::string>& meta, const std::map<std::string, std::string>& run_info) {
  auto get = [](const std::map<std::string, std::string>& m, const char* k) {
    auto it = m.find(k);
    return it == m.end() ? std::string() : it->second;
  };
  const std::string trace_id = get(meta, "trace_id");
  if (trace_id.empty()) return {false, "the trace does not say where it was recorded (written by an older Loupe)"};
  if (get(meta, "machine_id") != this_machine_trace_id()) return {false, "it was recorded on another machine"};
  if (get(meta, "writer_uid") != std::to_string(getuid())) return {false, "it was recorded by another user"};
  int fd = open_record(O_RDONLY);
  if (fd < 0) return {false, "it is not among the traces Loupe remembers you recording"};
  flock(fd, LOCK_SH);
  const std::string all = read_all(fd);
  ::close(fd);
  const std::string digest = trace_run_digest(meta, run_info);
  for (size_t at = 0; (at = all.find(digest, at)) != std::string::npos; at += digest.size())
    if ((at == 0 || all[at - 1] == '\n') && (at + digest.size() == all.size() || all[at + digest.size()] == '\n'))
      return {true, "you recorded it on this machine"};
  return {false, "its run (program, arguments, folder or settings) is not one Loupe remembers you recording: it was"
                 " written elsewhere or edited since"};
}

} // namespace loupe
