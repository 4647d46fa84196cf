#include "trace/sqlite_db.h"

#include <cctype>
#include <cstdio>
#include <filesystem>

#include "support/error.h"

#ifdef LOUPE_HAVE_SQLITE
#include <sqlite3.h>
#endif

namespace loupe {

#ifdef LOUPE_HAVE_SQLITE

namespace {
// A statement's text, shortened for an error message (enough to name the table).
std::string short_sql(std::string_view sql) {
  std::string s(sql.substr(0, 90));
  for (char& c : s)
    if (c == '\n') c = ' ';
  return sql.size() > 90 ? s + "..." : s;
}
} // namespace

std::string sqlite_problem(int rc, const char* detail) {
  std::string base;
  switch (rc & 0xff) {
  case SQLITE_NOTADB: base = "not a SQLite database (wrong file type, or the header is damaged)"; break;
  case SQLITE_CORRUPT: base = "the database is corrupt (damaged or truncated file)"; break;
  case SQLITE_CANTOPEN: base = "cannot open the file"; break;
  case SQLITE_IOERR: base = "I/O error (the file may be truncated or unreadable)"; break;
  case SQLITE_FULL: base = "the trace is full (the disk, or the size cap it was given)"; break;
  case SQLITE_READONLY: base = "the file is read-only"; break;
  case SQLITE_BUSY:
  case SQLITE_LOCKED: base = "the database is locked by another process"; break;
  case SQLITE_PERM: base = "permission denied"; break;
  default: base = sqlite3_errstr(rc); break;
  }
  if (detail && *detail && base.find(detail) == std::string::npos && std::string(sqlite3_errstr(rc)) != detail)
    base += std::string(" [") + detail + "]";
  return base;
}

namespace {
// A file: URI for a path, every byte outside the unreserved set percent-encoded ('?' and '#' in a file
// name must not start a query).
std::string file_uri(const std::string& path) {
  std::string out = "file:";
  static const char* hex = "0123456789ABCDEF";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-' || c == '~') out += char(c);
    else out += {'%', hex[c >> 4], hex[c & 15]};
  }
  return out;
}
} // namespace

SqliteDb::SqliteDb(const std::string& path, Mode mode) : path_(path) {
  namespace fs = std::filesystem;
  int flags = 0;
  std::string name = path;
  if (mode != Mode::create) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw Error(cat(path, ": no such file"));
    if (fs::is_directory(path, ec)) throw Error(cat(path, ": is a directory, not a trace file"));
    if (fs::file_size(path, ec) == 0 && !ec) throw Error(cat(path, ": the file is empty (not a Loupe trace)"));
    flags = SQLITE_OPEN_READONLY;
    if (mode == Mode::read_only_immutable) {
      flags |= SQLITE_OPEN_URI;
      name = file_uri(path) + "?immutable=1";
    }
  } else {
    flags = SQLITE_OPEN_READWRITE;
  }
  int rc = sqlite3_open_v2(name.c_str(), &db_, flags | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = sqlite_problem(rc, db_ ? sqlite3_errmsg(db_) : nullptr);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(cat(path, ": ", msg));
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, 5000);
  // Reading a file must never run anything stored in it: no triggers, no views, no extensions,
  // no schema-defined functions, and writes to the schema itself are refused.
  sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  if (mode == Mode::create) {
    exec("PRAGMA journal_mode=WAL");
    // WAL + NORMAL: a commit survives the writer's crash (not a power cut) without an fsync per commit.
    exec("PRAGMA synchronous=NORMAL");
    // A large transaction stays in memory until its commit instead of spilling pages early.
    exec("PRAGMA cache_size=-65536");
  }
}

SqliteDb::~SqliteDb() {
  if (!db_) return;
  if (in_tx_) sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_close_v2(db_);
}

void SqliteDb::fail(int rc, std::string_view what) const {
  throw Error(cat(path_, ": ", sqlite_problem(rc, db_ ? sqlite3_errmsg(db_) : nullptr), " (while ", what, ")"));
}

void SqliteDb::exec(std::string_view sql) {
  std::string s(sql);
  int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) fail(rc, cat("running `", short_sql(sql), "`"));
}

bool SqliteDb::exec_unless_locked(std::string_view sql) {
  std::string s(sql);
  int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, nullptr);
  if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) return false;
  if (rc != SQLITE_OK) fail(rc, cat("running `", short_sql(sql), "`"));
  return true;
}

int64_t SqliteDb::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

std::string SqliteDb::query_text(std::string_view sql) {
  SqliteStmt st(*this, sql);
  if (!st.step()) throw Error(cat(path_, ": no result for `", short_sql(sql), "`"));
  return st.text(0);
}

int64_t SqliteDb::query_int(std::string_view sql) {
  SqliteStmt st(*this, sql);
  if (!st.step()) throw Error(cat(path_, ": no result for `", short_sql(sql), "`"));
  return st.int64(0);
}

void SqliteDb::set_busy_timeout(int ms) { sqlite3_busy_timeout(db_, ms); }

void SqliteDb::begin() {
  if (in_tx_) return;
  exec("BEGIN");
  in_tx_ = true;
}

void SqliteDb::commit() {
  if (!in_tx_) return;
  in_tx_ = false;
  exec("COMMIT");
}

