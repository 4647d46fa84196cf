// `loupe-cli run` and `loupe-cli eval` as a user and the corpus tool see them (DESIGN.md §6): Python
// programs (loops, functions, classes, numpy, tinygrad imports, their own arguments), output formats,
// exit codes, errors with the program's line on stderr, a --jsonl batch that answers every line in order
// and goes on after bad cases, DEBUG output kept out of the JSON, traces, and the bundled examples
// computing what tinygrad computes.
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "cli_process.h"
#include "support/json.h"

using namespace loupe;

namespace {

using Result = testing::CliResult;
Result cli(const QStringList& args, const QByteArray& input = {}) { return testing::run_cli(args, input); }

QString write_script(QTemporaryDir& dir, const QString& name, const QString& text) {
  return testing::write_script(dir.path(), name, text.toUtf8());
}

json::Value parse_line(const QString& line) { return json::parse(line.toStdString()); }

} // namespace

class TestCliPrograms : public QObject {
  Q_OBJECT
private slots:
  void initTestCase() {
    if (qEnvironmentVariable("LOUPE_CLI").isEmpty()) QSKIP("LOUPE_CLI is not set (CTest sets it)");
  }

  void devices_lists_every_kind_with_a_reason() {
    Result r = cli({"devices", "--json"});
    QCOMPARE(r.code, 0);
    json::Value v = parse_line(r.out.trimmed());
    std::vector<std::string> names;
    int defaults = 0;
    for (const json::Value& d : v.as_array()) {
      names.push_back(d.at("name").as_string());
      defaults += d.at("default").as_bool();
      // an unavailable device always says why, an available one has no reason
      QCOMPARE(d.at("reason").as_string().empty(), d.at("available").as_bool());
      if (d.at("name").as_string() == "CPU") QVERIFY(d.at("available").as_bool());
    }
    QCOMPARE(defaults, 1);
    for (const char* k : {"CPU", "OPENCL", "CUDA"}) QVERIFY2(std::count(names.begin(), names.end(), k) == 1, k);
    Result text = cli({"devices"});
    QCOMPARE(text.code, 0);
    QVERIFY2(text.out.contains("* ") && text.out.contains("CPU"), qPrintable(text.out));
    Result bad = cli({"devices", "--bogus"});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains("--bogus"), qPrintable(bad.err));
  }

  void eval_single() {
    QTemporaryDir dir;
    QString s = write_script(dir, "a.py", "x = Tensor.arange(6).reshape(2, 3)\nout = x * 2 - 1\n");
    Result r = cli({"eval", s, "--json"});
    QCOMPARE(r.code, 0);
    json::Value v = parse_line(r.out.trimmed());
    QCOMPARE(QString::fromStdString(v.at("id").as_string()), s);
    QCOMPARE(v.at("shape").as_ints(), (std::vector<int64_t>{2, 3}));
    QCOMPARE(QString::fromStdString(v.at("dtype").as_string()), QString("int32"));
    QCOMPARE(v.at("values").as_ints(), (std::vector<int64_t>{-1, 1, 3, 5, 7, 9}));
    QVERIFY(v.at("kernels").as_int() >= 1);
  }

  void eval_single_error() {
    QTemporaryDir dir;
    QString s = write_script(dir, "bad.py", "x = Tensor.ones(2)\ny = x.reshape(3)\nout = y\n");
    Result r = cli({"eval", s, "--json"});
    QCOMPARE(r.code, 1);
    json::Value v = parse_line(r.out.trimmed());
    QString error = QString::fromStdString(v.at("error").as_string());
    QVERIFY2(error.startsWith("ValueError: cannot reshape") && error.endsWith("(line 2)"), qPrintable(error));
    QVERIFY2(r.err.contains(error), qPrintable(r.err));
    Result syntax = cli({"eval", write_script(dir, "syntax.py", "out = (1 +\n"), "--json"});
    QCOMPARE(syntax.code, 1);
    QVERIFY2(syntax.err.contains("SyntaxError: '(' was never closed") && syntax.err.contains("(line 1:7)"), qPrintable(syntax.err));
    Result missing = cli({"eval", dir.filePath("nope.py"), "--json"});
    QCOMPARE(missing.code, 1);
    QVERIFY2(missing.err.contains("cannot read the program"), qPrintable(missing.err));
  }

  void eval_batch_goes_on() {
    QByteArray in;
    in += "{\"id\": \"ok1\", \"program\": \"out = Tensor([1.5, -2.0]) * 2\"}\n";
    in += "{\"id\": \"syntax\", \"program\": \"out = (1 +\"}\n";
    in += "\n";
    in += "{\"id\": \"method\", \"program\": \"x = Tensor.ones(2)\\nout = x.frobnicate()\"}\n";
    in += "this is not json\n";
    in += "{\"id\": 5, \"prog\": \"out = Tensor(1)\"}\n";
    in += "{\"id\": \"shapes\", \"program\": \"out = Tensor.ones(2, 3) + Tensor.ones(4)\"}\n";
    in += "{\"id\": \"noout\", \"program\": \"y = Tensor.ones(2)\"}\n";
    in += "{\"id\": \"nan\", \"program\": \"out = Tensor([1.0, -1.0, 0.0]) / 0\"}\n";
    in += "{\"id\": \"bool\", \"program\": \"out = Tensor.arange(3) > 0\"}\n";
    in += "{\"id\": \"u64\", \"program\": \"out = Tensor([2**63, 1], dtype=dtypes.uint64) + 1\"}\n";
    Result r = cli({"eval", "--jsonl"}, in);
    QCOMPARE(r.code, 0);
    QStringList lines = r.out.split("\n", Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 10);
    std::vector<json::Value> v;
    for (const QString& l : lines) v.push_back(parse_line(l));
    QCOMPARE(v[0].at("id").as_string(), std::string("ok1"));
    QCOMPARE(v[0].at("values").as_array()[0].as_double(), 3.0);
    QCOMPARE(QString::fromStdString(v[1].at("error").as_string()), QString("SyntaxError: '(' was never closed (line 1:7)"));
    QString method = QString::fromStdString(v[2].at("error").as_string());
    QVERIFY2(method.startsWith("AttributeError: ") && method.contains("'frobnicate'") && method.endsWith("(line 2)"), qPrintable(method));
    QVERIFY(v[3].at("id").is_null());
    QVERIFY(v[3].at("error").as_string().find("JSON") != std::string::npos);
    QCOMPARE(v[4].at("id").as_int(), int64_t(5));
    QVERIFY(v[4].at("error").as_string().find("program") != std::string::npos);
    QVERIFY2(QString::fromStdString(v[5].at("error").as_string()).endsWith("(line 1)"), v[5].at("error").as_string().c_str());
    QCOMPARE(QString::fromStdString(v[6].at("error").as_string()), QString("NameError: the program does not assign 'out' (its result)"));
    QCOMPARE(QString::fromStdString(json::Value(v[7].at("values")).dump()), QString("[\"inf\", \"-inf\", \"nan\"]"));
    QCOMPARE(QString::fromStdString(json::Value(v[8].at("values")).dump()), QString("[false, true, true]"));
    QCOMPARE(QString::fromStdString(v[9].at("dtype").as_string()), QString("uint64"));
    QVERIFY2(lines[9].contains("[9223372036854775809, 2]"), qPrintable(lines[9]));
  }

  void debug_output_stays_out_of_json() {
    QByteArray in = "{\"id\": 1, \"program\": \"out = (Tensor.arange(4) + 1).sum()\"}\n";
    Result r = cli({"eval", "--jsonl", "--debug", "2"}, in);
    QCOMPARE(r.code, 0);
    QStringList lines = r.out.split("\n", Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1);
    QCOMPARE(parse_line(lines[0]).at("values").as_ints(), std::vector<int64_t>{10});
    QVERIFY2(r.err.contains("***"), qPrintable(r.err));  // the DEBUG=2 kernel lines
  }

  void run_prints_numpy_style() {
    QTemporaryDir dir;
    QString s = write_script(dir, "a.py", "x = Tensor.arange(6).reshape(2, 3).float()\nout = x / 4\n");
    Result r = cli({"run", s});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("out: shape (2, 3), dtype float32"), qPrintable(r.out));
    QVERIFY2(r.out.contains("[[0.   0.25 0.5 ]\n [0.75 1.   1.25]]"), qPrintable(r.out));
  }

  void run_errors() {
    QTemporaryDir dir;
    Result r = cli({"run", write_script(dir, "a.py", "import os\n\ndef f():\n    raise ValueError('boom')\nf()\n")});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("Traceback (most recent call last):") && r.err.contains("line 4, in f") &&
                 r.err.trimmed().endsWith("ValueError: boom"),
             qPrintable(r.err));
    QVERIFY2(!r.err.contains("_runner.py"), qPrintable(r.err));  // the traceback is the program's own
    QVERIFY(r.out.isEmpty());
    Result shapes = cli({"run", write_script(dir, "b.py", "a = Tensor.ones(2, 3)\nout = a.reshape(4, 2)\n")});
    QCOMPARE(shapes.code, 1);
    QVERIFY2(shapes.err.contains("line 2, in <module>") && shapes.err.contains("ValueError: cannot reshape"), qPrintable(shapes.err));
    Result opt = cli({"run", write_script(dir, "c.py", "out = Tensor(1)\n"), "--beam", "x"});
    QCOMPARE(opt.code, 1);
    QVERIFY2(opt.err.contains("--beam needs an integer"), qPrintable(opt.err));
    Result dev = cli({"run", write_script(dir, "d.py", "out = Tensor.ones(2) + 1\n"), "--device", "NOSUCHDEVICE"});
    QCOMPARE(dev.code, 1);
    QVERIFY2(dev.err.contains("NOSUCHDEVICE"), qPrintable(dev.err));
    Result exit_code = cli({"run", write_script(dir, "e.py", "import sys\nsys.exit(3)\n")});
    QCOMPARE(exit_code.code, 3);
  }

  // What the Python runner exists for: real programs, unchanged.
  void run_real_python() {
    QTemporaryDir dir;
    QString program = write_script(dir, "model.py",
                                   "import sys\n"
                                   "import numpy as np\n"
                                   "from tinygrad import Tensor, nn\n"
                                   "from tinygrad.nn.state import get_parameters\n"
                                   "class Net:\n"
                                   "  def __init__(self):\n"
                                   "    self.layers = [nn.Linear(4, 8), nn.Linear(8, 2)]\n"
                                   "  def __call__(self, x):\n"
                                   "    for i, l in enumerate(self.layers):\n"
                                   "      x = l(x)\n"
                                   "      if i == 0: x = x.relu()\n"
                                   "    return x\n"
                                   "Tensor.manual_seed(0)\n"
                                   "net = Net()\n"
                                   "x = Tensor(np.ones((3, 4), dtype=np.float32))\n"
                                   "print('params', len(get_parameters(net)), 'args', sys.argv[1:])\n"
                                   "out = net(x).sum(1)\n");
    Result r = cli({"run", program, "--", "--steps", "2"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("params 4 args ['--steps', '2']"), qPrintable(r.out));
    QVERIFY2(r.out.contains("out: shape (3,), dtype float32"), qPrintable(r.out));
  }

  void run_writes_trace() {
    QTemporaryDir dir;
    QString trace = dir.filePath("t.loupe");
    Result r = cli({"run", write_script(dir, "a.py", "out = (Tensor.arange(8).float() * 2).sum()\n"), "--trace", trace});
    QCOMPARE(r.code, 0);
    QFile f(trace);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.read(16).startsWith("SQLite format 3"));
  }

  // The bundled examples compute what tinygrad computes (values recorded from tinygrad 0.13 on CPU).
  void examples_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("shape");
    QTest::addColumn<QString>("values");
    QTest::newRow("matmul_relu_sum") << "matmul_relu_sum.py" << "[3]" << "[0.0, 0.21115374565124512, 3.569182872772217]";
    QTest::newRow("mlp_forward") << "mlp_forward.py" << "[4, 3]"
                                 << "[0.4939606785774231, 0.2943572402000427, 0.2116820067167282, 0.41076576709747314, "
                                    "0.3098400831222534, 0.27939414978027344, 0.32839536666870117, 0.32161185145378113, "
                                    "0.3499927818775177, 0.20928595960140228, 0.3069436252117157, 0.483770489692688]";
    QTest::newRow("softmax") << "softmax.py" << "[3, 3]"
                             << "[0.09003057330846786, 0.2447284758090973, 0.6652409434318542, 0.09003057330846786, "
                                "0.2447284758090973, 0.6652409434318542, 0.9589005708694458, 0.003918807953596115, 0.03718061000108719]";
    QTest::newRow("padded_conv_view") << "padded_conv_view.py" << "[6, 6]"
                                      << "[-9.0, -6.0, -6.0, -6.0, -6.0, 18.0, -28.0, -8.0, -8.0, -8.0, -8.0, 40.0, -52.0, -8.0, -8.0, "
                                         "-8.0, -8.0, 64.0, -76.0, -8.0, -8.0, -8.0, -8.0, 88.0, -100.0, -8.0, -8.0, -8.0, -8.0, 112.0, "
                                         "-87.0, -6.0, -6.0, -6.0, -6.0, 96.0]";
  }
  void examples() {
    QFETCH(QString, file);
    QFETCH(QString, shape);
    QFETCH(QString, values);
    QString path = qEnvironmentVariable("LOUPE_SOURCE_DIR") + "/resources/examples/" + file;
    QVERIFY2(QFile::exists(path), qPrintable(path));
    Result r = cli({"eval", path, "--json"});
    QCOMPARE(r.code, 0);
    json::Value v = parse_line(r.out.trimmed());
    QCOMPARE(QString::fromStdString(json::Value(v.at("shape")).dump()), shape);
    QCOMPARE(QString::fromStdString(v.at("dtype").as_string()), QString("float32"));
    const json::Array& got = v.at("values").as_array();
    json::Value want = json::parse(values.toStdString());
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < got.size(); i++) {
      double g = got[i].as_double(), w = want.as_array()[i].as_double();
      QVERIFY2(std::fabs(g - w) <= 1e-5 + 1e-5 * std::fabs(w), qPrintable(QString("value %1: %2 vs %3").arg(i).arg(g).arg(w)));
    }
  }
};

QTEST_APPLESS_MAIN(TestCliPrograms)
#include "tst_cli_programs.moc"
