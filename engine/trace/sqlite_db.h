// A thin RAII wrapper over the SQLite C API for trace files. Every failure becomes a loupe::Error
// that names the file, what was being done and SQLite's own message. Builds without SQLite too:
// then opening any database raises an Error saying that traces need SQLite.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace loupe {

class SqliteDb;

// One prepared statement. Parameters are 1-based (as in SQLite), result columns 0-based.
class SqliteStmt {
public:
  SqliteStmt() = default;
  SqliteStmt(SqliteDb& db, std::string_view sql);
  ~SqliteStmt();
  SqliteStmt(SqliteStmt&& o) noexcept;
  SqliteStmt& operator=(SqliteStmt&& o) noexcept;
  SqliteStmt(const SqliteStmt&) = delete;
  SqliteStmt& operator=(const SqliteStmt&) = delete;

  SqliteStmt& bind(int i, int64_t v);
  SqliteStmt& bind(int i, int v) { return bind(i, int64_t(v)); }
  SqliteStmt& bind(int i, double v);
  SqliteStmt& bind(int i, std::string_view v);
  SqliteStmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  SqliteStmt& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  SqliteStmt& bind_null(int i);
  SqliteStmt& bind_blob(int i, std::string_view bytes);  // read back with text()

  bool step();  // true: a row is ready; false: done (the statement resets on the next bind/run)
  void run();   // step to completion, then reset (for INSERT/UPDATE)
  void reset(); // ready for new parameters (keeps bindings until rebound)

  bool is_null(int col) const;
  int64_t int64(int col) const;
  double real(int col) const;
  std::string text(int col) const;
  int columns() const;

private:
  SqliteDb* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
  bool done_ = false;
};

class SqliteDb {
public:
  enum class Mode {
    read_only,  // existing file; nothing in it is executed (no triggers, views, extensions)
    // read_only, and the file is known not to change while it is open (a finished trace): no locks and
    // no -wal/-shm files beside it, so it opens from a read-only folder too (SQLite's immutable=1)
    read_only_immutable,
    create,     // an empty file the caller made (and locked), opened read-write
  };
  SqliteDb(const std::string& path, Mode mode);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  void exec(std::string_view sql);  // one or more statements without results
  // The same, except that another connection holding the lock (SQLITE_BUSY/LOCKED) is no failure:
  // false, nothing changed. For optional work such as switching a finished file's journal mode.
  bool exec_unless_locked(std::string_view sql);
  SqliteStmt prepare(std::string_view sql) { return SqliteStmt(*this, sql); }
  int64_t last_insert_rowid() const;
  int64_t query_int(std::string_view sql);  // first column of the first row (Error if no row)
  std::string query_text(std::string_view sql);  // likewise, as text

  void begin();
  void commit();
  void set_busy_timeout(int ms);  // how long a statement waits for another connection's lock (5 s at open)
  bool in_transaction() const { return in_tx_; }

  const std::string& path() const { return path_; }
  sqlite3* handle() const { return db_; }
  // Throws Error "<path>: <what>: <sqlite message>" for a failed call with result code rc.
  [[noreturn]] void fail(int rc, std::string_view what) const;

private:
  std::string path_;
  sqlite3* db_ = nullptr;
  bool in_tx_ = false;
};

// Turns SQLite's result codes into words a user understands ("file is not a database", ...).
std::string sqlite_problem(int rc, const char* detail);

} // namespace loupe
