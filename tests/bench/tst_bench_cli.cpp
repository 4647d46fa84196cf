// loupe-cli bench (DESIGN.md §9): the JSON object's shape for two workloads (every number positive and
// finite, names present, exact key sets), the table mode, and bad arguments. No timed assertions.
#include <QtTest>

#include <cmath>
#include <set>

#include "support/json.h"

using namespace loupe;

namespace {

struct Run {
  int code = -1;
  QString out, err;
};

Run cli(const QStringList& args, int timeout_ms = 600000) {
  QProcess p;
  p.start(qEnvironmentVariable("LOUPE_CLI"), QStringList{"bench"} + args);
  p.waitForStarted();
  p.closeWriteChannel();
  p.waitForFinished(timeout_ms);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

std::set<std::string> keys(const json::Value& o) {
  std::set<std::string> k;
  for (const auto& [name, v] : o.as_object()) k.insert(name);
  return k;
}

void positive(const json::Value& o, const char* key) {
  const json::Value& v = o.at(key);
  QVERIFY2(v.is_number(), key);
  QVERIFY2(std::isfinite(v.as_double()) && v.as_double() > 0, key);
}

} // namespace

class TestBenchCli : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() {
    if (!QFileInfo(qEnvironmentVariable("LOUPE_CLI")).isExecutable()) QSKIP("LOUPE_CLI is not set to loupe-cli");
  }

