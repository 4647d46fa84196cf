// Trace files that are not what they should be: truncated, corrupt, of another schema version, not
// SQLite, empty, missing tables, damaged rows — each is a loupe::Error naming the file and the
// problem, never a crash. And a writer killed mid-run: everything committed before the kill opens.
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fstream>
#include <random>

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/tst_trace_fixtures.h"
#include "support/error.h"
#include "trace/graph_at_step.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"

using namespace loupe;
using namespace trace_fixtures;

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), std::streamsize(data.size()));
}

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

// Kernel k's passes: the same in the killed child and in the parent that checks it.
UOpPtr kernel_graph(int k) {
  std::mt19937 rng(uint32_t(1000 + k));
  return random_expr(rng, 8 + k % 20);
}

void record_kernel(TraceWriter& w, int k, const PatternMatcher& pm) {
  w.begin_context("kernel", "k" + std::to_string(k));
  graph_rewrite(kernel_graph(k), pm, {.name = "default"});
  graph_rewrite(kernel_graph(k), pm, {.bottom_up = true, .name = "bottom_up"});
  w.end_context();
}

// A trace of a few hundred passes (many pages), written and closed cleanly.
std::string good_trace(QTemporaryDir& dir) {
  std::string path = dir.filePath("good.loupe").toStdString();
  PatternMatcher pm = simple_rules();
  TraceWriter w(path);
  ListenerScope s(&w);
  for (int k = 0; k < 150; k++) record_kernel(w, k, pm);
  w.record_peaks({"CPU", 100, 10});
  return path;
}

// Opens the trace and reads all of it, rebuilding every node and every pass's last step.
void read_everything(const std::string& path, bool quick_check = true) {
  TraceReader r(path, {.quick_check = quick_check});
  for (const TraceContext& c : r.contexts())
    for (const TracePass& p : r.passes(c.id)) {
      PassReplay replay(r, p.id);
      replay.graph_at(replay.steps());
    }
  for (int64_t id = 1, n = r.node_count(); id <= n; id++) r.node(id);
  r.kernels();
  r.profile();
  r.peaks();
  r.rules();
}

// The message names the file and contains one of the words describing the problem.
void expect_error(const std::string& path, const std::vector<std::string>& words) {
  try {
    read_everything(path);
  } catch (const Error& e) {
    std::string msg = e.what();
    QVERIFY2(msg.find(path) != std::string::npos, msg.c_str());
    bool named = false;
    for (const std::string& w : words) named = named || msg.find(w) != std::string::npos;
    QVERIFY2(named, msg.c_str());
    return;
  }
  QFAIL("expected a loupe::Error");
}

} // namespace

class TestTraceFiles : public QObject {
  Q_OBJECT
private slots:
  void the_good_trace_reads() {
    QTemporaryDir dir;
    std::string path = good_trace(dir);
    read_everything(path);
    TraceReader r(path);
    QCOMPARE(r.contexts().size(), size_t(150));
    QVERIFY(r.finished());
    QVERIFY(read_bytes(path).size() > 64 * 1024);
  }

  void missing_empty_and_foreign_files() {
    QTemporaryDir dir;
    std::string missing = dir.filePath("nope.loupe").toStdString();
    expect_error(missing, {"no such file"});
    std::string empty = dir.filePath("empty.loupe").toStdString();
    write_bytes(empty, "");
    expect_error(empty, {"empty"});
    std::string text = dir.filePath("script.loupe").toStdString();
    write_bytes(text, "a = Tensor.ones(4)\nout = a + 1\n");
    expect_error(text, {"not a SQLite database"});
    std::string binary = dir.filePath("random.loupe").toStdString();
    std::string junk(10000, '\0');
    std::mt19937 rng(3);
    for (char& c : junk) c = char(rng());
    write_bytes(binary, junk);
    expect_error(binary, {"not a SQLite database"});
    expect_error(dir.path().toStdString(), {"directory"});
    std::string other = dir.filePath("other.db").toStdString();
    run_sql(other, "CREATE TABLE t(x); INSERT INTO t VALUES (1)");
    expect_error(other, {"not a Loupe trace"});
    std::string blank = dir.filePath("blank.db").toStdString();
    run_sql(blank, "CREATE TABLE t(x); DROP TABLE t");
    expect_error(blank, {"not a Loupe trace (an empty SQLite database)"});
  }

  void truncated_files() {
    QTemporaryDir dir;
    std::string good = good_trace(dir);
    std::string bytes = read_bytes(good);
    for (size_t keep : {size_t(50), size_t(100), size_t(4096), bytes.size() / 2, bytes.size() - 4096}) {
      std::string path = dir.filePath(QString("cut%1.loupe").arg(keep)).toStdString();
      write_bytes(path, bytes.substr(0, keep));
      expect_error(path, {"truncated"});
    }
  }

