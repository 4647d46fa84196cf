// The trace file's schema: versioned DDL (documented in engine/trace/SCHEMA.md) and the checks a
// reader runs before trusting a file.
#pragma once
#include <cstdint>

#include "trace/sqlite_db.h"

namespace loupe::trace_schema {

// Version 2 added meta's trace_id, machine_id and writer_uid and run_info's script_sha256, and leaves a
// finished trace in rollback-journal mode (one file, nothing beside it). A reader reads 1 and 2.
inline constexpr int kVersion = 2;
inline constexpr int kOldestReadable = 1;
// PRAGMA application_id of every trace file: 'LOUP'. `file` shows it as "SQLite ... application id".
inline constexpr int32_t kApplicationId = 0x4C4F5550;

// Creates all tables and indexes in an empty database, sets application_id and user_version.
void create(SqliteDb& db);

// Throws loupe::Error naming the file and the problem when the database is not a Loupe trace of
// this schema version: wrong application id, other version, a missing table or column. With
// `deep`, also runs SQLite's quick_check (every page read once) to find corruption up front.
void check(SqliteDb& db, bool deep);

// Whether the trace has this table (an optional one may be missing from a trace written before it existed).
bool has_table(SqliteDb& db, const std::string& name);

} // namespace loupe::trace_schema
