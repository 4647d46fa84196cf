// What `loupe-cli run` and `eval` print, without running kernels: numpy-style arrays, the eval JSON
// lines, shortest float forms per dtype, and the command-line options.
#include <QtTest>

#include <cmath>

#include "program/array_format.h"
#include "program/run_options.h"
#include "program/eval_result.h"
#include "support/error.h"
#include "support/json.h"

using namespace loupe;
using namespace loupe::program;

namespace {

EvalResult floats(Shape shape, std::vector<double> v, DType d = dtypes::float32) {
  EvalResult r;
  r.shape = std::move(shape);
  r.dtype = d;
  r.floats = std::move(v);
  return r;
}
EvalResult ints(Shape shape, std::vector<int64_t> v, DType d = dtypes::int32) {
  EvalResult r;
  r.shape = std::move(shape);
  r.dtype = d;
  r.ints = std::move(v);
  return r;
}
std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) v[size_t(i)] = i;
  return v;
}
QString fmt(const EvalResult& r) { return QString::fromStdString(format_array(r)); }

QString cli_error(const std::vector<std::string>& args, ScriptCommand cmd) {
  try {
    parse_script_command_line(args, cmd);
  } catch (const Error& e) {
    return QString::fromUtf8(e.what());
  }
  return "(no error)";
}

} // namespace

class TestProgramOutput : public QObject {
  Q_OBJECT
private slots:
  void numpy_style() {
    // expectations are numpy's print() of the same arrays
    QCOMPARE(fmt(floats({4}, {0, 0.25, 0.5, 0.75})), QString("[0.   0.25 0.5  0.75]"));
    QCOMPARE(fmt(floats({3}, {1, 2, 3})), QString("[1. 2. 3.]"));
    QCOMPARE(fmt(floats({2}, {-1.5, 2})), QString("[-1.5  2. ]"));
    QCOMPARE(fmt(floats({1}, {double(0.1f)})), QString("[0.1]"));  // float32's shortest form
    QCOMPARE(fmt(floats({1}, {0.1})), QString("[0.1]"));
    QCOMPARE(fmt(floats({1}, {double(_Float16(0.1))}, dtypes::float16)), QString("[0.1]"));
    QCOMPARE(fmt(floats({1}, {0.123456789}, dtypes::float64)), QString("[0.12345679]"));
    QCOMPARE(fmt(floats({2}, {1e-5, 1.0}, dtypes::float64)), QString("[1.e-05 1.e+00]"));
    QCOMPARE(fmt(floats({2}, {1e-5, 1.5}, dtypes::float64)), QString("[1.0e-05 1.5e+00]"));
    QCOMPARE(fmt(floats({3}, {1.0, NAN, INFINITY})), QString("[ 1. nan inf]"));
    QCOMPARE(fmt(floats({2}, {-INFINITY, 0})), QString("[-inf   0.]"));
    QCOMPARE(fmt(ints({2, 3}, iota(6))), QString("[[0 1 2]\n [3 4 5]]"));
    QCOMPARE(fmt(ints({2}, {-5, 10})), QString("[-5 10]"));
    QCOMPARE(fmt(ints({2}, {1, 0}, dtypes::bool_)), QString("[ True False]"));
    QCOMPARE(fmt(ints({2}, {-1, 7}, dtypes::uint64)), QString("[18446744073709551615                    7]"));
    QCOMPARE(fmt(ints({2, 2, 2}, iota(8))), QString("[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]"));
    QCOMPARE(fmt(ints({2000}, iota(2000))), QString("[   0    1    2 ... 1997 1998 1999]"));
    QCOMPARE(fmt(ints({30}, iota(30))),
             QString("[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n 24 25 26 27 28 29]"));
    QCOMPARE(fmt(ints({1000, 2}, iota(2000))),
             QString("[[   0    1]\n [   2    3]\n [   4    5]\n ...\n [1994 1995]\n [1996 1997]\n [1998 1999]]"));
    QCOMPARE(fmt(ints({0, 3}, {})), QString("[]"));
    QCOMPARE(fmt(floats({}, {3.0})), QString("3.0"));
    QCOMPARE(fmt(ints({}, {1}, dtypes::bool_)), QString("True"));
  }

