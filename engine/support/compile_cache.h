// The on-disk compile cache: compiled artifacts (shared objects, PTX, binaries) stored under
// $XDG_CACHE_HOME/loupe or ~/.cache/loupe, one file per key. Keys are stable hashes of everything that
// decides the output (source, compiler identity, flags). Safe when several processes compile the
// same kernel at once: each writes a private temporary file and renames it into place, so a reader
// sees a whole file or none. DISABLE_COMPILER_CACHE=1 turns it off.
#pragma once
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace loupe {

// A stable hex key of several strings (each length-prefixed, so ("ab","c") != ("a","bc")).
std::string cache_key(std::initializer_list<std::string_view> parts);

class CompileCache {
public:
  // The process-wide cache at the default location (or disabled, see above).
  static CompileCache& global();
  CompileCache(std::filesystem::path root, bool enabled);

  bool enabled() const { return enabled_; }
  const std::filesystem::path& root() const { return root_; }

  // The file for (kind, key, ext), e.g. ("cpu", "3fa9...", ".so"); produced with produce(tmp) on a miss,
  // where produce writes the artifact to tmp. *hit tells whether it was already there. When the cache
  // is disabled the artifact is produced into a private temporary directory every time.
  std::filesystem::path get_or_create(const std::string& kind, const std::string& key, const std::string& ext,
                                      const std::function<void(const std::filesystem::path& tmp)>& produce,
                                      bool* hit = nullptr);

  // Small byte blobs (PTX, binaries) by key.
  std::optional<std::string> get(const std::string& kind, const std::string& key) const;
  void put(const std::string& kind, const std::string& key, const std::string& bytes);

  // A fresh path in a private temporary directory (for work files and the disabled cache).
  static std::filesystem::path temp_path(const std::string& stem);

private:
  std::filesystem::path path_of(const std::string& kind, const std::string& key, const std::string& ext) const;
  std::filesystem::path root_;
  bool enabled_;
};

} // namespace loupe
