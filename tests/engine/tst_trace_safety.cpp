// A trace is data, never a program (engine/trace/trace_trust.h, SCHEMA.md "Untrusted data"): the pieces
// that keep it so, one by one. Digests and escapes; the private scratch folder; tools and in-process
// compilers under limits (a crash, a hang, a flood of output each become an Error); traces whose
// contexts or passes would form a cycle or nest a billion deep; one writer per path; a finished trace
// that is one file; the record of traces this user wrote; a kernel's recorded name that tries to be a
// path, and recorded sources that crash or stall a compiler, through machine_code().
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <csignal>
#include <fstream>
#include <random>

#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/tst_trace_fixtures.h"
#include "inspect/machine_code.h"
#include "runtime/device.h"
#include "support/compile_cache.h"
#include "support/error.h"
#include "support/isolate.h"
#include "support/private_dir.h"
#include "support/process.h"
#include "support/sha256.h"
#include "support/terminal_text.h"
#include "trace/trace_lock.h"
#include "trace/trace_reader.h"
#include "trace/trace_trust.h"
#include "trace/trace_writer.h"

using namespace loupe;
using namespace trace_fixtures;
namespace fs = std::filesystem;

namespace {

void run_sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) qWarning() << err;
  sqlite3_free(err);
  sqlite3_close(db);
  QCOMPARE(rc, SQLITE_OK);
}

std::string small_trace(const std::string& path, int kernels = 20) {
  PatternMatcher pm = simple_rules();
  TraceWriter w(path);
  ListenerScope s(&w);
  for (int k = 0; k < kernels; k++) {
    std::mt19937 rng{uint32_t(k)};
    w.begin_context("kernel", "k" + std::to_string(k));
    graph_rewrite(random_expr(rng, 10), pm, {.name = "default"});
    w.end_context();
  }
  return path;
}

// The message of the Error `f` throws ("" when it throws none).
template <typename F> std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

} // namespace

class TestTraceSafety : public QObject {
  Q_OBJECT
  QTemporaryDir config_;

private slots:
  void initTestCase() { qputenv("LOUPE_CONFIG_DIR", config_.path().toUtf8()); }

