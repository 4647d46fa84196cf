// Tensor-script lexer and parser: every construct of DESIGN.md §5 with Python's precedence, every
// rejected construct with its line:column, locations on every node.
#include <QtTest>

#include <functional>

#include "script/lexer.h"
#include "script/parser.h"
#include "support/error.h"

using namespace loupe;
using namespace loupe::script;

namespace {

QString dump_program(const QString& src) {
  Program p = parse(src.toStdString());
  QStringList lines;
  for (const Stmt& s : p.body) lines << QString::fromStdString(dump(s));
  return lines.join("\n");
}

QString parse_error(const QString& src) {
  try {
    parse(src.toStdString());
  } catch (const Error& e) {
    return QString::fromUtf8(e.what());
  }
  return "(no error)";
}

void walk(const Expr& e, const std::function<void(const Expr&)>& fn) {
  fn(e);
  for (const ExprPtr* c : {&e.a, &e.b, &e.c})
    if (*c) walk(**c, fn);
  for (const auto& x : e.items) walk(*x, fn);
  for (const auto& k : e.keywords) walk(*k.value, fn);
}

} // namespace

class TestScriptParse : public QObject {
  Q_OBJECT
private slots:
  void parses_data() {
    QTest::addColumn<QString>("src");
    QTest::addColumn<QString>("want");
    // precedence and associativity (Python's)
    QTest::newRow("mul over add") << "a + b * c" << "(a + (b * c))";
    QTest::newRow("add after mul") << "a * b + c" << "((a * b) + c)";
    QTest::newRow("sub left assoc") << "a - b - c" << "((a - b) - c)";
    QTest::newRow("div floordiv mod") << "a / b // c % d" << "(((a / b) // c) % d)";
    QTest::newRow("pow right assoc") << "a ** b ** c" << "(a ** (b ** c))";
    QTest::newRow("unary below pow") << "-a ** b" << "(-(a ** b))";
    QTest::newRow("unary in exponent") << "a ** -b" << "(a ** (-b))";
    QTest::newRow("matmul as term") << "a @ b + c @ d" << "((a @ b) + (c @ d))";
    QTest::newRow("bit precedence") << "a | b ^ c & d" << "(a | (b ^ (c & d)))";
    QTest::newRow("shift below add") << "a << b + c >> d" << "((a << (b + c)) >> d)";
    QTest::newRow("and over compare") << "a & b == c" << "((a & b) == c)";
    QTest::newRow("compare lowest") << "x > 2 & y" << "(x > (2 & y))";
    QTest::newRow("invert binds tight") << "~a + b" << "((~a) + b)";
    QTest::newRow("unary chain") << "- + ~a" << "(-(+(~a)))";
    QTest::newRow("parens") << "(a + b) * c" << "((a + b) * c)";
    QTest::newRow("all comparisons") << "(a < b, a <= b, a > b, a >= b, a == b, a != b)"
                                     << "((a < b), (a <= b), (a > b), (a >= b), (a == b), (a != b))";
    // primaries
    QTest::newRow("attr call subscript") << "a.b.c(1)(2)[3]" << "a.b.c(1)(2)[3]";
    QTest::newRow("keywords") << "f(a, b=1, c=(1, 2))" << "f(a, b=1, c=(1, 2))";
    QTest::newRow("trailing comma call") << "f(a, b,)" << "f(a, b)";
    QTest::newRow("empty call") << "x.relu()" << "x.relu()";
    QTest::newRow("nested lists") << "Tensor([[1, 2], [3, 4]], dtype=dtypes.int8)"
                                   << "Tensor([[1, 2], [3, 4]], dtype=dtypes.int8)";
    QTest::newRow("property") << "x.T @ x" << "(x.T @ x)";
    // subscripts
    QTest::newRow("slice step") << "x[1:17:3]" << "x[1:17:3]";
    QTest::newRow("neg step") << "x[::-3]" << "x[::(-3)]";
    QTest::newRow("none and slice") << "x[:, None, 1:3]" << "x[:, None, 1:3]";
    QTest::newRow("ellipsis") << "x[..., 1]" << "x[..., 1]";
    QTest::newRow("neg ranges") << "x[-2:, -3:-1]" << "x[(-2):, (-3):(-1)]";
    QTest::newRow("one-tuple index") << "x[1,]" << "x[1,]";
    QTest::newRow("empty slice parts") << "x[:]" << "x[:]";
    QTest::newRow("slice no stop step") << "x[1::2]" << "x[1::2]";
    QTest::newRow("tensor index") << "x[i, j]" << "x[i, j]";
    QTest::newRow("slice of expr") << "x[a + 1:b * 2]" << "x[(a + 1):(b * 2)]";
    // literals
    QTest::newRow("tuples") << "((), (1,), (1, 2), [], [1, 2,])" << "((), (1,), (1, 2), [], [1, 2])";
    QTest::newRow("ints") << "(1_000_000, 0x1F, 0o17, 0b101, 0, 00)" << "(1000000, 31, 15, 5, 0, 0)";
    QTest::newRow("big ints") << "(2**63, 170141183460469231731687303715884105727)"
                              << "((2 ** 63), 170141183460469231731687303715884105727)";
    QTest::newRow("floats") << "(1.5e-5, 1e16, .5, 5., 1e400, 1_0.2_5, 2.5E+3)"
                            << "(1.5e-05, 1e+16, 0.5, 5.0, inf, 10.25, 2500.0)";
    QTest::newRow("string concat") << "'a' \"b\"" << "'ab'";
    QTest::newRow("string escapes") << R"('a\nb\t\x41\u00e9\'')" << "\"a\\nb\\tA\u00e9'\"";
    QTest::newRow("raw string") << R"(r'a\nb')" << R"('a\\nb')";
    QTest::newRow("triple string") << "'''multi\nline'''" << "'multi\\nline'";
    QTest::newRow("constants") << "True, False, None, ..." << "(True, False, None, ...)";
    QTest::newRow("bare tuple") << "x = 1, 2" << "x = (1, 2)";
    QTest::newRow("bare one tuple") << "x = 1," << "x = (1,)";
    // statements and lines
    QTest::newRow("assignment") << "out = a + b" << "out = (a + b)";
    QTest::newRow("semicolons") << "a = 1; b = 2;" << "a = 1\nb = 2";
    QTest::newRow("bracket continuation") << "x = (1 +\n     2)\ny = [1,\n# c\n  2]" << "x = (1 + 2)\ny = [1, 2]";
    QTest::newRow("backslash continuation") << "x = 1 + \\\n  2" << "x = (1 + 2)";
    QTest::newRow("comments blank lines") << "# head\n\n   \nx = 1  # tail\n\n# end" << "x = 1";
    QTest::newRow("crlf") << "a = 1\r\nb = 2\r\n" << "a = 1\nb = 2";
    QTest::newRow("expression statement") << "loss.backward()" << "loss.backward()";
    QTest::newRow("soft keywords are names") << "match = 1\ntype = match" << "match = 1\ntype = match";
    QTest::newRow("no trailing newline") << "out = x" << "out = x";
    QTest::newRow("empty script") << "\n# nothing\n" << "";
  }
  void parses() {
    QFETCH(QString, src);
    QFETCH(QString, want);
    QCOMPARE(dump_program(src), want);
  }

