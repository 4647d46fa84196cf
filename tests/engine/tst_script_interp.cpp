// The tensor-script interpreter without tensors: Python semantics on plain values (checked against
// CPython where python3 is available), and the routing of attributes, calls, operators and subscripts
// to a Host, shown with a fake host that records what it was asked.
#include <QtTest>

#include <random>

#include "script/interpreter.h"
#include "script/parser.h"
#include "support/error.h"

using namespace loupe;
using namespace loupe::script;

namespace {

// A host whose objects are symbolic expressions: every operation returns a new object whose repr is
// the operation's text, so a test sees exactly which host calls the script made and with what.
struct Sym : Object {
  std::string text;
  explicit Sym(std::string t) : text(std::move(t)) {}
  std::string type_name() const override { return "Sym"; }
  std::string repr() const override { return text; }
};
Value sym(std::string t) { return Value::object(std::make_shared<Sym>(std::move(t))); }

class FakeHost : public Host {
public:
  std::optional<Value> builtin(const std::string& name) override {
    if (name == "Tensor" || name == "dtypes") return sym(name);
    return std::nullopt;
  }
  Value attribute(const Value& obj, const std::string& name) override {
    if (name == "softmax") throw Error("Sym has no method 'softmax'");
    return sym(repr(obj) + "." + name);
  }
  Value call(const Value& callee, const std::vector<Value>& args, const KwArgs& kwargs) override {
    std::string s = repr(callee) + "(";
    bool first = true;
    for (const Value& a : args) {
      s += (first ? "" : ", ") + repr(a);
      first = false;
    }
    for (const auto& [k, v] : kwargs) {
      s += (first ? "" : ", ") + k + "=" + repr(v);
      first = false;
    }
    if (repr(callee).find("fail") != std::string::npos) throw Error("the call failed");
    return sym(s + ")");
  }
  Value binary(BinOp op, const Value& a, const Value& b) override {
    return sym("(" + repr(a) + " " + op_symbol(op) + " " + repr(b) + ")");
  }
  Value unary(UnOp op, const Value& a) override { return sym(std::string(op_symbol(op)) + repr(a)); }
  Value subscript(const Value& obj, const Value& index) override { return sym(repr(obj) + "[" + repr(index) + "]"); }
};

QString run_out(const QString& src) {
  FakeHost host;
  Interpreter in(host);
  in.run(src.toStdString());
  const Value* out = in.variable("out");
  return out ? QString::fromStdString(repr(*out)) : "(no out)";
}

QString eval_expr(const QString& src) { return run_out("out = " + src); }

QString run_error(const QString& src) {
  try {
    run_out(src);
  } catch (const Error& e) {
    return QString::fromUtf8(e.what());
  }
  return "(no error)";
}

} // namespace

