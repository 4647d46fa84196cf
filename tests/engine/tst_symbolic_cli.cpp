// loupe-cli simplify (DESIGN.md §6): single expressions and --jsonl batches, exit statuses, and bad
// input (syntax errors with their column, unknown variables, empty ranges, division by zero).
#include <QtTest>

#include "support/json.h"

using namespace loupe;

namespace {

struct Run {
  int code = -1;
  QString out, err;
};

Run cli(const QStringList& args, const QByteArray& input = {}) {
  QProcess p;
  p.start(qEnvironmentVariable("LOUPE_CLI"), QStringList{"simplify"} + args);
  p.waitForStarted();
  if (!input.isEmpty()) p.write(input);
  p.closeWriteChannel();
  p.waitForFinished(60000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

} // namespace

class TestSymbolicCli : public QObject {
  Q_OBJECT
private slots:
  void initTestCase() {
    if (!QFileInfo(qEnvironmentVariable("LOUPE_CLI")).isExecutable()) QSKIP("LOUPE_CLI is not set to loupe-cli");
  }

  void single() {
    Run r = cli({"(a*4 + b) // 4", "--vars", "a=0:10,b=0:3"});
    QCOMPARE(r.code, 0);
    json::Value v = json::parse(r.out.trimmed().toStdString());
    QCOMPARE(v.at("simplified").as_string(), std::string("a"));
    QCOMPARE(v.at("nodes").as_int(), int64_t(1));
    QCOMPARE(v.at("vmin").as_int(), int64_t(0));
    QCOMPARE(v.at("vmax").as_int(), int64_t(10));
    QCOMPARE(r.out.count('\n'), 1);
  }

  void comparison_bounds_are_booleans() {
    Run r = cli({"a*2 < 7", "--vars=a=-3:5"});
    QCOMPARE(r.code, 0);
    json::Value v = json::parse(r.out.trimmed().toStdString());
    QCOMPARE(v.at("simplified").as_string(), std::string("(a<4)"));
    QCOMPARE(v.at("vmin").as_bool(), false);
    QCOMPARE(v.at("vmax").as_bool(), true);
    json::Value t = json::parse(cli({"a % 4 < 4", "--vars", "a=0:9"}).out.trimmed().toStdString());
    QCOMPARE(t.at("simplified").as_string(), std::string("True"));
    QCOMPARE(t.at("vmin").as_bool(), true);
  }

  void leading_minus_is_an_expression() {
    Run r = cli({"-a // 3", "--vars", "a=-8:7"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("\"simplified\""));
  }

  void bad_input_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("syntax") << QStringList{"a +* 2", "--vars", "a=0:3"} << "column 4: unexpected '*'";
    QTest::newRow("unclosed") << QStringList{"min(a, 2", "--vars", "a=0:3"} << "column 9: expected ')'";
    QTest::newRow("unknown variable") << QStringList{"a + q", "--vars", "a=0:3"} << "unknown variable 'q'";
    QTest::newRow("empty range") << QStringList{"a", "--vars", "a=5:1"} << "empty range";
    QTest::newRow("division by zero") << QStringList{"a // 0", "--vars", "a=0:3"} << "column 3: division by zero";
    QTest::newRow("modulo by zero expr") << QStringList{"a % (2*3 - 6)", "--vars", "a=0:3"} << "modulo by zero";
    QTest::newRow("divisor always zero") << QStringList{"a // (b - b)", "--vars", "a=0:3,b=0:2"} << "division by zero";
    QTest::newRow("bad vars") << QStringList{"a", "--vars", "a=0"} << "not name=lo:hi";
    QTest::newRow("no expression") << QStringList{"--vars", "a=0:1"} << "usage";
    QTest::newRow("two lt") << QStringList{"a < 1 < 2", "--vars", "a=0:3"} << "at most one '<'";
  }
  void bad_input() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    Run r = cli(args);
    QVERIFY2(r.code > 0, qPrintable(r.err));  // a clean non-zero exit, not a crash
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
  }

  void jsonl_batch_goes_on() {
    QByteArray in =
        "{\"id\": 1, \"vars\": {\"a\": [0, 9]}, \"expr\": \"(a*4+1)//4\"}\n"
        "{\"id\": \"bad\", \"vars\": {\"a\": [0, 9]}, \"expr\": \"a //\"}\n"
        "not json\n"
        "\n"
        "{\"id\": 3, \"vars\": {\"a\": [2, 1]}, \"expr\": \"a\"}\n"
        "{\"id\": 4, \"vars\": {\"a\": [0, 9]}, \"expr\": \"b\"}\n"
        "{\"id\": 5, \"vars\": {\"a\": [0, 9], \"b\": [1, 3]}, \"expr\": \"(a*b) % b\"}\n";
    Run r = cli({"--jsonl"}, in);
    QCOMPARE(r.code, 0);
    QStringList lines = r.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 6);
    std::vector<json::Value> v;
    for (const QString& l : lines) v.push_back(json::parse(l.toStdString()));
    QCOMPARE(v[0].at("id").as_int(), int64_t(1));
    QCOMPARE(v[0].at("simplified").as_string(), std::string("a"));
    QCOMPARE(v[1].at("id").as_string(), std::string("bad"));
    QVERIFY(v[1].at("error").as_string().find("column 5") != std::string::npos);
    QVERIFY(v[2].at("id").is_null());
    QVERIFY(v[2].find("error"));
    QVERIFY(v[3].at("error").as_string().find("empty range") != std::string::npos);
    QVERIFY(v[4].at("error").as_string().find("unknown variable 'b'") != std::string::npos);
    QCOMPARE(v[5].at("id").as_int(), int64_t(5));
    QCOMPARE(v[5].at("simplified").as_string(), std::string("0"));
  }
};

QTEST_APPLESS_MAIN(TestSymbolicCli)
#include "tst_symbolic_cli.moc"