  void shortest_floats() {
    QCOMPARE(QString::fromStdString(shortest_float(double(0.1f), dtypes::float32)), QString("0.1"));
    QCOMPARE(QString::fromStdString(shortest_float(double(0.1f), dtypes::float64)), QString("0.10000000149011612"));
    QCOMPARE(QString::fromStdString(shortest_float(double(_Float16(0.1)), dtypes::float16)), QString("0.1"));
    QCOMPARE(QString::fromStdString(shortest_float(65504, dtypes::float16)), QString("65500.0"));  // numpy: np.float16(65504) prints 65500.0
    QCOMPARE(QString::fromStdString(shortest_float(1e-5, dtypes::float64)), QString("1e-05"));
    QCOMPARE(QString::fromStdString(shortest_float(-INFINITY, dtypes::float32)), QString("-inf"));
    QCOMPARE(QString::fromStdString(shortest_float(0.1015625, dtypes::bfloat16)), QString("0.1016"));
  }

  void eval_json() {
    EvalResult f = floats({2, 2}, {double(0.1f), NAN, INFINITY, -INFINITY});
    f.kernels = 3;
    QCOMPARE(QString::fromStdString(result_json(json::Value("unary/x"), f)),
             QString("{\"id\": \"unary/x\", \"shape\": [2, 2], \"dtype\": \"float32\", \"values\": [0.10000000149011612, \"nan\", \"inf\", \"-inf\"], \"kernels\": 3}"));
    EvalResult b = ints({3}, {1, 0, 1}, dtypes::bool_);
    QCOMPARE(QString::fromStdString(result_json(json::Value(7), b)),
             QString("{\"id\": 7, \"shape\": [3], \"dtype\": \"bool\", \"values\": [true, false, true], \"kernels\": 0}"));
    EvalResult u = ints({2}, {int64_t(0x8000000000000001ULL), 2}, dtypes::uint64);
    QCOMPARE(QString::fromStdString(values_json(u)), QString("[9223372036854775809, 2]"));
    EvalResult s = floats({}, {2.0, }, dtypes::float64);
    QCOMPARE(QString::fromStdString(result_json(json::Value(), s)),
             QString("{\"id\": null, \"shape\": [], \"dtype\": \"float64\", \"values\": [2.0], \"kernels\": 0}"));
    QCOMPARE(QString::fromStdString(error_json(json::Value("a"), "line 1:3: bad \"x\"\n")),
             QString("{\"id\": \"a\", \"error\": \"line 1:3: bad \\\"x\\\"\\n\"}"));
    // every line reads back as JSON with the same numbers
    json::Value back = json::parse(result_json(json::Value("k"), floats({3}, {1e16, -0.0, 5e-324}, dtypes::float64)));
    QCOMPARE(back.at("values").as_array()[0].as_double(), 1e16);
    QVERIFY(std::signbit(back.at("values").as_array()[1].as_double()));
    QCOMPARE(back.at("values").as_array()[2].as_double(), 5e-324);
  }

