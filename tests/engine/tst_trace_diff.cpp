// Two runs side by side (trace/trace_diff.h, `loupe-cli trace A --diff B`): the line diff of two sources,
// and on real traces of one program run optimized and NOOPT, every kernel paired by its scheduled AST
// (names and opts differ), with its times, opts and a source diff; a kernel only one run has is listed
// as such; pairs come largest time change first.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdlib>

#include "engine/cli_process.h"
#include "trace/trace_diff.h"

using namespace loupe;
using loupe::testing::run_cli;
using loupe::testing::write_script;

namespace {

using Lines = std::vector<std::string>;

// Three kernels: the input, a matmul tile, a row reduce.
const char* kProgram = "a = (Tensor.arange(64 * 64).reshape(64, 64).cast(dtypes.float32) / 4096).realize()\n"
                       "b = (a @ a.T).relu().realize()\n"
                       "out = (b.sum(axis=1) + 1).realize().numpy()\n";

// Records `program` into dir/name with `noopt` set as the environment does.
QString record(const QTemporaryDir& dir, const QString& name, const char* program, bool noopt) {
  const QString script = write_script(dir.path(), name + ".py", program);
  const QString trace = dir.filePath(name + ".loupe");
  if (noopt) qputenv("NOOPT", "1");
  auto r = run_cli({"run", script, "--trace", trace});
  qunsetenv("NOOPT");
  if (r.code != 0) qWarning() << r.err;
  return r.code == 0 ? trace : QString();
}

QJsonObject diff_json(const QString& a, const QString& b) {
  auto r = run_cli({"trace", a, "--diff", b, "--json"});
  if (r.code != 0) qWarning() << r.err;
  return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

} // namespace

class TestTraceDiff : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void line_diff_data() {
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<QStringList>("want");
    QTest::newRow("equal") << "x\ny" << "x\ny" << QStringList{"  x", "  y"};
    QTest::newRow("one line changed") << "a\nb\nc" << "a\nB\nc" << QStringList{"  a", "- b", "+ B", "  c"};
    QTest::newRow("inserted") << "a\nc" << "a\nb\nc" << QStringList{"  a", "+ b", "  c"};
    QTest::newRow("removed at the end") << "a\nb" << "a" << QStringList{"  a", "- b"};
    QTest::newRow("from nothing") << "" << "a\nb" << QStringList{"+ a", "+ b"};
    QTest::newRow("common lines kept in the middle")
        << "for\nx\nacc\ny\nend" << "for\nacc\nz\nend" << QStringList{"  for", "- x", "  acc", "- y", "+ z", "  end"};
  }
  void line_diff() {
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(QStringList, want);
    QStringList got;
    for (const std::string& l : loupe::line_diff(a.toStdString(), b.toStdString())) got << QString::fromStdString(l);
    QCOMPARE(got, want);
  }

  // Replaying a diff reproduces both sides: its kept and removed lines are A, kept and added are B.
  void line_diff_reproduces_both_sides() {
    const std::string a = "void k() {\n  for (;;) {\n    x = 1;\n    y = 2;\n  }\n  z = 3;\n}", b = "void k() {\n  y = 2;\n  for (;;) {\n    x = 4;\n  }\n  z = 3;\n  w = 5;\n}";
    std::string ra, rb;
    for (const std::string& l : loupe::line_diff(a, b)) {
      if (l[0] != '+') ra += l.substr(2) + "\n";
      if (l[0] != '-') rb += l.substr(2) + "\n";
    }
    QCOMPARE(ra, a + "\n");
    QCOMPARE(rb, b + "\n");
  }

  void optimized_and_noopt_runs_pair_every_kernel_by_its_ast() {
    QTemporaryDir dir;
    const QString opt = record(dir, "opt", kProgram, false), noopt = record(dir, "noopt", kProgram, true);
    QVERIFY(!opt.isEmpty() && !noopt.isEmpty());
    QJsonObject d = diff_json(opt, noopt);
    const QJsonArray pairs = d["pairs"].toArray();
    QVERIFY(pairs.size() >= 2);
    int optsDiffer = 0;
    qint64 previous = -1;
    for (const QJsonValue& v : pairs) {
      const QJsonObject p = v.toObject();
      QCOMPARE(p["matched_by"].toString(), QString("ast"));  // names change with opts; the scheduled AST does not
      const QJsonObject a = p["a"].toObject(), b = p["b"].toObject();
      QVERIFY(a["runs"].toInt() >= 1 && b["runs"].toInt() >= 1);
      QCOMPARE(b["opts"].toArray().size(), 0);  // NOOPT
      QCOMPARE(qint64(p["change_ns"].toDouble()), qint64(b["total_ns"].toDouble() - a["total_ns"].toDouble()));
      QVERIFY(p["speedup"].toDouble() > 0);
      if (!a["opts"].toArray().isEmpty()) {
        optsDiffer++;
        QVERIFY(!p["source_diff"].toArray().isEmpty());  // other opts, other code
      }
      const qint64 change = std::llabs(qint64(p["change_ns"].toDouble()));
      if (previous >= 0) QVERIFY(change <= previous);  // largest change first
      previous = change;
    }
    QVERIFY(optsDiffer >= 1);
    // the text form names both runs and the pairing
    auto text = run_cli({"trace", opt, "--diff", noopt});
    QCOMPARE(text.code, 0);
    QVERIFY(text.out.contains("opts A: Opt(op=OptOps."));
    QVERIFY(text.out.contains(" ast "));
  }

  void a_kernel_only_one_run_has_is_listed_as_such() {
    QTemporaryDir dir;
    const QByteArray more = QByteArray(kProgram) + "extra = (Tensor.arange(100) * 3).realize().numpy()\n";
    const QString a = record(dir, "a", kProgram, false), b = record(dir, "b", more.constData(), false);
    QVERIFY(!a.isEmpty() && !b.isEmpty());
    const QJsonArray pairs = diff_json(a, b)["pairs"].toArray();
    int onlyB = 0, same = 0;
    for (const QJsonValue& v : pairs) {
      const QJsonObject p = v.toObject();
      if (!p.contains("a")) {
        onlyB++;
        QCOMPARE(p["matched_by"].toString(), QString());
      } else {
        QVERIFY(p.contains("b"));
        same += p["source_diff"].toArray().isEmpty();  // the same kernel, the same opts, the same source
      }
    }
    QCOMPARE(onlyB, 1);
    QVERIFY(same >= 2);
  }

  void a_missing_second_trace_is_a_clear_error() {
    QTemporaryDir dir;
    const QString a = record(dir, "a", kProgram, false);
    auto r = run_cli({"trace", a, "--diff", dir.filePath("nope.loupe")});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("nope.loupe"), qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestTraceDiff)
#include "tst_trace_diff.moc"
