// Fuzzing the app with damaged and crafted traces: each case is a copy of a genuine trace with bits
// flipped, cut short, a page zeroed, hostile values written into random rows (paths, escape codes, huge
// and negative numbers, other types), or crafted structure (cycles, depths, counts, names that are paths).
// The main window opens it (offscreen) and, when it opens, steps through matches and kernels with the
// graph, Code, Machine code (it compiles on its own), Step kernel (the re-run declined), Why not? and
// Run diff panels. What must hold: no crash, no hang (every wait is bounded), and a failed open leaves
// an error naming what was wrong. Every other case starts from a trace that kept no kernel's inputs, so
// Step kernel plans a re-run of the program and asks (declined here). LOUPE_FUZZ_CASES (default 8) and
// LOUPE_FUZZ_SEED set the campaign, LOUPE_FUZZ_VERBOSE=1 logs what Step kernel said;
// the case being run is logged first, so a crash names its file (kept: QTemporaryDir cannot clean up
// after a crash).
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <random>

#include <sqlite3.h>

#include "app/mainwindow.h"
#include "panels/machinecodepanel.h"
#include "panels/rewritedetailpanel.h"
#include "panels/rundiffpanel.h"
#include "panels/steppanel.h"
#include "panels/whynotpanel.h"
#include "session/session.h"
#include "support/options.h"
#include "views/tst_session_traces.h"

using namespace loupe;
using namespace loupe::views;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  f.open(QIODevice::ReadOnly);
  return f.readAll();
}

void writeAll(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  f.open(QIODevice::WriteOnly | QIODevice::Truncate);
  f.write(bytes);
}

void sql(const QString& path, const std::string& statements) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK) sqlite3_exec(db, statements.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
}

std::vector<std::string> column(const QString& path, const std::string& query) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK && sqlite3_prepare_v2(db, query.c_str(), -1, &st, nullptr) == SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW)
      out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0) ? sqlite3_column_text(st, 0) : (const unsigned char*)""));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

const char* kHostile[] = {"NULL", "-1", "0", "9223372036854775807", "-9223372036854775808", "1000000000", "1e308", "''",
                          "'../../../../tmp/loupe-fuzz-escape'", "'r_4' || char(27) || '[2J'", "'[1e999]'", "'[-1]'",
                          "'[9223372036854775807]'", "'(((((((('", "'oBOGUS;'", "x'fffe0001'", "'float32x4*-1L'", "'1 1 1 1 1 1'",
                          "'i99999999999999999999;'", "zeroblob(70000)"};

const char* kCrafted[] = {
    "UPDATE contexts SET parent_id = id",
    "UPDATE contexts SET parent_id = 3 WHERE id = 2; UPDATE contexts SET parent_id = 2 WHERE id = 3",
    "UPDATE passes SET parent_id = id WHERE id % 3 = 0",
    "UPDATE passes SET depth = 1000000000",
    "UPDATE passes SET match_count = 9223372036854775807",
    "UPDATE passes SET match_count = -5",
    "UPDATE matches SET idx = idx + 1000000000 WHERE idx > 2",
    "UPDATE kernels SET global_size = '[1000000000000, 1000000000000, 1000000000000]', local_size = '[1048576]'",
    "UPDATE kernels SET name = '../../../../tmp/loupe-fuzz-escape/' || name",
    "UPDATE kernels SET device = 'LLVM'; UPDATE kernel_sources SET backend = 'LLVM', source = 'define void @E(ptr %p) {\n  call void asm"
    " sideeffect \"bogus\", \"\"()\n  ret void\n}\n'",
    "UPDATE kernel_buffers SET idx = idx * 1000000",
    "UPDATE profile SET duration_ns = 9223372036854775807, bytes = -1, start_ns = -9223372036854775808",
    "UPDATE uops SET src = '1 1 1 1 1 1 1 1 1 1 1 1' WHERE id > 10 AND id % 7 = 0",
    "UPDATE rules SET file = '../../../../etc/passwd', line = -1, name = 'r' || char(27) || '[31m'",
    "UPDATE memory_plan SET first_kernel = 1000000000, last_kernel = -1000000000",
    "UPDATE schedule_roots SET node_id = 999999999",
};