  void rejects_data() {
    QTest::addColumn<QString>("src");
    QTest::addColumn<QString>("want");
    const QString na = " is not allowed in a tensor script";
    QTest::newRow("for") << "x = 1\nfor i in x:\n    pass" << "line 2:1: a 'for' loop" + na;
    QTest::newRow("while") << "while x:\n  pass" << "line 1:1: a 'while' loop" + na;
    QTest::newRow("if") << "if x:\n  y = 1" << "line 1:1: an 'if' statement" + na + " (use cond.where(a, b) on tensors)";
    QTest::newRow("def") << "def f(x): return x" << "line 1:1: a function definition ('def')" + na;
    QTest::newRow("class") << "class A: pass" << "line 1:1: a class definition" + na;
    QTest::newRow("import") << "import os" << "line 1:1: an import" + na + " (Tensor and dtypes are already available)";
    QTest::newRow("from import") << "x = 1\n  \nfrom tinygrad import Tensor"
                                 << "line 3:1: an import" + na + " (Tensor and dtypes are already available)";
    QTest::newRow("with") << "with open('f') as f: pass" << "line 1:1: a 'with' statement" + na;
    QTest::newRow("try") << "try:\n  x\nexcept: pass" << "line 1:1: a 'try' statement" + na;
    QTest::newRow("return") << "return x" << "line 1:1: 'return'" + na + " (the result is the variable 'out')";
    QTest::newRow("del") << "del x" << "line 1:1: 'del'" + na;
    QTest::newRow("pass") << "x = 1; pass" << "line 1:8: 'pass'" + na;
    QTest::newRow("assert") << "assert x" << "line 1:1: 'assert'" + na;
    QTest::newRow("raise") << "raise x" << "line 1:1: 'raise'" + na;
    QTest::newRow("global") << "global x" << "line 1:1: 'global'" + na;
    QTest::newRow("yield") << "x = yield 1" << "line 1:5: 'yield'" + na;
    QTest::newRow("await") << "x = await y" << "line 1:5: 'await'" + na;
    QTest::newRow("async") << "async def f(): pass" << "line 1:1: 'async'" + na;
    QTest::newRow("decorator") << "@dec\ndef f(): pass" << "line 1:1: a decorator" + na;
    QTest::newRow("lambda") << "f = lambda x: x" << "line 1:5: a lambda" + na;
    QTest::newRow("list comprehension") << "y = [i for i in x]" << "line 1:8: a list comprehension" + na;
    QTest::newRow("generator") << "y = (i for i in x)" << "line 1:8: a generator expression" + na;
    QTest::newRow("generator arg") << "y = f(i for i in x)" << "line 1:9: a generator expression" + na;
    QTest::newRow("dict") << "x = {1: 2}" << "line 1:5: a dict or set display ({...})" + na;
    QTest::newRow("set comprehension") << "x = {i for i in y}" << "line 1:5: a dict or set display ({...})" + na;
    QTest::newRow("f-string") << "y = f'{x}'" << "line 1:5: an f-string" + na;
    QTest::newRow("F-string raw") << "y = Rf'{x}'" << "line 1:5: an f-string" + na;
    QTest::newRow("bytes") << "y = b'x'" << "line 1:5: a bytes literal" + na;
    QTest::newRow("complex") << "x = 1j" << "line 1:5: a complex number literal" + na;
    QTest::newRow("complex float") << "x = 2.5J" << "line 1:5: a complex number literal" + na;
    QTest::newRow("ternary") << "x = a if c else b"
                             << "line 1:7: a conditional expression (a if c else b)" + na + " (use c.where(a, b) on tensors)";
    QTest::newRow("and") << "x = a and b" << "line 1:7: 'and'" + na + " (use & on tensors)";
    QTest::newRow("or") << "x = (a > 1) or b" << "line 1:13: 'or'" + na + " (use | on tensors)";
    QTest::newRow("not") << "x = not a" << "line 1:5: 'not'" + na + " (use ~ or logical_not() on tensors)";
    QTest::newRow("in") << "x = a in b" << "line 1:7: the 'in' operator" + na;
    QTest::newRow("not in") << "x = a not in b" << "line 1:7: the 'not in' operator" + na;
    QTest::newRow("is") << "x = a is None" << "line 1:7: the 'is' operator" + na + " (use == or !=)";
    QTest::newRow("chained comparison") << "x = a < b < c"
                                        << "line 1:11: a chained comparison (a < b < c)" + na + " (write (a < b) & (b < c))";
    QTest::newRow("chained eq") << "x = a == b != c" << "line 1:12: a chained comparison (a < b < c)" + na + " (write (a < b) & (b < c))";
    QTest::newRow("walrus") << "x = (y := 3)" << "line 1:8: an assignment expression (:=)" + na;
    QTest::newRow("augmented") << "x += 1" << "line 1:3: an augmented assignment ('+=')" + na + " (write x = x + y)";
    QTest::newRow("augmented pow") << "x **= 2" << "line 1:3: an augmented assignment ('**=')" + na + " (write x = x + y)";
    QTest::newRow("unpacking") << "a, b = x" << "line 1:1: an unpacking assignment (a, b = ...)" + na + " (assign one name per statement)";
    QTest::newRow("setitem") << "x[0] = 1" << "line 1:2: assignment to a subscript (x[...] = ...)" + na;
    QTest::newRow("setattr") << "x.y = 1" << "line 1:3: assignment to an attribute" + na;
    QTest::newRow("chained assignment") << "a = b = 1" << "line 1:7: a chained assignment (a = b = ...)" + na;
    QTest::newRow("annotation") << "x: int = 3" << "line 1:2: an annotated assignment" + na;
    QTest::newRow("star arg") << "f(*a)" << "line 1:3: argument unpacking (*args)" + na;
    QTest::newRow("star kwargs") << "f(**k)" << "line 1:3: keyword argument unpacking (**kwargs)" + na;
    QTest::newRow("starred list") << "x = [*a]" << "line 1:6: a starred expression (*x)" + na;
    QTest::newRow("starred subscript") << "x[*a]" << "line 1:3: a starred expression (*x)" + na;
    // plain syntax errors
    QTest::newRow("indent") << "x = 1\n  y = 2" << "line 2:3: unexpected indent (indented blocks are not allowed in a tensor script)";
    QTest::newRow("first line indent") << "  y = 2" << "line 1:3: unexpected indent (indented blocks are not allowed in a tensor script)";
    QTest::newRow("never closed") << "x = f(1,\n  2" << "line 1:6: '(' was never closed";
    QTest::newRow("unmatched") << "x = 1)" << "line 1:6: unmatched ')'";
    QTest::newRow("mismatched") << "x = [1,\n 2)" << "line 2:3: closing parenthesis ')' does not match opening parenthesis '[' on line 1";
    QTest::newRow("unterminated") << "x = 'abc" << "line 1:5: unterminated string literal";
    QTest::newRow("unterminated newline") << "x = 'abc\n'" << "line 1:5: unterminated string literal";
    QTest::newRow("unterminated triple") << "x = '''abc" << "line 1:5: unterminated triple-quoted string literal";
    QTest::newRow("leading zero") << "x = 012"
                                  << "line 1:5: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers";
    QTest::newRow("bad hex") << "x = 0x" << "line 1:5: invalid hexadecimal literal";
    QTest::newRow("bad exponent") << "x = 1e" << "line 1:5: invalid decimal literal";
    QTest::newRow("letters after number") << "x = 1abc" << "line 1:5: invalid decimal literal";
    QTest::newRow("huge int") << "x = 170141183460469231731687303715884105728"
                              << "line 1:5: integer literal is too large (scripts support integers below 2**127)";
    QTest::newRow("dangling operator") << "x = 1 +" << "line 1:8: invalid syntax: unexpected end of line";
    QTest::newRow("dangling at end") << "x = -" << "line 1:6: invalid syntax: unexpected end of line";
    QTest::newRow("two names") << "x = a b" << "line 1:7: invalid syntax: unexpected 'b'";
    QTest::newRow("print statement") << "print x" << "line 1:7: invalid syntax: unexpected 'x'";
    QTest::newRow("empty subscript") << "y = x[]" << "line 1:7: invalid syntax: unexpected ']'";
    QTest::newRow("dollar") << "x = $" << "line 1:5: invalid character '$'";
    QTest::newRow("bang") << "x = a ! b" << "line 1:7: invalid syntax: '!' (use ~ or logical_not() for negation)";
    QTest::newRow("non-ascii") << "\xc3\xa9 = 1" << "line 1:1: invalid non-ASCII character (scripts are ASCII outside string literals)";
    QTest::newRow("backslash junk") << "x = \\ 1" << "line 1:5: unexpected character after line continuation character";
    QTest::newRow("positional after kw") << "f(a=1, 2)" << "line 1:8: positional argument follows keyword argument";
    QTest::newRow("repeated kw") << "f(a=1, a=2)" << "line 1:8: keyword argument repeated: 'a'";
    QTest::newRow("assign literal") << "1 = x" << "line 1:1: cannot assign to an expression";
    QTest::newRow("assign call") << "f() = 3" << "line 1:1: cannot assign to a function call";
    QTest::newRow("keyword attribute") << "x.for" << "line 1:3: invalid syntax: expected an attribute name after '.' but found 'for'";
    QTest::newRow("missing bracket") << "x = y[1" << "line 1:6: '[' was never closed";
    QTest::newRow("else alone") << "x = 1 else 2" << "line 1:7: invalid syntax: unexpected 'else'";
    QTest::newRow("error after good lines") << "a = 1\nb = 2\nc = a +* b" << "line 3:8: invalid syntax: unexpected '*'";
  }
  void rejects() {
    QFETCH(QString, src);
    QFETCH(QString, want);
    QCOMPARE(parse_error(src), want);
  }