class TestScriptInterp : public QObject {
  Q_OBJECT
private slots:
  void python_values_data() {
    QTest::addColumn<QString>("expr");
    QTest::addColumn<QString>("want");
    QTest::newRow("floordiv neg") << "7 // -2" << "-4";
    QTest::newRow("mod neg") << "7 % -2" << "-1";
    QTest::newRow("neg floordiv") << "-7 // 2" << "-4";
    QTest::newRow("neg mod") << "-7 % 2" << "1";
    QTest::newRow("2**63") << "2**63" << "9223372036854775808";
    QTest::newRow("2**64-1") << "2**64 - 1" << "18446744073709551615";
    QTest::newRow("-2**63") << "-2**63" << "-9223372036854775808";
    QTest::newRow("int max") << "(2**126 - 1) * 2 + 1" << "170141183460469231731687303715884105727";
    QTest::newRow("neg exponent") << "2**-1" << "0.5";
    QTest::newRow("true div") << "7 / 2" << "3.5";
    QTest::newRow("third") << "1 / 3" << "0.3333333333333333";
    QTest::newRow("exact div") << "6 / 3" << "2.0";
    QTest::newRow("float floordiv") << "7.5 // 2" << "3.0";
    QTest::newRow("neg float floordiv") << "-7.5 // 2" << "-4.0";
    QTest::newRow("neg float mod") << "-7.5 % 2" << "0.5";
    QTest::newRow("float mod neg") << "7.5 % -2" << "-0.5";
    QTest::newRow("float mod zero sign") << "-4.0 % 2" << "0.0";
    QTest::newRow("float mod zero neg divisor") << "4.0 % -2" << "-0.0";
    QTest::newRow("bool add") << "True + True" << "2";
    QTest::newRow("bool and") << "True & False" << "False";
    QTest::newRow("bool xor") << "True ^ True" << "False";
    QTest::newRow("bool or int") << "True | 2" << "3";
    QTest::newRow("invert") << "~5" << "-6";
    QTest::newRow("invert bool") << "~True" << "-2";
    QTest::newRow("neg bool") << "-True" << "-1";
    QTest::newRow("pos") << "+3" << "3";
    QTest::newRow("shift big") << "1 << 70" << "1180591620717411303424";
    QTest::newRow("shift neg") << "-17 >> 1" << "-9";
    QTest::newRow("shift far") << "-1 >> 200" << "-1";
    QTest::newRow("and neg") << "-8 & 5" << "0";
    QTest::newRow("xor neg") << "-8 ^ 3" << "-5";
    QTest::newRow("float pow") << "2 ** 0.5" << "1.4142135623730951";
    QTest::newRow("big pow") << "10 ** 20" << "100000000000000000000";
    QTest::newRow("zero pow zero") << "0 ** 0" << "1";
    QTest::newRow("overflow to inf") << "1e308 * 10" << "inf";
    QTest::newRow("float repr") << "0.1 + 0.2" << "0.30000000000000004";
    QTest::newRow("float repr sci") << "1e16 + 0" << "1e+16";
    QTest::newRow("float repr small") << "0.0001 / 10" << "1e-05";
    QTest::newRow("mixed") << "3 - 5.5" << "-2.5";
    QTest::newRow("int times float") << "1.0 * 3" << "3.0";
    QTest::newRow("literals") << "0x10 + 0b11 + 0o7" << "26";
    QTest::newRow("tuple concat") << "(1, 2) + (3,)" << "(1, 2, 3)";
    QTest::newRow("tuple repeat") << "(1,) * 3" << "(1, 1, 1)";
    QTest::newRow("int repeat list") << "2 * [0, 1]" << "[0, 1, 0, 1]";
    QTest::newRow("repeat zero") << "(1, 2) * 0" << "()";
    QTest::newRow("index") << "(1, 2, 3)[-1]" << "3";
    QTest::newRow("slice rev") << "(1, 2, 3, 4, 5)[::-2]" << "(5, 3, 1)";
    QTest::newRow("slice tail") << "(1, 2, 3)[1:]" << "(2, 3)";
    QTest::newRow("slice clamp") << "[1, 2, 3][-10:10]" << "[1, 2, 3]";
    QTest::newRow("slice empty") << "(1, 2, 3)[2:1]" << "()";
    QTest::newRow("slice neg step bounds") << "(0, 1, 2, 3, 4)[3:0:-2]" << "(3, 1)";
    QTest::newRow("str index") << "'abc'[1]" << "'b'";
    QTest::newRow("str concat") << "'ab' + 'cd'" << "'abcd'";
    QTest::newRow("lt") << "1 < 2" << "True";
    QTest::newRow("int float eq") << "1 == 1.0" << "True";
    QTest::newRow("nan ne") << "(1e400 - 1e400) != (1e400 - 1e400)" << "True";
    QTest::newRow("nan lt") << "(1e400 - 1e400) < 1" << "False";
    QTest::newRow("tuple eq") << "(1, 2) == (1, 2)" << "True";
    QTest::newRow("tuple list ne") << "(1, 2) == [1, 2]" << "False";
    QTest::newRow("tuple lt") << "(1, 2) < (1, 3)" << "True";
    QTest::newRow("tuple prefix") << "(1, 2) < (1, 2, 0)" << "True";
    QTest::newRow("none eq") << "None == None" << "True";
    QTest::newRow("str lt") << "'a' < 'b'" << "True";
    QTest::newRow("mixed type eq") << "'1' == 1" << "False";
    QTest::newRow("big int vs float") << "2**63 == 9223372036854775808.0" << "True";
    QTest::newRow("nested") << "[(1, [2]), None, ..., 'x']" << "[(1, [2]), None, Ellipsis, 'x']";
  }
  void python_values() {
    QFETCH(QString, expr);
    QFETCH(QString, want);
    QCOMPARE(eval_expr(expr), want);
  }