// A damaged or crafted copy of `genuine` at `out`; what was done.
QString mutate(const QString& genuine, const QString& out, std::mt19937& rng) {
  QByteArray bytes = readAll(genuine);
  const int kind = int(rng() % 8);
  auto page = [&] { return int(rng() % uint32_t(std::max<qsizetype>(1, bytes.size() / 4096))) * 4096; };
  if (kind == 0) {
    const int n = int(1 + rng() % 64);
    for (int i = 0; i < n; i++) bytes[int(rng() % uint32_t(bytes.size()))] ^= char(1 << (rng() % 8));
    writeAll(out, bytes);
    return QStringLiteral("%1 bit flips").arg(n);
  }
  if (kind == 1) {
    bytes.truncate(int(rng() % uint32_t(bytes.size())));
    writeAll(out, bytes);
    return QStringLiteral("cut to %1 bytes").arg(bytes.size());
  }
  if (kind == 2) {
    const int at = page();
    for (int i = at; i < at + 4096 && i < bytes.size(); i++) bytes[i] = kind == 2 ? 0 : char(rng());
    writeAll(out, bytes);
    return QStringLiteral("page at %1 zeroed").arg(at);
  }
  writeAll(out, bytes);
  if (kind >= 6) {
    const char* c = kCrafted[rng() % std::size(kCrafted)];
    sql(out, c);
    return QStringLiteral("crafted: %1").arg(QString::fromUtf8(c).left(80));
  }
  QStringList done;
  std::vector<std::string> tables = column(out, "SELECT name FROM sqlite_schema WHERE type = 'table'");
  for (int e = 0; e < 1 + int(rng() % 3) && !tables.empty(); e++) {
    const std::string t = tables[rng() % tables.size()];
    std::vector<std::string> cols = column(out, "SELECT name FROM pragma_table_info('" + t + "')");
    std::vector<std::string> rows = column(out, "SELECT rowid FROM " + t + " LIMIT 2000");
    if (cols.empty() || rows.empty()) continue;
    const std::string c = cols[rng() % cols.size()], v = kHostile[rng() % std::size(kHostile)];
    const std::string stmt = rng() % 4 == 0 ? "UPDATE OR IGNORE " + t + " SET " + c + " = " + v
                                            : "UPDATE OR IGNORE " + t + " SET " + c + " = " + v + " WHERE rowid = " + rows[rng() % rows.size()];
    sql(out, stmt);
    done << QString::fromStdString(stmt).left(100);
  }
  return QStringLiteral("edit: %1").arg(done.join(QStringLiteral("; ")));
}

bool waitUntil(const std::function<bool()>& done, int ms) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > ms) return false;
    QTest::qWait(20);
  }
  return true;
}

} // namespace

class TestFuzzApp : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString genuine_, noInputs_;