  void sha256_matches_the_standard() {
    QCOMPARE(sha256_hex(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    QCOMPARE(sha256_hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    const std::string million(1000000, 'a');
    QCOMPARE(sha256_hex(million), std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    Sha256 a, b;
    QVERIFY(a.field("ab").field("c").hex() != b.field("a").field("bc").hex());
  }

  void control_characters_are_escaped_for_the_terminal() {
    QCOMPARE(escape_for_terminal("r_16_4\x1b]0;pwned\x07"), std::string("r_16_4\\x1b]0;pwned\\x07"));
    QCOMPARE(escape_for_terminal("a\rb\x7f"), std::string("a\\rb\\x7f"));
    QCOMPARE(escape_for_terminal("\xc2\x9b" "31m"), std::string("\\u009b31m"));                 // C1 CSI
    QCOMPARE(escape_for_terminal("x\xe2\x80\xae" "cba"), std::string("x\\u202ecba"));            // RLO
    QCOMPARE(escape_for_terminal("bad \xff\xfe byte"), std::string("bad \\xff\\xfe byte"));
    const std::string plain = "kernel r_4 — naïve 漢字 ✓\n\tline two";
    QCOMPARE(escape_for_terminal(plain), plain);
    // through a stream, a UTF-8 character split across writes is kept whole
    std::ostringstream out;
    {
      TerminalSafeOutput guard(out);
      out << "caf\xc3";
      out << "\xa9 \x1b[2J";
      out << std::flush << "end\n";
    }
    QCOMPARE(out.str(), std::string("caf\xc3\xa9 \\x1b[2Jend\n"));
  }

  void the_private_folder_is_private_and_takes_only_plain_names() {
    fs::path where;
    {
      PrivateDir dir("test");
      where = dir.path();
      struct stat st{};
      QCOMPARE(::stat(where.c_str(), &st), 0);
      QCOMPARE(int(st.st_mode & 0777), 0700);
      dir.write("kernel.c", "int x;");
      QVERIFY(fs::exists(where / "kernel.c"));
      for (const char* bad : {"../x", "/etc/passwd", "..", "a/b", "", "x\n"})
        QVERIFY2(!error_of([&] { dir.file(bad); }).empty(), bad);
    }
    QVERIFY(!fs::exists(where));
    // the compile cache's temporary names stay in its folder whatever they are named after
    const fs::path p = CompileCache::temp_path("../../../../tmp/escape");
    QCOMPARE(p.parent_path().parent_path(), fs::temp_directory_path());
    QVERIFY(p.filename().string().find('/') == std::string::npos);
  }

  void a_tool_past_its_limits_is_stopped() {
    QTemporaryDir dir;
    const fs::path log = dir.filePath("log").toStdString();
    ProcessLimits slow;
    slow.seconds = 0.5;
    const auto t0 = std::chrono::steady_clock::now();
    ProcessOutcome o = run_process({"/bin/sleep", "30"}, log, slow);
    QVERIFY(o.timed_out);
    QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
    QVERIFY2(o.describe(slow).find("did not finish within 0.5 s") != std::string::npos, o.describe(slow).c_str());
    ProcessLimits small;
    small.file_bytes = 1 << 20;
    small.seconds = 20;
    o = run_process({"/usr/bin/yes"}, log, small);
    QVERIFY2(o.too_large, o.describe(small).c_str());
    QVERIFY(fs::file_size(log) <= (1u << 20));
    o = run_process({"/bin/true"}, log, small);
    QCOMPARE(o.status, 0);
  }

  void isolated_work_that_crashes_hangs_or_exits_is_an_error() {
    ProcessLimits l;
    l.seconds = 2;
    QCOMPARE(run_isolated([] { return std::string("fine"); }, l, "work"), std::string("fine"));
    std::string e = error_of([&] { run_isolated([]() -> std::string { throw Error("bad input"); }, l, "work"); });
    QCOMPARE(e, std::string("bad input"));
    e = error_of([&] {
      run_isolated([]() -> std::string {
        std::raise(SIGSEGV);
        return "";
      }, l, "work");
    });
    QVERIFY2(e.find("work: crashed (signal 11, SIGSEGV)") != std::string::npos, e.c_str());
    const auto t0 = std::chrono::steady_clock::now();
    e = error_of([&] {
      run_isolated([]() -> std::string {
        for (;;) pause();
      }, l, "work");
    });
    QVERIFY2(e.find("did not finish within 2 s") != std::string::npos, e.c_str());
    QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(6));
    // exit() inside the work (LLVM's fatal errors) leaves without the parent's exit handlers
    e = error_of([&] {
      run_isolated([]() -> std::string {
        std::fputs("LLVM ERROR: something\n", stderr);
        std::exit(1);
      }, l, "work");
    });
    QVERIFY2(e.find("stopped with a fatal error") != std::string::npos && e.find("LLVM ERROR: something") != std::string::npos, e.c_str());
    l.file_bytes = 1000;
    e = error_of([&] { run_isolated([] { return std::string(100000, 'x'); }, l, "work"); });
    QVERIFY2(e.find("more than") != std::string::npos, e.c_str());
  }

  // Found by fuzzing: the app crashed on contexts or passes that are their own parents (or each
  // other's), and `loupe-cli trace` printed gigabytes for a pass nested a billion deep.
  void cycles_and_absurd_depths_are_refused_by_name() {
    QTemporaryDir dir;
    const std::string good = small_trace(dir.filePath("good.loupe").toStdString());
    struct Case {
      const char* name;
      const char* sql;
      const char* words;
    };
    for (Case c : {Case{"self_context", "UPDATE contexts SET parent_id = id WHERE id = 3", "table contexts, context 3: its parent 3 is not an earlier context"},
                   Case{"two_cycle", "UPDATE contexts SET parent_id = 4 WHERE id = 3; UPDATE contexts SET parent_id = 3 WHERE id = 4",
                        "its parent 4 is not an earlier context"},
                   Case{"self_pass", "UPDATE passes SET parent_id = id WHERE id = 2", "table passes, pass 2: its parent 2 is not an earlier pass"},
                   Case{"pass_cycle", "UPDATE passes SET parent_id = 3 WHERE id = 2; UPDATE passes SET parent_id = 2 WHERE id = 3",
                        "its parent 3 is not an earlier pass"},
                   Case{"depth", "UPDATE passes SET depth = 1000000000 WHERE id = 2", "nesting depth 1000000000 is out of range"},
                   Case{"negative_parent", "UPDATE passes SET parent_id = -7 WHERE id = 2", "its parent -7"}}) {
      const std::string path = dir.filePath(QString(c.name) + ".loupe").toStdString();
      fs::copy_file(good, path);
      run_sql(path, c.sql);
      const std::string e = error_of([&] {
        TraceReader r(path);
        for (const TraceContext& ctx : r.contexts()) r.passes(ctx.id);
      });
      QVERIFY2(e.find(path) != std::string::npos && e.find(c.words) != std::string::npos, (std::string(c.name) + ": " + e).c_str());
    }
  }

  // Found by testing two runs on one path: both said "trace written" and one file replaced the other.
  void a_second_writer_to_the_same_path_is_refused() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("one.loupe").toStdString();
    {
      TraceWriter first(path);
      first.begin_context("schedule", "first");
      first.flush();
      QVERIFY(TraceFileLock::is_being_written(path));
      const std::string e = error_of([&] { TraceWriter second(path); });
      QVERIFY2(e.find("another run is writing this trace") != std::string::npos, e.c_str());
      first.end_context();
    }
    QVERIFY(!TraceFileLock::is_being_written(path));
    TraceReader r(path);
    QCOMPARE(r.contexts().size(), size_t(1));
    QCOMPARE(r.contexts()[0].name, std::string("first"));
    { TraceWriter again(path); }  // once it is finished, a new run may replace it
    QCOMPARE(TraceReader(path).contexts().size(), size_t(0));
  }

  // A finished trace is one file in rollback-journal mode: nothing beside it, before or after reading.
  void a_finished_trace_is_one_file_and_reading_leaves_nothing_beside_it() {
    QTemporaryDir dir;
    const std::string path = small_trace(dir.filePath("t.loupe").toStdString());
    QCOMPARE(listing(dir.path().toStdString()), std::set<std::string>{"t.loupe"});
    std::ifstream in(path, std::ios::binary);
    char header[20] = {};
    in.read(header, sizeof header);
    QCOMPARE(int(header[18]), 1);  // rollback journal, not WAL
    {
      TraceReader r(path);
      QVERIFY(r.finished());
      QCOMPARE(r.contexts().size(), size_t(20));
      QCOMPARE(r.meta()["schema_version"], std::string("2"));
      QCOMPARE(r.meta()["machine_id"], this_machine_trace_id());
      QCOMPARE(r.meta()["trace_id"].size(), size_t(32));
    }
    QCOMPARE(listing(dir.path().toStdString()), std::set<std::string>{"t.loupe"});
  }

  // Committed pages reach the main file about once a second: a writer killed with SIGKILL leaves a
  // main file that holds them even when the -wal is lost.
  void a_killed_writer_has_checkpointed_what_it_committed() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("killed.loupe").toStdString();
    int fds[2];
    QCOMPARE(pipe(fds), 0);
    pid_t pid = fork();
    QVERIFY(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      PatternMatcher pm = simple_rules();
      TraceWriter w(path, {.commit_interval_ms = 20, .checkpoint_interval_ms = 100});
      ListenerScope s(&w);
      for (int k = 0;; k++) {
        std::mt19937 rng{uint32_t(k)};
        w.begin_context("kernel", "k" + std::to_string(k));
        graph_rewrite(random_expr(rng, 10), pm, {.name = "default"});
        w.end_context();
        if (k == 30) {
          w.flush();
          usleep(400000);  // commits and a checkpoint happen meanwhile
          w.flush();
          char ok = 1;
          if (write(fds[1], &ok, 1) != 1) _exit(2);
          for (;;) pause();
        }
      }
    }
    close(fds[1]);
    char ok = 0;
    QCOMPARE(read(fds[0], &ok, 1), ssize_t(1));
    close(fds[0]);
    QCOMPARE(kill(pid, SIGKILL), 0);
    waitpid(pid, nullptr, 0);
    fs::remove(path + "-wal");
    fs::remove(path + "-shm");
    TraceReader r(path);
    QVERIFY2(r.contexts().size() >= 31, qPrintable(QString::number(r.contexts().size())));
    QVERIFY(!r.finished());
  }

  // The record of traces this user wrote: a trace is trusted while its machine, uid and run are the
  // ones remembered; an edit of any recorded run value, or a trace from elsewhere, is not.
  void only_traces_this_user_recorded_here_are_trusted() {
    QTemporaryDir dir;
    const std::string script = dir.filePath("prog.py").toStdString();
    std::ofstream(script) << "print(1)\n";
    const std::string path = dir.filePath("mine.loupe").toStdString();
    {
      TraceWriter w(path);
      w.record_run_info({script, "print(1)\n", {{"DEVICE", "CPU"}, {"ARGS", "[\"48\"]"}, {"CWD", dir.path().toStdString()}}});
    }
    auto trust = [](const std::string& p) {
      TraceReader r(p);
      return trace_trust(r.meta(), r.run_info());
    };
    QVERIFY2(trust(path).trusted, trust(path).reason.c_str());
    QCOMPARE(TraceReader(path).run_info()["script_sha256"], sha256_hex("print(1)\n"));
    struct stat st{};
    QCOMPARE(::stat(recorded_traces_file().c_str(), &st), 0);
    QCOMPARE(int(st.st_mode & 0777), 0600);
    struct Case {
      const char* name;
      const char* sql;
      const char* reason;
    };
    for (Case c : {Case{"args", "UPDATE run_info SET value = '[\"-s\", \"import os\"]' WHERE key = 'ARGS'", "not one Loupe remembers"},
                   Case{"program", "UPDATE run_info SET value = '/usr/lib/python3.11/timeit.py' WHERE key = 'script_path'", "not one Loupe remembers"},
                   Case{"setting", "INSERT OR REPLACE INTO run_info VALUES ('BEAM', '4')", "not one Loupe remembers"},
                   Case{"machine", "UPDATE meta SET value = '0123' WHERE key = 'machine_id'", "another machine"},
                   Case{"user", "UPDATE meta SET value = '4242' WHERE key = 'writer_uid'", "another user"},
                   Case{"old", "DELETE FROM meta WHERE key = 'trace_id'", "older Loupe"}}) {
      const std::string p = dir.filePath(QString(c.name) + ".loupe").toStdString();
      fs::copy_file(path, p);
      run_sql(p, c.sql);
      const TraceTrust t = trust(p);
      QVERIFY2(!t.trusted && t.reason.find(c.reason) != std::string::npos, (std::string(c.name) + ": " + t.reason).c_str());
    }
    // someone else's record proves nothing: a record others may write is not read
    ::chmod(recorded_traces_file().c_str(), 0666);
    QVERIFY(!trust(path).trusted);
    ::chmod(recorded_traces_file().c_str(), 0600);
    QVERIFY(trust(path).trusted);
  }

  // A kernel name from a trace reaches the compiler only as a C identifier: "../../x" used to become
  // the path of the object written. The object is only disassembled: a constructor in it never runs.
  void recorded_names_never_become_paths_and_objects_never_load() {
    if (!device_status("CPU").available) QSKIP("no C compiler");
    QTemporaryDir dir;
    const fs::path target = fs::path(dir.path().toStdString()) / "sitecustomize";
    const std::string e = error_of([&] { machine_code("CPU", "../../../../" + target.string(), "void f(float* data0) {}\n"); });
    QVERIFY2(e.find("is not a C identifier") != std::string::npos, e.c_str());
    QVERIFY(listing(dir.path().toStdString()).empty());
    const fs::path marker = fs::path(dir.path().toStdString()) / "ran";
    const std::string src = "#include <stdio.h>\n__attribute__((constructor)) static void pwn(void) { FILE* f = fopen(\"" + marker.string() +
                            "\", \"w\"); if (f) fclose(f); }\nvoid E_4(float* restrict data0) { data0[0] = 1.0f; }\n";
    MachineCode mc = machine_code("CPU", "E_4", src);
    QCOMPARE(mc.listings.size(), size_t(1));
    QVERIFY(mc.listings[0].instruction_count() > 0);
    QVERIFY(!fs::exists(marker));
  }

  // Found by fuzzing: bad inline asm in an LLVM kernel took the app down (LLVM exits on it), and a huge
  // vector kept the compiler busy for minutes. Both are errors now, the process unharmed.
  void an_llvm_source_that_crashes_or_stalls_llvm_is_an_error() {
    if (!device_status("LLVM").available) QSKIP("no LLVM device in this build");
    const std::string bad_asm = "define void @E_4(ptr noalias %data0) {\nentry:\n  call void asm sideeffect \"not an instruction %%%\", \"\"()\n"
                                "  ret void\n}\n";
    std::string e = error_of([&] { machine_code("LLVM", "E_4", bad_asm); });
    QVERIFY2(e.find("LLVM compiling E_4") != std::string::npos, e.c_str());
    const std::string huge = "define void @E_4(ptr noalias %data0) {\nentry:\n  %v = load <268435456 x float>, ptr %data0\n"
                             "  %w = fdiv <268435456 x float> %v, %v\n  store <268435456 x float> %w, ptr %data0\n  ret void\n}\n";
    MachineCodeOptions quick;
    quick.limits.seconds = 3;
    const auto t0 = std::chrono::steady_clock::now();
    e = error_of([&] { machine_code("LLVM", "E_4", huge, quick); });
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    QVERIFY2(e.find("LLVM compiling E_4") != std::string::npos, e.c_str());
    QVERIFY2(took < 10, qPrintable(QString::number(took)));
    qInfo() << "huge vector:" << took << "s:" << QString::fromStdString(e.substr(0, 160));
    // and a good kernel still compiles through the same child
    const std::string good = "define void @E_4(ptr noalias %data0) {\nentry:\n  store float 1.0, ptr %data0\n  ret void\n}\n";
    QVERIFY(!machine_code("LLVM", "E_4", good).listings.empty());
  }
};

QTEST_APPLESS_MAIN(TestTraceSafety)
#include "tst_trace_safety.moc"