  void python_errors_data() {
    QTest::addColumn<QString>("src");
    QTest::addColumn<QString>("want");
    QTest::newRow("int floordiv zero") << "x = 1 + 5 // 0" << "line 1:11: ZeroDivisionError: integer division or modulo by zero";
    QTest::newRow("int mod zero") << "x = 5 % 0" << "line 1:7: ZeroDivisionError: integer modulo by zero";
    QTest::newRow("div zero") << "x = 1 / 0" << "line 1:7: ZeroDivisionError: division by zero";
    QTest::newRow("float div zero") << "x = 1.5 / 0.0" << "line 1:9: ZeroDivisionError: float division by zero";
    QTest::newRow("float mod zero") << "x = 1.0 % 0" << "line 1:9: ZeroDivisionError: float modulo by zero";
    QTest::newRow("zero neg pow") << "x = 0 ** -1" << "line 1:7: ZeroDivisionError: 0 cannot be raised to a negative power";
    QTest::newRow("float zero neg pow") << "x = 0.0 ** -2" << "line 1:9: ZeroDivisionError: 0.0 cannot be raised to a negative power";
    QTest::newRow("overflow pow")
        << "x = 2 ** 200" << "line 1:7: integer overflow: 2 ** 200 does not fit in 128 bits (the most a tensor script supports)";
    QTest::newRow("overflow mul") << "x = 2**100 * 2**100"
                                  << "line 1:12: integer overflow: 1267650600228229401496703205376 * 1267650600228229401496703205376 does "
                                     "not fit in 128 bits (the most a tensor script supports)";
    QTest::newRow("overflow shift") << "x = 1 << 127" << "line 1:7: integer overflow: 1 << 127 does not fit in 128 bits (the most a tensor script supports)";
    QTest::newRow("complex pow") << "x = (-8) ** 0.5"
                                 << "line 1:10: a negative number raised to a fractional power is a complex number, which tensor scripts do not support";
    QTest::newRow("float overflow pow") << "x = 10.0 ** 400" << "line 1:10: OverflowError: float ** result is out of range";
    QTest::newRow("neg shift") << "x = 1 << -1" << "line 1:7: ValueError: negative shift count";
    QTest::newRow("str plus int") << "x = 'a' + 1" << "line 1:9: TypeError: unsupported operand type(s) for +: 'str' and 'int'";
    QTest::newRow("float and") << "x = 1.5 & 1" << "line 1:9: TypeError: unsupported operand type(s) for &: 'float' and 'int'";
    QTest::newRow("matmul ints") << "x = 1 @ 2" << "line 1:7: TypeError: unsupported operand type(s) for @: 'int' and 'int'";
    QTest::newRow("none plus") << "x = None + 1" << "line 1:10: TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'";
    QTest::newRow("invert float") << "x = ~1.5" << "line 1:5: TypeError: bad operand type for unary ~: 'float'";
    QTest::newRow("index range") << "x = (1, 2)[5]" << "line 1:11: IndexError: tuple index out of range";
    QTest::newRow("step zero") << "x = (1, 2)[::0]" << "line 1:11: ValueError: slice step cannot be zero";
    QTest::newRow("float index") << "x = (1, 2)[1.0]" << "line 1:11: TypeError: tuple indices must be integers or slices, not float";
    QTest::newRow("float slice") << "x = (1, 2)[1.0:]" << "line 1:11: TypeError: slice indices must be integers or None, not float";
    QTest::newRow("not subscriptable") << "x = 3[0]" << "line 1:6: TypeError: 'int' object is not subscriptable";
    QTest::newRow("order mixed") << "x = 'a' < 1" << "line 1:9: TypeError: '<' not supported between instances of 'str' and 'int'";
    QTest::newRow("undefined") << "x = 1\ny = x + z" << "line 2:9: name 'z' is not defined";
    QTest::newRow("not callable") << "x = (1)(2)" << "line 1:8: 'int' object is not callable";
    QTest::newRow("no attribute") << "x = (1).real" << "line 1:9: 'int' object has no attribute 'real'";
    QTest::newRow("long repeat") << "x = (1,) * 100000000" << "line 1:10: sequence repetition is too long (more than 16777216 elements)";
    QTest::newRow("str format") << "x = 'a%d' % 3" << "line 1:11: string formatting with % is not supported in a tensor script";
    QTest::newRow("no builtins") << "x = print(1)" << "line 1:5: name 'print' is not defined";
    QTest::newRow("no open") << "x = open('/etc/passwd')" << "line 1:5: name 'open' is not defined";
    QTest::newRow("no import fn") << "x = __import__('os')" << "line 1:5: name '__import__' is not defined";
    QTest::newRow("parse error first") << "x = 1 / 0\ny = (" << "line 2:5: '(' was never closed";
  }
  void python_errors() {
    QFETCH(QString, src);
    QFETCH(QString, want);
    QCOMPARE(run_error(src), want);
  }