SqliteStmt::SqliteStmt(SqliteDb& db, std::string_view sql) : db_(&db), sql_(sql) {
  int rc = sqlite3_prepare_v3(db.handle(), sql_.data(), int(sql_.size()), SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK) db.fail(rc, cat("preparing `", short_sql(sql_), "`"));
}

SqliteStmt::~SqliteStmt() {
  if (stmt_) sqlite3_finalize(stmt_);
}

SqliteStmt::SqliteStmt(SqliteStmt&& o) noexcept
    : db_(o.db_), stmt_(o.stmt_), sql_(std::move(o.sql_)), done_(o.done_) {
  o.stmt_ = nullptr;
}

SqliteStmt& SqliteStmt::operator=(SqliteStmt&& o) noexcept {
  if (this != &o) {
    if (stmt_) sqlite3_finalize(stmt_);
    db_ = o.db_;
    stmt_ = o.stmt_;
    sql_ = std::move(o.sql_);
    done_ = o.done_;
    o.stmt_ = nullptr;
  }
  return *this;
}

namespace {
void check_bind(SqliteDb* db, int rc, const std::string& sql) {
  if (rc != SQLITE_OK) db->fail(rc, cat("binding a parameter of `", short_sql(sql), "`"));
}
} // namespace

SqliteStmt& SqliteStmt::bind(int i, int64_t v) {
  if (done_) reset();
  check_bind(db_, sqlite3_bind_int64(stmt_, i, v), sql_);
  return *this;
}

SqliteStmt& SqliteStmt::bind(int i, double v) {
  if (done_) reset();
  check_bind(db_, sqlite3_bind_double(stmt_, i, v), sql_);
  return *this;
}

SqliteStmt& SqliteStmt::bind(int i, std::string_view v) {
  if (done_) reset();
  check_bind(db_, sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8), sql_);
  return *this;
}

SqliteStmt& SqliteStmt::bind_blob(int i, std::string_view v) {
  if (done_) reset();
  check_bind(db_, sqlite3_bind_blob64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT), sql_);
  return *this;
}

SqliteStmt& SqliteStmt::bind_null(int i) {
  if (done_) reset();
  check_bind(db_, sqlite3_bind_null(stmt_, i), sql_);
  return *this;
}

bool SqliteStmt::step() {
  if (done_) reset();
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  done_ = true;
  if (rc == SQLITE_DONE) return false;
  sqlite3_reset(stmt_);
  db_->fail(rc, cat("running `", short_sql(sql_), "`"));
}

void SqliteStmt::run() {
  while (step()) {
  }
  reset();
}

void SqliteStmt::reset() {
  sqlite3_reset(stmt_);
  done_ = false;
}

bool SqliteStmt::is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
int64_t SqliteStmt::int64(int col) const { return sqlite3_column_int64(stmt_, col); }
double SqliteStmt::real(int col) const { return sqlite3_column_double(stmt_, col); }
int SqliteStmt::columns() const { return sqlite3_column_count(stmt_); }
std::string SqliteStmt::text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  int n = sqlite3_column_bytes(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), size_t(n)) : std::string();
}

#else  // no SQLite in this build

std::string sqlite_problem(int, const char*) { return "SQLite is not available in this build"; }
SqliteDb::SqliteDb(const std::string& path, Mode) : path_(path) {
  throw Error(cat(path, ": trace files need SQLite, and this build of Loupe has none (install libsqlite3-dev and rebuild)"));
}
SqliteDb::~SqliteDb() = default;
void SqliteDb::fail(int, std::string_view what) const { throw Error(cat(path_, ": SQLite unavailable (", what, ")")); }
void SqliteDb::exec(std::string_view) { fail(0, "exec"); }
bool SqliteDb::exec_unless_locked(std::string_view) { fail(0, "exec"); }
int64_t SqliteDb::last_insert_rowid() const { return 0; }
int64_t SqliteDb::query_int(std::string_view) { fail(0, "query"); }
std::string SqliteDb::query_text(std::string_view) { fail(0, "query"); }
void SqliteDb::begin() {}
void SqliteDb::commit() {}
void SqliteDb::set_busy_timeout(int) {}
SqliteStmt::SqliteStmt(SqliteDb& db, std::string_view) : db_(&db) { db.fail(0, "prepare"); }
SqliteStmt::~SqliteStmt() = default;
SqliteStmt::SqliteStmt(SqliteStmt&&) noexcept = default;
SqliteStmt& SqliteStmt::operator=(SqliteStmt&&) noexcept = default;
SqliteStmt& SqliteStmt::bind(int, int64_t) { return *this; }
SqliteStmt& SqliteStmt::bind(int, double) { return *this; }
SqliteStmt& SqliteStmt::bind(int, std::string_view) { return *this; }
SqliteStmt& SqliteStmt::bind_null(int) { return *this; }
bool SqliteStmt::step() { return false; }
void SqliteStmt::run() {}
void SqliteStmt::reset() {}
bool SqliteStmt::is_null(int) const { return true; }
int64_t SqliteStmt::int64(int) const { return 0; }
double SqliteStmt::real(int) const { return 0; }
std::string SqliteStmt::text(int) const { return {}; }
SqliteStmt& SqliteStmt::bind_blob(int, std::string_view) { return *this; }
int SqliteStmt::columns() const { return 0; }

#endif

} // namespace loupe
