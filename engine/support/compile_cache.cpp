#include "support/compile_cache.h"

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <unistd.h>

#include "support/error.h"
#include "support/hash.h"

namespace loupe {

namespace fs = std::filesystem;

std::string cache_key(std::initializer_list<std::string_view> parts) {
  StableHasher h;
  for (std::string_view p : parts) h.str(p);
  return h.finish().hex();
}

CompileCache& CompileCache::global() {
  static CompileCache* cache = [] {
    const char* off = std::getenv("DISABLE_COMPILER_CACHE");
    bool enabled = !(off && *off && std::string(off) != "0");
    fs::path root;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) root = fs::path(xdg) / "loupe";
    else if (const char* home = std::getenv("HOME"); home && *home) root = fs::path(home) / ".cache" / "loupe";
    else enabled = false;
    return new CompileCache(root, enabled);
  }();
  return *cache;
}

CompileCache::CompileCache(fs::path root, bool enabled) : root_(std::move(root)), enabled_(enabled) {}

fs::path CompileCache::path_of(const std::string& kind, const std::string& key, const std::string& ext) const {
  return root_ / kind / (key + ext);
}

namespace {
// The private temporary directory, removed when the process exits normally.
struct TempDir {
  fs::path path;
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};
} // namespace

fs::path CompileCache::temp_path(const std::string& stem) {
  static std::mutex mutex;
  static TempDir temp;
  fs::path& dir = temp.path;
  static std::atomic<uint64_t> counter{0};
  std::lock_guard lock(mutex);
  if (dir.empty()) {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::string templ = (base / "loupe-XXXXXX").string();
    if (!mkdtemp(templ.data())) throw Error(cat("cannot create a temporary directory under ", base.string()));
    dir = templ;
  } else if (!fs::exists(dir)) {  // someone cleaned /tmp under a long-running process
    std::error_code ec;
    fs::create_directories(dir, ec);
  }
  // Callers name files after what they hold; whatever the stem, the file stays in the private folder.
  std::string safe = stem.substr(0, 100);
  for (char& c : safe)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  if (safe.empty() || safe[0] == '.') safe.insert(0, "_");
  return dir / (safe + "." + std::to_string(counter++));
}

namespace {
// A name no other process or thread will pick: pid, a counter and random bits.
std::string unique_suffix() {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::ostringstream os;
  os << ".tmp." << getpid() << "." << counter++ << "." << std::hex << rng();
  return os.str();
}
} // namespace

fs::path CompileCache::get_or_create(const std::string& kind, const std::string& key, const std::string& ext,
                                     const std::function<void(const fs::path& tmp)>& produce, bool* hit) {
  if (hit) *hit = false;
  if (!enabled_) {
    fs::path out = temp_path(key + ext);
    produce(out);
    return out;
  }
  fs::path final_path = path_of(kind, key, ext);
  std::error_code ec;
  if (fs::exists(final_path, ec)) {
    if (hit) *hit = true;
    return final_path;
  }
  fs::create_directories(final_path.parent_path(), ec);
  if (ec) {  // an unwritable cache is not fatal: work in a temporary directory instead
    fs::path out = temp_path(key + ext);
    produce(out);
    return out;
  }
  fs::path tmp = final_path;
  tmp += unique_suffix();
  try {
    produce(tmp);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  fs::rename(tmp, final_path, ec);  // atomic; a concurrent identical result may already be there
  if (ec) {
    fs::remove(tmp, ec);
    if (!fs::exists(final_path)) throw Error(cat("compile cache: cannot store ", final_path.string()));
  }
  return final_path;
}

std::optional<std::string> CompileCache::get(const std::string& kind, const std::string& key) const {
  if (!enabled_) return std::nullopt;
  std::ifstream f(path_of(kind, key, ".bin"), std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void CompileCache::put(const std::string& kind, const std::string& key, const std::string& bytes) {
  if (!enabled_) return;
  fs::path final_path = path_of(kind, key, ".bin");
  std::error_code ec;
  fs::create_directories(final_path.parent_path(), ec);
  if (ec) return;
  fs::path tmp = final_path;
  tmp += unique_suffix();
  {
    std::ofstream f(tmp, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, final_path, ec);
  if (ec) fs::remove(tmp, ec);
}

} // namespace loupe
