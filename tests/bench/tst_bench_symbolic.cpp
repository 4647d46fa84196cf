// Throughput of the symbolic simplifier: parse and simplify the whole symbolic corpus several times
// and print one JSON line. When python3 and tinygrad's source (/tmp/tgnew, or LOUPE_TINYGRAD) are
// present, tinygrad simplifies the same corpus in the same run and prints its own line for comparison.
// LOUPE_BENCH_ROUNDS sets the number of rounds (default 20). Rates use CPU time (the machines are
// shared); wall seconds are printed too. Measures only; asserts nothing timed.
#include <QtTest>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>

#include "support/json.h"
#include "symbolic/expr_parser.h"
#include "symbolic/symbolic.h"

using namespace loupe;

namespace {

// Same work in tinygrad: build each expression with UOp.variable, then .simplify(). One cold round:
// tinygrad caches div/mod foldings for the life of the process, so repeating would measure its cache.
const char* kTinygradScript = R"PY(
import json, sys, time
from tinygrad.uop.ops import UOp
cases = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rounds = int(sys.argv[2])
(UOp.variable("w", 0, 9) * 4 + 3).simplify()  # compiles the rule sets; the corpus itself runs cold
def mx(a, b): return a.maximum(b) if isinstance(a, UOp) else (b.maximum(a) if isinstance(b, UOp) else max(a, b))
def mn(a, b): return a.minimum(b) if isinstance(a, UOp) else (b.minimum(a) if isinstance(b, UOp) else min(a, b))
n, t0, c0 = 0, time.perf_counter(), time.process_time()
for _ in range(rounds):
  for c in cases:
    env = {k: UOp.variable(k, lo, hi) for k, (lo, hi) in c["vars"].items()}
    e = eval(c["expr"], {"__builtins__": {}, "min": mn, "max": mx}, env)
    if isinstance(e, UOp): e.simplify()
    n += 1
dt, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"name": "symbolic_corpus_tinygrad", "expressions": n, "seconds": dt, "cpu_seconds": cpu, "per_second": n / cpu}))
)PY";

} // namespace

class TestBenchSymbolic : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void corpus_throughput() {
    QString dir = qEnvironmentVariable("LOUPE_CORPUS");
    std::string path = dir.toStdString() + "/symbolic.jsonl";
    std::ifstream in(path);
    if (dir.isEmpty() || !in) QFAIL(qPrintable("cannot open the symbolic corpus '" + QString::fromStdString(path) + "' (LOUPE_CORPUS)"));
    std::vector<std::pair<std::string, VarRanges>> cases;
    std::string line;
    while (std::getline(in, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      json::Value c = json::parse(line);
      VarRanges vars;
      for (const auto& [name, r] : c.at("vars").as_object()) vars[name] = {r.as_array()[0].as_int(), r.as_array()[1].as_int()};
      cases.emplace_back(c.at("expr").as_string(), vars);
    }
    QVERIFY(!cases.empty());
    int rounds = qEnvironmentVariableIsSet("LOUPE_BENCH_ROUNDS") ? qEnvironmentVariableIntValue("LOUPE_BENCH_ROUNDS") : 20;
    size_t nodes = 0;
    for (const auto& [expr, vars] : cases) nodes += simplify(parse_index_expr(expr, vars))->toposort().size();  // warm-up
    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    size_t n = 0;
    for (int r = 0; r < rounds; r++)
      for (const auto& [expr, vars] : cases) {
        UOpPtr s = simplify(parse_index_expr(expr, vars));
        n += s != nullptr;
      }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    // per_second from CPU time: the shared build machine's load inflates wall time unevenly
    json::Value out(json::Object{{"name", "symbolic_corpus"},
                                 {"expressions", json::Value(static_cast<int64_t>(n))},
                                 {"seconds", secs},
                                 {"cpu_seconds", cpu},
                                 {"per_second", n / cpu}});
    std::printf("%s\n", out.dump().c_str());
    QVERIFY(nodes > 0);

    // tinygrad on the same corpus, when it can run here
    QString tg = qEnvironmentVariableIsSet("LOUPE_TINYGRAD") ? qEnvironmentVariable("LOUPE_TINYGRAD") : "/tmp/tgnew";
    if (!QFileInfo::exists(tg + "/tinygrad/uop/ops.py")) {
      qInfo("tinygrad not found at %s: no comparison", qPrintable(tg));
      return;
    }
    QTemporaryFile script;
    QVERIFY(script.open());
    script.write(kTinygradScript);
    script.flush();
    QProcess py;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PYTHONPATH", tg);
    py.setProcessEnvironment(env);
    py.start("python3", {script.fileName(), QString::fromStdString(path), QString::number(1)});
    if (!py.waitForFinished(600000) || py.exitCode() != 0) {
      qInfo("tinygrad run failed: %s", py.readAllStandardError().right(400).constData());
      return;
    }
    QByteArray tg_line = py.readAllStandardOutput().trimmed();
    std::printf("%s\n", tg_line.constData());
    json::Value t = json::parse(tg_line.toStdString());
    std::printf("{\"name\": \"symbolic_corpus_speedup\", \"vs_tinygrad\": %.1f}\n", (n / cpu) / t.at("per_second").as_double());
  }
};

QTEST_APPLESS_MAIN(TestBenchSymbolic)
#include "tst_bench_symbolic.moc"