  void command_line() {
    ScriptCommandLine r = parse_script_command_line({"x.py", "--device", "CPU", "--noopt", "--beam=4", "--debug", "2", "--trace", "o.loupe"},
                                                    ScriptCommand::Run);
    QCOMPARE(r.files, std::vector<std::string>{"x.py"});
    QCOMPARE(*r.device, std::string("CPU"));
    QVERIFY(r.noopt);
    QCOMPARE(*r.beam, 4);
    QCOMPARE(*r.debug, 2);
    QCOMPARE(r.trace_path, std::string("o.loupe"));
    // the engine switches reach the program's process as its environment
    using Env = std::vector<std::pair<std::string, std::string>>;
    QCOMPARE(engine_environment(r), (Env{{"DEVICE", "CPU"}, {"NOOPT", "1"}, {"BEAM", "4"}, {"DEBUG", "2"}}));
    // after `--`, the program's own arguments (even ones that look like options)
    ScriptCommandLine a = parse_script_command_line({"train.py", "--debug", "1", "--", "--steps", "3", "x.py"}, ScriptCommand::Run);
    QCOMPARE(a.files, std::vector<std::string>{"train.py"});
    QCOMPARE(a.program_args, (std::vector<std::string>{"--steps", "3", "x.py"}));
    QCOMPARE(engine_environment(a), (Env{{"DEBUG", "1"}}));
    // --hotspots: HOTSPOTS=1 for the program; eval has no such option
    ScriptCommandLine h = parse_script_command_line({"m.py", "--hotspots"}, ScriptCommand::Run);
    QVERIFY(h.hotspots);
    QCOMPARE(engine_environment(h), (Env{{"HOTSPOTS", "1"}}));
    QVERIFY(cli_error({"m.py", "--json", "--hotspots"}, ScriptCommand::Eval).startsWith("unknown option '--hotspots'"));
    ScriptCommandLine e = parse_script_command_line({"--jsonl", "--debug=0"}, ScriptCommand::Eval);
    QVERIFY(e.jsonl && e.files.empty() && !e.beam && *e.debug == 0);
    QVERIFY(parse_script_command_line({"-", "--json"}, ScriptCommand::Eval).json);

    QCOMPARE(cli_error({"x.py", "--beam", "x"}, ScriptCommand::Run), QString("--beam needs an integer from 0 to 1024, not 'x'"));
    QCOMPARE(cli_error({"x.py", "--beam", "-1"}, ScriptCommand::Run), QString("--beam needs an integer from 0 to 1024, not '-1'"));
    QCOMPARE(cli_error({"x.py", "--debug", "9"}, ScriptCommand::Run), QString("--debug needs an integer from 0 to 7, not '9'"));
    QCOMPARE(cli_error({"x.py", "--debug"}, ScriptCommand::Run), QString("option --debug needs a value"));
    QCOMPARE(cli_error({"x.py", "--noopt=1"}, ScriptCommand::Run), QString("option --noopt takes no value"));
    QCOMPARE(cli_error({"x.py", "--device="}, ScriptCommand::Run), QString("--device needs a device name (CPU, LLVM, OPENCL, CUDA, METAL)"));
    QCOMPARE(cli_error({"x.py", "--json"}, ScriptCommand::Run),
             QString("unknown option '--json' (run accepts --device D, --noopt, --beam N, --debug N, --trace OUT.loupe, --compare-noopt, --hotspots, --gpu-metrics, -- ARGS)"));
    QCOMPARE(cli_error({"x.py", "--trace", "t"}, ScriptCommand::Eval),
             QString("unknown option '--trace' (eval accepts --json, --jsonl, --device D, --noopt, --beam N, --debug N)"));
    QCOMPARE(cli_error({}, ScriptCommand::Run), QString("run needs exactly one script (loupe-cli run SCRIPT.py [options]), got 0"));
    QCOMPARE(cli_error({"a.py", "b.py"}, ScriptCommand::Run), QString("run needs exactly one script (loupe-cli run SCRIPT.py [options]), got 2"));
    QCOMPARE(cli_error({"a.py", "--jsonl"}, ScriptCommand::Eval), QString("eval --jsonl reads its cases from stdin and takes no script file"));
    QCOMPARE(cli_error({"--json"}, ScriptCommand::Eval), QString("eval needs one script (loupe-cli eval SCRIPT.py --json) or --jsonl, got 0 files"));
  }
};

QTEST_APPLESS_MAIN(TestProgramOutput)
#include "tst_program_output.moc"
