// One writer per trace path. Two runs told to write the same file used to both say "trace written"
// while one replaced the other's file under it; now a writer claims the path first: it holds an
// exclusive flock(2) on the file for as long as it records, and a second writer (another process, or
// another writer in this one) that finds the lock held stops with an Error saying so, before it
// touches anything. flock locks are separate from the fcntl locks SQLite takes, so readers are not
// affected.
#pragma once
#include <functional>
#include <string>

namespace loupe {

class TraceFileLock {
public:
  // Claims `path`: an existing file there (after `check_replaceable(path)` accepts it) is replaced by a
  // new empty one, with the stale -wal/-shm/-journal files of an earlier trace removed, and the new file
  // stays locked until this object goes. loupe::Error when another writer holds it or it cannot be made.
  TraceFileLock(const std::string& path, const std::function<void(const std::string&)>& check_replaceable);
  ~TraceFileLock();
  TraceFileLock(const TraceFileLock&) = delete;
  TraceFileLock& operator=(const TraceFileLock&) = delete;

  // Whether a writer holds the file at `path` now (false when there is none, or it cannot be told).
  static bool is_being_written(const std::string& path);

private:
  int fd_ = -1;
};

} // namespace loupe
