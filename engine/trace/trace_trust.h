// Which traces this user recorded on this machine. Everything read from a trace is untrusted data (a
// trace is meant to be shared, and anyone can edit one with sqlite3); the one thing a trace can make
// Loupe do beyond showing it is run its recorded program again (inspect/kernel_rerun.h), and that happens
// only with the user's consent — except for a trace Loupe remembers this user writing here, with the
// run it records unchanged since.
//
// The writer records in the trace's meta a random trace id, a one-way id of the machine and the writer's
// uid, and appends a digest of those and of the run (program path, its SHA-256, arguments, folder,
// settings) to a record in the user's config folder (LOUPE_CONFIG_DIR, else $XDG_CONFIG_HOME/loupe,
// else ~/.config/loupe; the folder 0700, the file 0600, owned by the user). A trace is trusted only when
// it names this machine and this uid and its digest is in that record: a trace from elsewhere never
// is, and one of this user's own whose run was edited afterwards no longer is.
#pragma once
#include <filesystem>
#include <map>
#include <string>

namespace loupe {

// A one-way id of this machine (SHA-256 of /etc/machine-id, else of the host name), 32 hex digits:
// traces are shared, the machine's own id stays here.
std::string this_machine_trace_id();

// The digest of what a re-run would use: the trace's identity in `meta` (trace_id, machine_id,
// writer_uid) and every run_info entry but the script text (its SHA-256 is one of them).
std::string trace_run_digest(const std::map<std::string, std::string>& meta, const std::map<std::string, std::string>& run_info);

// The record's file (which may not exist yet).
std::filesystem::path recorded_traces_file();

// Adds a digest to the record. Returns "" or why it could not (the caller warns; the trace is fine).
std::string remember_recorded_trace(const std::string& digest);

struct TraceTrust {
  bool trusted = false;
  std::string reason;  // "recorded by you on this machine", "recorded on another machine", ...
};
TraceTrust trace_trust(const std::map<std::string, std::string>& meta, const std::map<std::string, std::string>& run_info);

} // namespace loupe