  void host_routing_data() {
    QTest::addColumn<QString>("src");
    QTest::addColumn<QString>("want");
    QTest::newRow("static call") << "out = Tensor.arange(10)" << "Tensor.arange(10)";
    QTest::newRow("method chain") << "out = Tensor.arange(12).reshape(3, 4).sum(axis=1, keepdim=True)"
                                  << "Tensor.arange(12).reshape(3, 4).sum(axis=1, keepdim=True)";
    QTest::newRow("python math folded first") << "out = Tensor.ones(2**3, 7 // -2, dtype=dtypes.int8)"
                                              << "Tensor.ones(8, -4, dtype=dtypes.int8)";
    QTest::newRow("reversed operand") << "x = Tensor(1)\nout = 3 - x" << "(3 - Tensor(1))";
    QTest::newRow("both operands") << "x = Tensor(1)\nout = x @ x.T" << "(Tensor(1) @ Tensor(1).T)";
    QTest::newRow("comparison") << "x = Tensor(1)\nout = (x > 0.5) & (x <= 2)" << "((Tensor(1) > 0.5) & (Tensor(1) <= 2))";
    QTest::newRow("unary") << "x = Tensor(1)\nout = -x + ~x" << "(-Tensor(1) + ~Tensor(1))";
    QTest::newRow("subscript slices") << "x = Tensor(1)\nout = x[1, ::2, None, ..., -1:]"
                                      << "Tensor(1)[(1, slice(None, None, 2), None, Ellipsis, slice(-1, None, None))]";
    QTest::newRow("single index") << "x = Tensor(1)\nout = x[1:3]" << "Tensor(1)[slice(1, 3, None)]";
    QTest::newRow("tensor index") << "x = Tensor(1)\nout = x[x, [0, 2]]" << "Tensor(1)[(Tensor(1), [0, 2])]";
    QTest::newRow("tuple of objects") << "x = Tensor(1)\nout = (x, x.shape)[1]" << "Tensor(1).shape";
    QTest::newRow("variables rebind") << "x = Tensor.ones(2)\nx = x + 1\nout = x * x" << "((Tensor.ones(2) + 1) * (Tensor.ones(2) + 1))";
    QTest::newRow("shadow builtin") << "Tensor = 3\nout = Tensor * 2" << "6";
    QTest::newRow("expression statement") << "x = Tensor.ones(2)\nx.backward()\nout = x" << "Tensor.ones(2)";
  }
  void host_routing() {
    QFETCH(QString, src);
    QFETCH(QString, want);
    QCOMPARE(run_out(src), want);
  }

  void host_errors_are_located() {
    QCOMPARE(run_error("x = Tensor.ones(2)\nout = (x + 1).softmax()"), QString("line 2:15: Sym has no method 'softmax'"));
    QCOMPARE(run_error("x = Tensor.fail(\n  1)"), QString("line 1:12: the call failed"));
    QCOMPARE(run_error("x = Tensor.ones(2)(fail)"), QString("line 1:20: name 'fail' is not defined"));
    QCOMPARE(run_error("x = dtypes.fail\ny = x(1)"), QString("line 2:6: the call failed"));
  }

  void only_out_and_variables() {
    FakeHost host;
    Interpreter in(host);
    in.run("a = 1\nb = a + 1\n");
    QVERIFY(in.variable("out") == nullptr);
    QCOMPARE(in.variables().size(), size_t(2));
    QCOMPARE(QString::fromStdString(repr(*in.variable("b"))), QString("2"));
  }

  // Random token soup: every input either runs or fails with a loupe::Error; nothing else escapes.
  void random_input_never_crashes() {
    std::mt19937 rng(99);
    const char* pieces[] = {"x", "Tensor", "dtypes", ".", "(", ")", "[", "]", "{", "}", ",", ":", ";", "=", "==", "+", "-", "*",
                            "**", "/", "//", "%", "@", "&", "|", "^", "~", "<<", ">>", "<", "<=", "!=", "1", "0", "2**63",
                            "1.5", "1e400", "'s'", "\"t\"", "None", "True", "...", "for", "in", "if", "else", "lambda",
                            "not", "and", "import", "def", "\n", "\n  ", " ", "#c\n", "\\\n", "out", "f", "=", "1j", "0x", "'"};
    const int n_pieces = int(sizeof(pieces) / sizeof(pieces[0]));
    int ok = 0, errors = 0;
    for (int i = 0; i < 3000; i++) {
      std::string src;
      int len = std::uniform_int_distribution<int>(1, 25)(rng);
      for (int k = 0; k < len; k++) src += pieces[std::uniform_int_distribution<int>(0, n_pieces - 1)(rng)], src += " ";
      try {
        FakeHost host;
        Interpreter in(host);
        in.run("x = 3\nf = Tensor\n" + src);
        ok++;
      } catch (const Error& e) {
        QVERIFY2(QString::fromUtf8(e.what()).startsWith("line "), e.what());  // every error is located
        errors++;
      }
    }
    QCOMPARE(ok + errors, 3000);
    QVERIFY(ok > 0 && errors > 0);
  }

