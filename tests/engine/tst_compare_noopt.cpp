// Optimized against NOOPT (COMPARE_NOOPT / `loupe-cli run --compare-noopt`): both versions of each
// optimized kernel are timed on scratch buffers, the program's results are those of the optimized
// kernels alone, the comparison reaches the trace, and the CLI prints the two sources side by side.
#include <QtTest>

#include "engine/cli_process.h"
#include "exec/noopt_compare.h"
#include "support/options.h"
#include "tensor/tensor.h"
#include "trace/trace_reader.h"
#include "trace/trace_session.h"

using namespace loupe;

namespace {

// A matmul plus a bias and a ReLU: the reduce gets opts, the output is written (scratch must protect it).
std::vector<double> program() {
  Tensor a = Tensor::arange(48).reshape({6, 8}).cast(dtypes::float32) * 0.1;
  Tensor b = Tensor::arange(40).reshape({8, 5}).cast(dtypes::float32) * -0.05 + 1.0;
  return (a.matmul(b) + 0.5).relu().to_vector();
}

struct CompareScope {
  bool saved = options().compare_noopt;
  explicit CompareScope(bool on) { options().compare_noopt = on; }
  ~CompareScope() { options().compare_noopt = saved; }
};

} // namespace

class TestCompareNoopt : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void in_process() {
    take_noopt_comparisons();
    std::vector<double> plain;
    {
      CompareScope off(false);
      plain = program();
    }
    QVERIFY(take_noopt_comparisons().empty());
    std::vector<double> compared;
    {
      CompareScope on(true);
      compared = program();
    }
    QCOMPARE(compared, plain);  // the NOOPT runs wrote only scratch buffers
    std::vector<NooptComparison> cs = take_noopt_comparisons();
    QVERIFY(!cs.empty());
    for (const NooptComparison& c : cs) {
      QVERIFY(!c.opts.empty());  // only optimized kernels are compared
      QVERIFY(c.opt_seconds > 0);
      QVERIFY(c.noopt_seconds > 0);
      QVERIFY(c.opt_source != c.noopt_source);
      const QString text = QString::fromStdString(format_comparison(c, 60));
      QVERIFY(text.startsWith(QString::fromStdString("=== " + c.name + " on CPU: optimized ")));
      QVERIFY(text.contains("speed-up"));
      // every source line sits in a column of 60, then " | "
      const QStringList lines = text.split('\n', Qt::SkipEmptyParts);
      for (int i = 3; i < lines.size(); i++) QVERIFY2(lines[i].size() <= 60 + 3 + 60, qPrintable(lines[i]));
    }
    QVERIFY(take_noopt_comparisons().empty());  // taking them clears the list
  }

  void into_the_trace() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("compare.loupe").toStdString();
    {
      CompareScope on(true);
      TraceSession::start(path);
      // a program no earlier test compiled, so its kernels are recorded in this trace
      Tensor a = Tensor::arange(35).reshape({5, 7}).cast(dtypes::float32) * 0.25;
      Tensor b = Tensor::arange(21).reshape({7, 3}).cast(dtypes::float32) - 4.0;
      (a.matmul(b) + 1.0).to_vector();
      TraceSession::finish();
    }
    take_noopt_comparisons();
    TraceReader r(path);
    // every pass belongs to the schedule or a kernel (and its NOOPT planning), none to no context
    for (const TraceContext& c : r.contexts()) QVERIFY2(c.kind != "top", c.name.c_str());
    int opt = 0, noopt = 0;
    for (const TraceEvent& e : r.profile()) {
      if (e.kind == "compare_opt") opt++;
      if (e.kind == "compare_noopt") {
        noopt++;
        QVERIFY(e.kernel_id >= 0);
        QVERIFY(e.duration_ns > 0);
      }
    }
    QVERIFY(noopt > 0);
    QCOMPARE(opt, noopt);
  }

  void command_line() {
    if (qEnvironmentVariableIsEmpty("LOUPE_CLI")) QSKIP("LOUPE_CLI is not set");
    QTemporaryDir dir;
    const QString script = testing::write_script(dir.path(), "mm.py",
        "a = Tensor.arange(12).reshape(3, 4).float() * 0.5\nb = Tensor.arange(8).reshape(4, 2).float()\nout = a @ b\n");
    QVERIFY(!script.isEmpty());
    testing::CliResult r = testing::run_cli({"run", script, "--compare-noopt"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("compared with NOOPT"), qPrintable(r.out));
    QVERIFY(r.out.contains("--- optimized "));
    QVERIFY(r.out.contains(" | --- NOOPT "));
    QVERIFY(r.out.contains("speed-up"));
    testing::CliResult bad = testing::run_cli({"run", script, "--compare-noopt", "--noopt"});
    QCOMPARE(bad.code, 1);
    QVERIFY2(bad.err.contains("drop --noopt"), qPrintable(bad.err));
    // a program whose only kernel had nothing to optimize says so instead of a bare zero
    const QString plain = testing::write_script(dir.path(), "plain.py", "out = Tensor([1.0, 2.0, 3.0]) + 1\n");
    testing::CliResult none = testing::run_cli({"run", plain, "--compare-noopt"});
    QCOMPARE(none.code, 0);
    QVERIFY2(none.out.contains("0 optimized kernels compared with NOOPT") &&
                 none.out.contains("no optimization applied, so it is already its NOOPT version"),
             qPrintable(none.out));
  }
};

QTEST_APPLESS_MAIN(TestCompareNoopt)
#include "tst_compare_noopt.moc"