  void corrupt_pages_in_the_middle() {
    QTemporaryDir dir;
    std::string good = good_trace(dir);
    std::string bytes = read_bytes(good);
    size_t pages = bytes.size() / 4096;
    std::mt19937 rng(11);
    for (size_t at : {pages / 4, pages / 2, pages * 3 / 4}) {
      std::string damaged = bytes;
      for (size_t i = at * 4096; i < (at + 2) * 4096 && i < damaged.size(); i++) damaged[i] = char(rng());
      std::string path = dir.filePath(QString("corrupt%1.loupe").arg(at)).toStdString();
      write_bytes(path, damaged);
      expect_error(path, {"corrupt", "malformed"});
      // Without the page check, damage that the queries touch is an Error naming the file; damage
      // in pages they never read (an unused index) goes unnoticed, but never crashes.
      try {
        read_everything(path, false);
      } catch (const Error& e) {
        QVERIFY2(std::string(e.what()).find(path) != std::string::npos, e.what());
      }
    }
  }

  void wrong_schema_version_and_application_id() {
    QTemporaryDir dir;
    std::string good = good_trace(dir);
    std::string bytes = read_bytes(good);
    std::string newer = bytes;
    newer[63] = 7;  // PRAGMA user_version lives at offset 60 (big-endian)
    std::string p1 = dir.filePath("v7.loupe").toStdString();
    write_bytes(p1, newer);
    expect_error(p1, {"schema version 7"});
    std::string p2 = dir.filePath("app.loupe").toStdString();
    std::string foreign = bytes;
    foreign[68] = foreign[69] = foreign[70] = foreign[71] = 0;  // application_id
    write_bytes(p2, foreign);
    expect_error(p2, {"not a Loupe trace"});
  }

  void missing_tables_and_columns() {
    QTemporaryDir dir;
    std::string good = good_trace(dir);
    struct Case {
      const char* name;
      const char* sql;
      const char* word;
    };
    for (Case c : {Case{"no_peaks", "DROP TABLE peaks", "table 'peaks' is missing"},
                   Case{"no_column", "ALTER TABLE kernels DROP COLUMN mem", "no column 'mem'"},
                   // A view standing in for a table is not accepted (and views are never run).
                   Case{"view", "DROP TABLE contexts; CREATE VIEW contexts AS SELECT 1 AS id",
                        "table 'contexts' is missing"}}) {
      std::string path = dir.filePath(QString(c.name) + ".loupe").toStdString();
      write_bytes(path, read_bytes(good));
      run_sql(path, c.sql);
      expect_error(path, {c.word});
    }
  }

  void damaged_rows() {
    QTemporaryDir dir;
    std::string good = good_trace(dir);
    struct Case {
      const char* name;
      const char* sql;
      const char* word;
    };
    std::vector<Case> cases = {
        {"src_forward", "UPDATE uops SET src = '999999' WHERE id = 5", "not an earlier node"},
        {"src_text", "UPDATE uops SET src = 'x y' WHERE id = 5", "node 5"},
        {"op", "UPDATE uops SET op = 'BOGUS' WHERE id = 3", "unknown op 'BOGUS'"},
        {"dtype", "UPDATE uops SET dtype = 'float33' WHERE id = 3", "dtype code"},
        {"arg", "UPDATE uops SET arg_code = 'i12' WHERE id = 3", "arg code"},
        {"key", "UPDATE uops SET key = '00' WHERE id = 3", "differs from the stored key"},
        {"arity", "UPDATE uops SET op = 'ADD', src = '' WHERE id = 3", "needs 2 source"},
        {"var", "UPDATE uops SET arg_code = '(s1:xi0;)' WHERE op = 'DEFINE_VAR'", "DEFINE_VAR needs"},
        {"match_gap", "DELETE FROM matches WHERE idx = 0", "match 0 is missing"},
        {"missing_node", "DELETE FROM uops WHERE id = 2", "node 2 is missing"},
        {"opts", "UPDATE kernels SET opts = '[1'", "kernels"},
    };
    std::string insert_kernel = "INSERT INTO kernels(context_id, name, device, ast_id, opts, global_size, local_size,"
                                " flops, lds, mem) VALUES (1, 'E_1', 'CPU', NULL, '[]', '[1]', '[]', 0, 0, 0);";
    for (const Case& c : cases) {
      std::string path = dir.filePath(QString(c.name) + ".loupe").toStdString();
      write_bytes(path, read_bytes(good));
      run_sql(path, insert_kernel + c.sql);
      expect_error(path, {c.word});
    }
  }

