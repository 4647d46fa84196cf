// A private scratch folder for work on untrusted input (a trace's kernel sources, a re-run's trace):
// made by mkdtemp under the temporary directory, so it is new, 0700 (no other user can read it or plant
// files in it) and its name is not guessable; removed with everything in it when the object goes.
// Files in it get only names Loupe makes: file() refuses anything but a plain name, so a name read from a
// trace ("../../x", "/etc/y") can never become a path, here or anywhere else.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace loupe {

class PrivateDir {
public:
  // "loupe-<purpose>-XXXXXX" under $TMPDIR (or /tmp). loupe::Error when it cannot be made.
  explicit PrivateDir(std::string_view purpose);
  ~PrivateDir();
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // path()/name for a plain name ([A-Za-z0-9._-]+, not "." or ".."); loupe::Error otherwise.
  std::filesystem::path file(std::string_view name) const;
  // Creates path()/name (it must not exist yet; never through a link), 0600, with these bytes.
  std::filesystem::path write(std::string_view name, std::string_view bytes) const;

private:
  std::filesystem::path path_;
};

// Whether `name` is a plain file name Loupe may use as is: [A-Za-z0-9._-]{1,128}, not "." or "..".
bool is_plain_file_name(std::string_view name);

} // namespace loupe