  void nesting_is_bounded() {
    // deep nesting and very long chains are refused instead of overflowing the stack
    QString deep = "x = " + QString("(").repeated(5000) + "1" + QString(")").repeated(5000);
    QVERIFY2(parse_error(deep).contains("nested too deeply"), qPrintable(parse_error(deep)));
    QString unary = "x = " + QString("-").repeated(5000) + "1";
    QVERIFY2(parse_error(unary).contains("nested too deeply"), qPrintable(parse_error(unary)));
    QStringList ones;
    for (int i = 0; i < 5000; i++) ones << "1";
    QString chain = "x = " + ones.join(" + ");
    QVERIFY2(parse_error(chain).contains("too deeply nested or too long"), qPrintable(parse_error(chain)));
    QString calls = "x = y" + QString(".f()").repeated(3000);
    QVERIFY2(parse_error(calls).contains("too deeply nested or too long"), qPrintable(parse_error(calls)));
    // ordinary sizes are fine
    QStringList some;
    for (int i = 0; i < 300; i++) some << "a";
    QCOMPARE(parse(("x = " + some.join(" * ")).toStdString()).body.size(), size_t(1));
    QCOMPARE(parse(("x = " + QString("(").repeated(60) + "1" + QString(")").repeated(60)).toStdString()).body.size(), size_t(1));
  }