private Q_SLOTS:
  void initTestCase() {
    dir_.setAutoRemove(true);
    genuine_ = dir_.filePath(QStringLiteral("genuine.loupe"));
    session_traces::recordMatmulTrace(genuine_);
    // and one that kept no kernel's inputs (another program: the first one's kernels are cached now), with
    // a program where the trace says it ran: stepping it plans a re-run, which must ask (the run info is
    // written afterwards, so the trace is not one this user recorded as it is) and is declined
    noInputs_ = dir_.filePath(QStringLiteral("no-inputs.loupe"));
    const int64_t keep = loupe::options().trace_inputs;
    loupe::options().trace_inputs = 0;
    session_traces::recordNestedReduceTrace(noInputs_);
    loupe::options().trace_inputs = keep;
    QFile program(dir_.filePath(QStringLiteral("example.py")));
    QVERIFY(program.open(QIODevice::WriteOnly));
    program.write("print(1)\n");
    program.close();
    sql(noInputs_, "INSERT OR REPLACE INTO run_info VALUES ('script_path', 'example.py'), ('script', 'print(1)\n'), ('DEVICE', 'CPU'),"
                   " ('CWD', '" + dir_.path().toStdString() + "')");
    qputenv("LOUPE_READ_COMPILE_SECONDS", "10");
  }

  void damagedAndCraftedTracesThroughThePanels() {
    const int cases = qEnvironmentVariableIsSet("LOUPE_FUZZ_CASES") ? qEnvironmentVariableIntValue("LOUPE_FUZZ_CASES") : 8;
    const uint32_t seed = qEnvironmentVariableIsSet("LOUPE_FUZZ_SEED") ? uint32_t(qEnvironmentVariableIntValue("LOUPE_FUZZ_SEED")) : 51u;
    std::mt19937 rng(seed);
    MainWindow w;
    w.resize(1500, 950);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* step = w.findChild<StepPanel*>();
    QVERIFY(step);
    int declined = 0;
    step->setRerunConsent([&](const InputRerun&, const QString&) { return ++declined, false; });
    int opened = 0, refused = 0, kernels = 0, steps = 0;
    QSignalSpy listings(w.machineCodePanel(), &MachineCodePanel::listingsReady);
    for (int i = 0; i < cases; i++) {
      const QString path = dir_.filePath(QStringLiteral("case%1.loupe").arg(i));
      const QString how = mutate(i % 2 ? noInputs_ : genuine_, path, rng);
      qInfo().noquote() << "case" << i << path << ":" << how;
      w.openFile(path);
      QVERIFY2(waitUntil([&] { return !w.session()->isLoading(); }, 60000), "opening did not finish");
      if (w.session()->path() != path) {
        refused++;
        QVERIFY2(w.lastError().contains(QFileInfo(path).fileName()), qPrintable(how + ": " + w.lastError()));
        continue;
      }
      opened++;
      Session& s = *w.session();
      for (int m = 0; m < 6; m++) {
        if (!s.nextMatch()) break;
        QVERIFY2(s.waitForStep(60000), qPrintable(how));
        steps++;
      }
      w.rewriteDetail()->whyNot()->refresh();
      const std::vector<TraceKernel> ks = s.trace().kernels;
      for (size_t k = 0; k < ks.size() && k < 3; k++) {
        s.selectKernel(ks[k].id);
        QVERIFY2(s.waitForStep(60000), qPrintable(how));
        w.showPanel(QStringLiteral("Machine code"));
        QTest::qWait(50);  // it compiles once shown
        QVERIFY2(waitUntil([&] { return !w.machineCodePanel()->isCompiling(); }, 90000), qPrintable("machine code: " + how));
        w.showPanel(QStringLiteral("Step kernel"));
        step->setElement(int(rng() % 16));
        step->step();
        QVERIFY2(waitUntil([&] { return !step->isCapturingInputs() && !step->isStepping(); }, 90000), qPrintable("step: " + how));
        if (qEnvironmentVariableIsSet("LOUPE_FUZZ_VERBOSE")) qInfo().noquote() << "  step:" << step->headerText().left(300);
        kernels++;
      }
      QSignalSpy diffed(w.runDiff(), &RunDiffPanel::finished);
      w.compareWithTrace(genuine_);
      QVERIFY2(w.runDiff()->isLoading() ? diffed.wait(90000) : true, qPrintable("run diff: " + how));
    }
    qInfo().noquote() << QStringLiteral("%1 cases: %2 opened (%3 steps, %4 kernels through Machine code and Step kernel, %5 machine code"
                                        " compiles, %6 re-runs declined), %7 refused with an error")
                             .arg(cases)
                             .arg(opened)
                             .arg(steps)
                             .arg(kernels)
                             .arg(listings.count())
                             .arg(declined)
                             .arg(refused);
    QVERIFY(!QFileInfo::exists(QStringLiteral("/tmp/loupe-fuzz-escape")));
  }
};

QTEST_MAIN(TestFuzzApp)
#include "tst_fuzz_app.moc"