  // Random integer expressions evaluated here and by CPython: same value or same error kind.
  void differential_against_python() {
    if (QStandardPaths::findExecutable("python3").isEmpty()) QSKIP("python3 not available");
    std::mt19937 rng(1234);
    const char* ops[] = {"+", "-", "*", "//", "%", "**", "&", "|", "^", "<<", ">>", "/"};
    auto atom = [&]() -> std::string {
      int k = std::uniform_int_distribution<int>(0, 9)(rng);
      if (k < 6) return std::to_string(std::uniform_int_distribution<int>(-20, 20)(rng));
      if (k < 8) return std::to_string(std::uniform_int_distribution<long long>(-(1LL << 40), 1LL << 40)(rng));
      if (k < 9) return std::to_string(std::uniform_int_distribution<int>(-40, 40)(rng) * 0.25);
      return "2**63";
    };
    QStringList exprs;
    for (int i = 0; i < 1500; i++) {
      std::string e = "(" + atom() + ")";
      int n = std::uniform_int_distribution<int>(1, 3)(rng);
      for (int j = 0; j < n; j++) {
        std::string op = ops[std::uniform_int_distribution<int>(0, 11)(rng)];
        std::string rhs = atom();
        if (op == "**") rhs = std::to_string(std::uniform_int_distribution<int>(-3, 5)(rng));
        if (op == "<<" || op == ">>") rhs = std::to_string(std::uniform_int_distribution<int>(0, 20)(rng));
        e = "(" + e + " " + op + " (" + rhs + "))";
      }
      exprs << QString::fromStdString(e);
    }
    // Python evaluates node by node (so that an intermediate beyond 128 bits counts as overflow, as
    // it does here) and prints the repr, or the exception kind
    QString py =
        "import ast, operator as o, sys\n"
        "OPS = {ast.Add: o.add, ast.Sub: o.sub, ast.Mult: o.mul, ast.FloorDiv: o.floordiv, ast.Mod: o.mod, ast.Pow: o.pow,\n"
        "       ast.BitAnd: o.and_, ast.BitOr: o.or_, ast.BitXor: o.xor, ast.LShift: o.lshift, ast.RShift: o.rshift, ast.Div: o.truediv}\n"
        "class Big(Exception): pass\n"
        "def ev(n):\n"
        "  if isinstance(n, ast.Expression): return ev(n.body)\n"
        "  if isinstance(n, ast.Constant): return n.value\n"
        "  if isinstance(n, ast.UnaryOp): r = -ev(n.operand)\n"
        "  else: r = OPS[type(n.op)](ev(n.left), ev(n.right))\n"
        "  if isinstance(r, int) and not -2**127 <= r < 2**127: raise Big()\n"
        "  return r\n"
        "for line in sys.stdin:\n"
        "  try:\n"
        "    v = ev(ast.parse(line.strip(), mode='eval'))\n"
        "    print('complex' if isinstance(v, complex) else repr(v))\n"
        "  except ZeroDivisionError: print('ZeroDivisionError')\n"
        "  except (OverflowError, Big): print('overflow')\n"
        "  except TypeError: print('TypeError')\n"
        "  except ValueError: print('ValueError')\n";
    QProcess p;
    p.start("python3", {"-c", py});
    QVERIFY(p.waitForStarted());
    p.write((exprs.join("\n") + "\n").toUtf8());
    p.closeWriteChannel();
    QVERIFY(p.waitForFinished(60000));
    QStringList want = QString::fromUtf8(p.readAllStandardOutput()).split("\n", Qt::SkipEmptyParts);
    QCOMPARE(want.size(), exprs.size());
    int compared = 0;
    for (int i = 0; i < exprs.size(); i++) {
      QString got;
      try {
        got = eval_expr(exprs[i]);
      } catch (const Error& e) {
        QString m = QString::fromUtf8(e.what());
        if (m.contains("ZeroDivisionError")) got = "ZeroDivisionError";
        else if (m.contains("overflow") || m.contains("OverflowError")) got = "overflow";
        else if (m.contains("complex")) got = "complex";
        else if (m.contains("TypeError")) got = "TypeError";
        else if (m.contains("ValueError")) got = "ValueError";
        else got = m;
      }
      QVERIFY2(got == want[i], qPrintable(exprs[i] + ": got " + got + ", python " + want[i]));
      compared++;
    }
    QCOMPARE(compared, 1500);
  }
};

QTEST_APPLESS_MAIN(TestScriptInterp)
#include "tst_script_interp.moc"