  void token_locations() {
    std::vector<Token> t = tokenize("a = (1,\n  2.5)\n\n# c\nb = 'x'  \\\n + c");
    QStringList got;
    for (const Token& k : t)
      got << QString("%1@%2:%3").arg(QString::fromStdString(k.kind == Tok::Newline ? "NL" : k.text)).arg(k.loc.line).arg(k.loc.col);
    QCOMPARE(got.join(" "), QString("a@1:1 =@1:3 (@1:5 1@1:6 ,@1:7 2.5@2:3 )@2:6 NL@2:7 b@5:1 =@5:3 x@5:5 +@6:2 c@6:4 NL@6:5 @6:5"));
    QCOMPARE(t[3].ival, PyInt(1));
    QCOMPARE(t[5].fval, 2.5);
  }

  void node_locations() {
    Program p = parse("x = 1\nout = x.reshape(2, 3) + y[1] * -z\n");
    QCOMPARE(p.body.size(), size_t(2));
    const Stmt& s = p.body[1];
    QCOMPARE(s.loc, (Loc{2, 1}));
    const Expr& add = *s.value;
    QCOMPARE(add.kind, ExprKind::Binary);
    QCOMPARE(add.loc, (Loc{2, 7}));
    QCOMPARE(add.op_loc, (Loc{2, 23}));
    const Expr& call = *add.a;
    QCOMPARE(call.kind, ExprKind::Call);
    QCOMPARE(call.op_loc, (Loc{2, 16}));
    QCOMPARE(call.a->op_loc, (Loc{2, 9}));  // the attribute's name
    QCOMPARE(call.items[1]->loc, (Loc{2, 20}));
    const Expr& mul = *add.b;
    QCOMPARE(mul.op_loc, (Loc{2, 30}));
    QCOMPARE(mul.a->op_loc, (Loc{2, 26}));  // '['
    QCOMPARE(mul.b->loc, (Loc{2, 32}));     // '-'
    QCOMPARE(mul.b->a->loc, (Loc{2, 33}));
    // every node of a larger program has a location
    Program q = parse("a = Tensor([[1, 2]], dtype=dtypes.int8)[None, ..., 1:2:1] ** (3,)\nb = (a @ a.T).sum(axis=(0, 1))\n");
    int nodes = 0;
    for (const Stmt& st : q.body)
      walk(*st.value, [&](const Expr& e) {
        nodes++;
        QVERIFY(e.loc.line >= 1 && e.loc.col >= 1);
        QVERIFY(e.op_loc.line >= 1 && e.op_loc.col >= 1);
      });
    QVERIFY(nodes > 20);
  }

  void lexical_error_token() {
    std::vector<Token> t = tokenize("a = 1\nb = 'x");
    QCOMPARE(t.size(), size_t(8));
    QCOMPARE(t[6].kind, Tok::Error);
    QCOMPARE(QString::fromStdString(t[6].text), QString("line 2:5: unterminated string literal"));
    QCOMPARE(t[7].kind, Tok::End);
  }

  void standalone_expression() {
    QCOMPARE(QString::fromStdString(dump(*parse_expression("a+b*c"))), QString("(a + (b * c))"));
    QVERIFY_THROWS_EXCEPTION(Error, parse_expression("a + b c"));
  }
};

QTEST_APPLESS_MAIN(TestScriptParse)
#include "tst_script_parse.moc"
