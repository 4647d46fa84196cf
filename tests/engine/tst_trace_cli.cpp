// `loupe-cli trace`: listing, graph at a step (text, dot, JSON), a match's rule and diff, kernel
// sources, DEBUG=2 profile lines, -t aggregation, rule table, Chrome trace export, and errors.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "engine/tst_trace_fixtures.h"
#include "ir/print.h"
#include "trace/graph_at_step.h"
#include "trace/profile_report.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"
#include "trace/uop_diff.h"

using namespace loupe;
using namespace trace_fixtures;

namespace {
struct Result {
  int code;
  QString out, err;
};

Result cli(const QStringList& args) {
  QProcess p;
  p.start(QString::fromLocal8Bit(qgetenv("LOUPE_CLI")), QStringList{"trace"} + args);
  p.waitForFinished(120000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

QJsonObject json_of(const QString& text) {
  QJsonParseError err;
  QJsonDocument d = QJsonDocument::fromJson(text.toUtf8(), &err);
  if (err.error != QJsonParseError::NoError) qWarning() << err.errorString() << text.left(300);
  return d.object();
}
} // namespace

class TestTraceCli : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString path_;
  std::vector<LoggedPass> logged_;

private slots:
  void initTestCase() {
    QVERIFY(!qgetenv("LOUPE_CLI").isEmpty());
    path_ = dir_.filePath("t.loupe");
    PatternMatcher pm = simple_rules();
    auto x = UOp::variable("x", 0, 10), y = UOp::variable("y", 0, 10);
    UOpPtr g = UOp::make(Ops::SINK, dtypes::void_, {(x * 1) + (x * 1), (y + 0) * 3});
    PassLog log;
    TraceWriter w(path_.toStdString());
    ListenerScope s1(&log), s2(&w);
    w.begin_context("schedule", "schedule 1");
    graph_rewrite(g, pm, {.name = "simplify"});
    graph_rewrite(g, pm, {.bottom_up = true, .name = "simplify bottom-up"});
    w.end_context();
    w.begin_context("kernel", "r_4_4");
    KernelRecord k;
    k.name = "r_4_4";
    k.device = "CPU";
    k.ast = g;
    k.opts = {"UPCAST 0 4"};
    k.global_size = {4, 1, 1};
    k.sources = {{"C", "opt", "void r_4_4(float* restrict data0) { /* fast */ }\n"},
                 {"C", "noopt", "void r_4_4(float* restrict data0) { /* slow */ }\n"}};
    k.flops = 2'000'000;
    k.lds = 4'000'000;
    k.mem = 3'000'000;
    int64_t kid = w.record_kernel(k);
    w.end_context();
    w.record_alloc({"CPU", 1, 1'000'000'000, 0, "float32"});
    w.record_kernel_run({"CPU", "r_4_4", kid, 1000, 2'000'000, k.flops, k.mem, k.lds, 3});
    w.record_kernel_run({"CPU", "r_4_4", kid, 3'000'000, 1'000'000, k.flops, k.mem, k.lds, 3});
    w.record_kernel_run({"CPU", "E_16", -1, 5'000'000, 1'000'000, 16, 128, 128, 2});
    w.record_copy({"PYTHON", "CPU", 64, 500, 100, "copy 64, CPU <- PYTHON"});
    w.record_peaks({"CPU", 100, 10});
    logged_ = log.passes;
  }

  void lists_contexts_and_passes_with_match_counts() {
    Result r = cli({path_});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("context 1  schedule  schedule 1  (2 passes"));
    QVERIFY(r.out.contains(QString("simplify") + QString(28, ' ') + QString::number(logged_[0].matches.size()) + " matches"));
    QVERIFY(r.out.contains("bottom_up"));
    QVERIFY(r.out.contains("tests/engine/tst_trace_cli.cpp:"));
    QJsonObject j = json_of(cli({path_, "--json"}).out);
    QCOMPARE(j["contexts"].toArray().size(), 2);
    QJsonArray ps = j["contexts"].toArray()[0].toObject()["passes"].toArray();
    QCOMPARE(ps.size(), 2);
    QCOMPARE(ps[1].toObject()["matches"].toInt(), int(logged_[1].matches.size()));
    QCOMPARE(ps[1].toObject()["bottom_up"].toBool(), true);
  }

  void graph_at_every_step_as_text_json_and_dot() {
    for (int pass = 0; pass < 2; pass++) {
      UOpList expected = expected_steps(logged_[size_t(pass)]);
      for (size_t step = 0; step < expected.size(); step++) {
        QStringList where{"1", QString::number(pass), QString::number(step)};
        Result r = cli(QStringList{path_, "--graph"} + where);
        QCOMPARE(r.code, 0);
        QString listing = r.out.section('\n', 1);
        QCOMPARE(listing, QString::fromStdString(print_graph(expected[step])));
        QJsonObject j = json_of(cli(QStringList{path_, "--json", "--graph"} + where).out);
        QJsonArray nodes = j["nodes"].toArray();
        std::vector<std::string> keys;
        for (const auto& n : nodes) keys.push_back(n.toObject()["key"].toString().toStdString());
        QCOMPARE(keys, node_keys(expected[step]));
      }
    }
    Result dot = cli({path_, "--graph", "1", "0", "1", "--dot"});
    QVERIFY(dot.out.startsWith("digraph uops {"));
    QVERIFY(dot.out.contains("penwidth=3"));  // the step's changed nodes
    QVERIFY(dot.out.contains("DEFINE_VAR"));
  }

  void match_shows_rule_location_and_diff() {
    const LoggedPass& lp = logged_[0];
    Result r = cli({path_, "--match", "1", "0", "1"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains(QString("rule ") + QString::fromStdString(lp.rules[0])));
    QVERIFY(r.out.contains("tst_trace_fixtures.h:"));
    QVERIFY(r.out.contains(QString::fromStdString(render_expr(lp.matches[0].first) + "  ->  " + render_expr(lp.matches[0].second))));
    std::vector<std::string> diff = unified_diff(uop_listing(lp.matches[0].first), uop_listing(lp.matches[0].second));
    QVERIFY(!diff.empty());
    for (const std::string& l : diff) QVERIFY2(r.out.contains(QString::fromStdString(l)), l.c_str());
    QJsonObject j = json_of(cli({path_, "--json", "--match", "1", "0", "1"}).out);
    QCOMPARE(j["rule"].toString().toStdString(), lp.rules[0]);
    QCOMPARE(j["diff"].toArray().size(), int(diff.size()));
    Result bad = cli({path_, "--match", "1", "0", "0"});
    QCOMPARE(bad.code, 1);
    QVERIFY(bad.err.contains("has matches 1.."));
  }

  // --why: the node is found by index or key prefix; this trace's "simplify" ran test rules this build's
  // symbolic rule set does not have, which the error says (tst_why_not checks verdicts on real traces).
  void why_names_the_node_and_a_foreign_rule_set() {
    Result r = cli({path_, "--why", "1", "0", "0", "0"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("another version of Loupe") && r.err.contains("mul_one"), qPrintable(r.err));
    Result bad = cli({path_, "--why", "1", "0", "0", "999"});
    QVERIFY2(bad.code == 1 && bad.err.contains("not 999"), qPrintable(bad.err));
    Result key = cli({path_, "--why", "1", "0", "0", "%zz"});
    QVERIFY2(key.code == 1 && key.err.contains("no node of this step's graph has a key starting with zz"), qPrintable(key.err));
  }

  void kernel_shows_source_and_noopt_source() {
    Result r = cli({path_, "--kernel", "r_4_4"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("/* fast */"));
    QVERIFY(r.out.contains("(NOOPT)"));
    QVERIFY(r.out.contains("/* slow */"));
    QVERIFY(r.out.indexOf("/* fast */") < r.out.indexOf("/* slow */"));
    QVERIFY(r.out.contains("UPCAST 0 4"));
    QJsonArray j = QJsonDocument::fromJson(cli({path_, "--json", "--kernel", "r_4_4"}).out.toUtf8()).array();
    QCOMPARE(j.size(), 1);
    QCOMPARE(j[0].toObject()["sources"].toArray().size(), 2);
    Result missing = cli({path_, "--kernel", "nope"});
    QCOMPARE(missing.code, 1);
    QVERIFY(missing.err.contains("no kernel named 'nope'"));
  }

  void profile_prints_debug2_lines_and_top_kernels() {
    Result r = cli({path_, "--profile"});
    QCOMPARE(r.code, 0);
    QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
    // copy at 500 ns, then r_4_4 twice, then E_16, then the peak line
    QCOMPARE(lines.size(), 5);
    QVERIFY(lines[0].startsWith("*** CPU        1 copy 64, CPU <- PYTHON"));
    // 2e6 flops in 2 ms = 1 GFLOPS; min(mem, lds) 3e6 B in 2 ms = 1.5 GB/s; lds 2 GB/s; 1 GB allocated
    QCOMPARE(lines[1], QString("*** CPU        2 r_4_4") + QString(36, ' ') +
                           " arg  3 mem  1.00 GB tm   2000.00us/     2.00ms (     1.00 GFLOPS    1.5|2.0     GB/s)");
    QVERIFY(lines[2].contains("tm   1000.00us/     3.00ms (     2.00 GFLOPS"));
    QVERIFY(lines[4].startsWith("peak CPU: 100 GFLOPS, 10 GB/s"));
    Result t = cli({path_, "-t"});
    QStringList tl = t.out.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(tl.size(), 4);  // header, r_4_4, E_16, copy
    QVERIFY(tl[1].startsWith("CPU     r_4_4"));
    QVERIFY(tl[1].contains("      2  75.00%"));  // 3 ms of 4.0001 ms
    QJsonObject j = json_of(cli({path_, "-t", "1", "--json"}).out);
    QJsonArray top = j["top"].toArray();
    QCOMPARE(top.size(), 1);
    QCOMPARE(top[0].toObject()["count"].toInt(), 2);
    QCOMPARE(top[0].toObject()["gflops"].toDouble(), 4e6 / 3e6);
    QVERIFY(cli({path_, "-t", "1"}).out.contains("Other"));
    QJsonObject pj = json_of(cli({path_, "--profile", "--json"}).out);
    QCOMPARE(pj["events"].toArray().size(), 5);
  }

  void time_to_str_matches_tinygrad() {
    QCOMPARE(QString::fromStdString(time_to_str(0.37358, 9)), QString("   373.58ms"));
    QCOMPARE(QString::fromStdString(time_to_str(12.5, 9)), QString("    12.50s "));
    QCOMPARE(QString::fromStdString(time_to_str(0.00123, 9)), QString("  1230.00us"));
  }

  void rules_table() {
    Result r = cli({path_, "--rules"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("mul_one"));
    QVERIFY(r.out.contains("tst_trace_fixtures.h:"));
  }

  void chrome_trace_export() {
    QString out = dir_.filePath("chrome.json");
    Result r = cli({path_, "--chrome", out});
    QCOMPARE(r.code, 0);
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonObject j = QJsonDocument::fromJson(f.readAll()).object();
    QJsonArray ev = j["traceEvents"].toArray();
    int kernels = 0, copies = 0, passes = 0, counters = 0;
    for (const auto& v : ev) {
      QJsonObject e = v.toObject();
      if (e["ph"] == "X" && e["cat"] == "kernel") {
        kernels++;
        QVERIFY(e["dur"].toDouble() > 0);
      }
      if (e["ph"] == "X" && e["cat"] == "copy") copies++;
      if (e["ph"] == "X" && e["cat"] == "pass") passes++;
      if (e["ph"] == "C") counters++;
    }
    QCOMPARE(kernels, 3);
    QCOMPARE(copies, 1);
    QCOMPARE(passes, 2);
    QCOMPARE(counters, 1);
  }

  void errors_name_the_file() {
    QString text = dir_.filePath("notes.txt");
    QFile f(text);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("hello");
    f.close();
    Result r = cli({text});
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.contains(text));
    QVERIFY(r.err.contains("not a SQLite database"));
    Result g = cli({path_, "--graph", "1", "7", "0"});
    QCOMPARE(g.code, 1);
    QVERIFY(g.err.contains("no pass 7"));
    Result s = cli({path_, "--graph", "1", "0", "999"});
    QCOMPARE(s.code, 1);
    QVERIFY(s.err.contains("has steps 0.."));
    QCOMPARE(cli({path_, "--bogus"}).code, 1);
    QCOMPARE(cli({}).code, 1);
  }

  void unified_diff_hunks() {
    std::vector<std::string> a{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"};
    std::vector<std::string> b = a;
    b[1] = "two";
    b.erase(b.begin() + 10);
    std::vector<std::string> d = unified_diff(a, b, 1);
    std::vector<std::string> want{"@@ -1,3 +1,3 @@", " 1", "-2", "+two", " 3", "@@ -10,3 +10,2 @@", " 10", "-11", " 12"};
    QCOMPARE(d, want);
    QVERIFY(unified_diff(a, a).empty());
  }
};

QTEST_APPLESS_MAIN(TestTraceCli)
#include "tst_trace_cli.moc"