  // Stored keys are compared only when the trace made them as this engine does: a trace of an older
  // key recipe (or from before the recipe was recorded) still opens, every node rebuilt.
  void keys_of_another_scheme_are_not_compared() {
    QTemporaryDir dir;
    std::string good = good_trace(dir);
    QCOMPARE(TraceReader(good).meta()["uop_key_scheme"], std::to_string(UOp::kKeyScheme));
    for (const char* meta_change : {"UPDATE meta SET value = '1' WHERE key = 'uop_key_scheme'",
                                    "DELETE FROM meta WHERE key = 'uop_key_scheme'"}) {
      std::string path = dir.filePath("old_keys.loupe").toStdString();
      write_bytes(path, read_bytes(good));
      run_sql(path, std::string(meta_change) + "; UPDATE uops SET key = '00' WHERE id = 3");
      read_everything(path);
      QCOMPARE(TraceReader(path).node(3)->key(), TraceReader(good).node(3)->key());
    }
  }

  void writer_refuses_to_overwrite_other_files() {
    QTemporaryDir dir;
    std::string script = dir.filePath("script.py").toStdString();
    write_bytes(script, "out = Tensor.ones(4)\n");
    try {
      TraceWriter w(script);
      QFAIL("expected an error");
    } catch (const Error& e) {
      QVERIFY(std::string(e.what()).find("refusing to overwrite") != std::string::npos);
    }
    QCOMPARE(read_bytes(script), std::string("out = Tensor.ones(4)\n"));
    std::string trace = good_trace(dir);  // an old trace may be replaced
    { TraceWriter w(trace); }
    QCOMPARE(TraceReader(trace).contexts().size(), size_t(0));
  }

  // A child records kernels, commits, reports how many, keeps recording; the parent kills it with
  // SIGKILL mid-run and finds every reported kernel, intact, plus whatever was committed after.
  void killed_writer_loses_nothing_committed() {
    QTemporaryDir dir;
    std::string path = dir.filePath("killed.loupe").toStdString();
    int fds[2];
    QCOMPARE(pipe(fds), 0);
    const int reported = 25;
    pid_t pid = fork();
    QVERIFY(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      PatternMatcher pm = simple_rules();
      TraceWriter w(path, {.commit_interval_ms = 20});
      ListenerScope s(&w);
      for (int k = 0;; k++) {
        record_kernel(w, k, pm);
        if (k == reported - 1) {
          w.flush();
          int n = reported;
          if (write(fds[1], &n, sizeof n) != sizeof n) _exit(2);
        }
      }
    }
    close(fds[1]);
    int n = 0;
    QCOMPARE(read(fds[0], &n, sizeof n), ssize_t(sizeof n));
    close(fds[0]);
    QTest::qWait(150);  // let it run on (and commit in the background) before the kill
    QCOMPARE(kill(pid, SIGKILL), 0);
    int status = 0;
    QCOMPARE(waitpid(pid, &status, 0), pid);
    QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    TraceReader r(path);
    QVERIFY(!r.finished());
    std::vector<TraceContext> ctxs = r.contexts();
    QVERIFY2(int(ctxs.size()) >= n, qPrintable(QString("%1 contexts").arg(ctxs.size())));
    qInfo() << "committed before the kill:" << ctxs.size() << "kernels (" << n << "reported)";
    PatternMatcher pm = simple_rules();
    int checked = 0;
    for (size_t k = 0; k < ctxs.size(); k++) {
      QCOMPARE(ctxs[k].name, "k" + std::to_string(k));
      std::vector<TracePass> ps = r.passes(ctxs[k].id);
      if (int(k) < n) {
        QCOMPARE(ps.size(), size_t(2));
        QVERIFY(ctxs[k].end_ns >= 0);
      }
      for (const TracePass& p : ps) {
        if (!p.finished()) continue;  // the pass the kill interrupted
        RewriteOptions opts;
        opts.bottom_up = p.bottom_up;
        UOpPtr expected = graph_rewrite(kernel_graph(int(k)), pm, opts);
        QCOMPARE(r.node(p.result_id), expected);
        PassReplay replay(r, p.id);
        QCOMPARE(replay.graph_at(replay.steps()), expected);
        checked++;
      }
    }
    QVERIFY(checked >= 2 * n);
  }
};

QTEST_APPLESS_MAIN(TestTraceFiles)
#include "tst_trace_files.moc"