  void json_shape() {
    Run r = cli({"--only", "matmul_256,add_16m", "--json", "--runs", "3"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(r.out.count('\n'), 1);  // one object, one line
    json::Value v = json::parse(r.out.trimmed().toStdString());
    QCOMPARE(keys(v), (std::set<std::string>{"machine", "workloads", "pipeline", "loops", "memory"}));
    QVERIFY(v.at("loops").as_array().empty());  // the training loop runs with the full suite or by name

    const json::Value& m = v.at("machine");
    QCOMPARE(keys(m), (std::set<std::string>{"device", "threads", "peak_gflops", "bandwidth_gbs"}));
    QCOMPARE(m.at("device").as_string(), std::string("CPU"));
    QVERIFY(m.at("threads").as_int() >= 1);
    positive(m, "peak_gflops");
    positive(m, "bandwidth_gbs");

    const json::Array& ws = v.at("workloads").as_array();
    QCOMPARE(int(ws.size()), 2);
    QCOMPARE(ws[0].at("name").as_string(), std::string("matmul_256"));
    QCOMPARE(ws[1].at("name").as_string(), std::string("add_16m"));
    for (const json::Value& w : ws) {
      QCOMPARE(keys(w), (std::set<std::string>{"name", "opt", "noopt"}));
      for (const char* variant : {"opt", "noopt"}) {
        const json::Value& x = w.at(variant);
        QCOMPARE(keys(x), (std::set<std::string>{"seconds", "best_seconds", "gflops", "gbs", "kernels", "names"}));
        positive(x, "seconds");
        positive(x, "best_seconds");
        QVERIFY(x.at("best_seconds").as_double() <= x.at("seconds").as_double());  // the fastest run, the median
        positive(x, "gflops");
        positive(x, "gbs");
        QVERIFY(x.at("kernels").as_int() >= 1);
        const json::Array& names = x.at("names").as_array();
        QCOMPARE(int64_t(names.size()), x.at("kernels").as_int());
        for (const json::Value& n : names) QVERIFY(!n.as_string().empty());
      }
    }
    // a 256^3 matmul is 2*256^3 FLOPs; its one kernel's name is a reduce kernel
    const json::Value& mm = ws[0].at("opt");
    QCOMPARE(mm.at("kernels").as_int(), int64_t(1));
    QVERIFY(mm.at("names").as_array()[0].as_string().rfind("r_", 0) == 0);
    QVERIFY(ws[1].at("opt").at("names").as_array()[0].as_string().rfind("E_", 0) == 0);

    const json::Array& ps = v.at("pipeline").as_array();
    QCOMPARE(int(ps.size()), 2);
    for (size_t i = 0; i < ps.size(); i++) {
      QCOMPARE(ps[i].at("name").as_string(), ws[i].at("name").as_string());
      QCOMPARE(keys(ps[i]), (std::set<std::string>{"name", "kernels", "seconds", "kernels_per_second"}));
      QVERIFY(ps[i].at("kernels").as_int() >= 1);
      positive(ps[i], "seconds");
      positive(ps[i], "kernels_per_second");
      double expect = double(ps[i].at("kernels").as_int()) / ps[i].at("seconds").as_double();
      QVERIFY(std::abs(ps[i].at("kernels_per_second").as_double() - expect) <= 1e-6 * expect);
    }
  }

  // --optimized-only: the optimized runs alone (a vendor comparison's), no NOOPT numbers.
  void optimized_only() {
    Run r = cli({"--only", "matmul_256", "--json", "--runs", "3", "--no-machine", "--optimized-only"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    json::Value v = json::parse(r.out.trimmed().toStdString());
    const json::Array& ws = v.at("workloads").as_array();
    QCOMPARE(int(ws.size()), 1);
    QCOMPARE(keys(ws[0]), (std::set<std::string>{"name", "opt"}));
    positive(ws[0].at("opt"), "best_seconds");
  }

  // The training loop: a step's time, kernel time and host share, plain and through TinyJit, and the
  // step's memory with and without the planner.
  void train_step_jit() {
    Run r = cli({"--only", "train_step_jit", "--json", "--steps", "8", "--no-machine"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    json::Value v = json::parse(r.out.trimmed().toStdString());
    QVERIFY(v.at("workloads").as_array().empty());
    const json::Array& loops = v.at("loops").as_array();
    QCOMPARE(int(loops.size()), 1);
    const json::Value& l = loops[0];
    QCOMPARE(l.at("name").as_string(), std::string("train_step_jit"));
    QCOMPARE(l.at("steps").as_int(), int64_t(8));
    QVERIFY(l.at("kernels_per_step").as_int() >= 3);
    for (const char* mode : {"plain", "jit"}) {
      positive(l.at(mode), "seconds_per_step");
      positive(l.at(mode), "kernel_seconds_per_step");
      QVERIFY(l.at(mode).at("seconds_per_step").as_double() >= l.at(mode).at("kernel_seconds_per_step").as_double());
    }
    const json::Value& m = l.at("memory");
    positive(m, "persistent_bytes");
    positive(m, "unplanned_bytes");
    QVERIFY(m.at("planned_bytes").as_int() <= m.at("unplanned_bytes").as_int());
    QCOMPARE(v.at("memory").as_array().size(), size_t(1));
  }

  void table_mode() {
    Run r = cli({"--only", "add_16m", "--runs", "1", "--no-machine", "--quiet"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("workload"));
    QVERIFY(r.out.contains("add_16m"));
    QVERIFY(r.out.contains("pipeline"));
    QVERIFY(r.err.isEmpty());
  }

  void bad_arguments_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown workload") << QStringList{"--only", "matmul_3"} << "unknown workload 'matmul_3'";
    QTest::newRow("unknown option") << QStringList{"--fast"} << "unknown option --fast";
    QTest::newRow("bad runs") << QStringList{"--runs", "0"} << "--runs needs an integer of at least 1";
    QTest::newRow("runs not a number") << QStringList{"--runs", "3x"} << "--runs needs an integer of at least 1";
    QTest::newRow("too few steps") << QStringList{"--steps", "2"} << "--steps needs an integer of at least 5";
    QTest::newRow("unknown device") << QStringList{"--device", "TPU", "--only", "add_16m"} << "TPU";
    QTest::newRow("empty only") << QStringList{"--only", ","} << "--only needs workload names";
    QTest::newRow("stray argument") << QStringList{"matmul_256"} << "unexpected argument 'matmul_256'";
  }
  void bad_arguments() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    Run r = cli(args, 60000);
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
  }
};

QTEST_APPLESS_MAIN(TestBenchCli)
#include "tst_bench_cli.moc"
