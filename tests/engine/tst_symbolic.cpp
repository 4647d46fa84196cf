// The symbolic simplifier, table-driven: the verified examples of the reference map (§6) and Loupe's
// own cases (negative ranges and divisors with floor semantics, min/max, comparisons), validity,
// symbolic_flat, the rule sets as data, and the expression parser's errors.
#include <QtTest>

#include "ir/eval.h"
#include "ir/print.h"
#include "rewrite/graph_rewrite.h"
#include "support/error.h"
#include "symbolic/expr_parser.h"
#include "symbolic/symbolic.h"

using namespace loupe;

namespace {

const VarRanges kVars = {{"x", {0, 10}}, {"a", {0, 3}}, {"b", {0, 2}}, {"n", {-5, 5}}, {"m", {-9, -2}}, {"d", {1, 6}}, {"y", {0, 200}}};

// Every assignment of the variables an expression uses agrees between a and b.
bool equivalent(const UOpPtr& a, const UOpPtr& b) {
  std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> used;
  for (const UOp* n : a->toposort())
    if (n->op == Ops::DEFINE_VAR) used.push_back({n->var_name(), {n->vmin(), n->vmax()}});
  std::vector<int64_t> cur;
  for (auto& u : used) cur.push_back(u.second.first);
  while (true) {
    VarValues v;
    for (size_t i = 0; i < used.size(); i++) v[used[i].first] = cur[i];
    if (eval_int(a, v) != eval_int(b, v)) return false;
    size_t i = 0;
    for (; i < used.size(); i++) {
      if (++cur[i] <= used[i].second.second) break;
      cur[i] = used[i].second.first;
    }
    if (i == used.size()) return true;
  }
}

} // namespace

class TestSymbolic : public QObject {
  Q_OBJECT
private slots:
  void table_data() {
    QTest::addColumn<QString>("expr");
    QTest::addColumn<QString>("want");
    // reference map §6, verified examples (x in [0,10], a in [0,3], b in [0,2], n in [-5,5])
    QTest::newRow("like terms") << "x*2 + x*3" << "(x*5)";
    QTest::newRow("assoc consts") << "(x+3)+5" << "(x+8)";
    QTest::newRow("div gcd") << "(x*4)//2" << "(x*2)";
    QTest::newRow("div offset") << "(x*4+3)//4" << "x";
    QTest::newRow("mod offset") << "(x*4+3)%4" << "3";
    QTest::newRow("div sum") << "(a*4 + x*16 + 2)//4" << "(a+(x*4))";
    QTest::newRow("mod sum") << "(a + 4*x) % 4" << "a";
    QTest::newRow("div of div") << "(x//2)//3" << "(x//6)";
    QTest::newRow("div small") << "a//4" << "0";
    QTest::newRow("mod small") << "a%4" << "a";
    QTest::newRow("lt true") << "x < 11" << "True";
    QTest::newRow("lt false") << "x < 0" << "False";
    QTest::newRow("lt mul") << "(x*4) < 9" << "(x<3)";
    QTest::newRow("lt div") << "(x//4) < 2" << "(x<8)";
    QTest::newRow("lt folding") << "(x*4 + a) < 8" << "(x<2)";
    QTest::newRow("max const") << "max(x, 12)" << "12";
    QTest::newRow("max bounds") << "max(a, x+4)" << "(x+4)";
    QTest::newRow("recombine") << "(x%4) + (x//4)*4" << "x";
    QTest::newRow("mod in range") << "(b+1) % 4" << "(b+1)";
    QTest::newRow("neg mul div") << "(n*2)//2" << "n";
    QTest::newRow("neg mod kept") << "n%3" << "(n%3)";
    QTest::newRow("gcd mod") << "(x*6+4)%4" << "((x%2)*2)";
    QTest::newRow("gcd div") << "(x*6+4)//4" << "((x+(x//2))+1)";
    QTest::newRow("simplex") << "(a*2 + x*3) < 1" << "((a+x)<1)";
    // floor semantics with negative ranges and divisors
    QTest::newRow("neg divisor kept") << "n // -2" << "(n//-2)";
    QTest::newRow("neg divisor mod kept") << "n % -2" << "(n%-2)";
    QTest::newRow("neg divisor div") << "(n*4+3)//-4" << "((-n)-1)";
    QTest::newRow("neg divisor mod") << "(n*4+3)%-4" << "-1";
    QTest::newRow("neg range window div") << "m // 10" << "-1";
    QTest::newRow("neg range window mod") << "m % 10" << "(m+10)";
    QTest::newRow("neg recombine") << "(n//4)*4 + n%4" << "n";
    QTest::newRow("neg offset mod") << "(n*4 - 3) % 4" << "1";
    QTest::newRow("neg nested mod") << "(n % 12) % 4" << "(n%4)";
    QTest::newRow("neg lt") << "n*2 < -4" << "(n<-2)";
    QTest::newRow("neg coeff div") << "(a*8 - x*4 + 40)//4" << "(((a*2)-x)+10)";
    // terms, min/max, comparisons
    QTest::newRow("cancel") << "a + b - a" << "b";
    QTest::newRow("factor cancel") << "a*5 + b*5 - (a + b)*5" << "0";
    QTest::newRow("double neg") << "-(-a)" << "a";
    QTest::newRow("min by difference") << "min(a, a+1)" << "a";
    QTest::newRow("max by difference") << "max(x, x+2)" << "(x+2)";
    QTest::newRow("min kept") << "min(x, 3)" << "min(x, 3)";
    QTest::newRow("lt cancel") << "a + x < x + 2" << "(a<2)";
    QTest::newRow("lt gcd both sides") << "a*2 + b*2 < 7" << "((a+b)<4)";
    QTest::newRow("lt const left") << "0 < a*2 + x*3 - 1 + 1" << "(0<(a+x))";
    QTest::newRow("digits") << "(x // 8)*8 + ((x // 4) % 2)*4 + ((x // 2) % 2)*2 + (x % 2)" << "x";
    QTest::newRow("nested mod div") << "((y % 24) // 4) % 6" << "((y//4)%6)";
    QTest::newRow("div of mod") << "((y // 4) % 6) // 2" << "((y//8)%3)";
    QTest::newRow("var divisor") << "(x*d + 1)//d" << "(x+(1//d))";
    QTest::newRow("var divisor mod") << "(x*d + a)%d" << "(a%d)";
    QTest::newRow("var divisor exact") << "(x*d)//d" << "x";
    QTest::newRow("unrolled divs") << "y//4 + (y+1)//4 + (y+2)//4 + (y+3)//4" << "y";
    QTest::newRow("unrolled divs offset") << "((y+2)//3 + (y+3)//3 + (y+4)//3)*2 + 1" << "((y*2)+5)";
    // a numerator's constant is kept in [0, c): its multiples leave the division (small index constants)
    QTest::newRow("div constant out negative") << "(x - 2)//4" << "(((x+2)//4)-1)";
    QTest::newRow("div constant out") << "(x+9)//4" << "(((x+1)//4)+2)";
    QTest::newRow("div constant kept") << "(x+3)//4" << "((x+3)//4)";
    // a quotient constant over the box leaves x - q*y for a variable divisor too
    QTest::newRow("var divisor constant quotient") << "(a+20) % (b+8)" << "((a+(b*-2))+4)";
    QTest::newRow("nest by factor") << "(a*4 + x*6 + 2) // 8" << "(((a+x)+((x+1)//2))//2)";
  }
  void table() {
    QFETCH(QString, expr);
    QFETCH(QString, want);
    UOpPtr e = parse_index_expr(expr.toStdString(), kVars);
    UOpPtr s = simplify(e);
    QCOMPARE(QString::fromStdString(render_expr(s)), want);
    QVERIFY(equivalent(e, s));
    QVERIFY(simplify(s) == s);  // a fixed point
  }

  void ranges() {
    // reference map §6 with kernel axes: r = RANGE 0..15, g = RANGE 0..3
    UOpPtr r = UOp::range(16, 0), g = UOp::range(4, 1);
    QCOMPARE(render_expr(simplify(floordiv(r, 4) * 4 + floormod(r, 4))), std::string("ridx0"));
    UOpPtr e = floordiv(g * 4 + r, 16);
    UOpPtr s = simplify(e);
    QCOMPARE(render_expr(s), std::string("((ridx1+(ridx0//4))//4)"));  // tinygrad: ((ridx0//4)+ridx1)//4
    for (int64_t i = 0; i < 16; i++)
      for (int64_t j = 0; j < 4; j++) QCOMPARE(eval_int(s, {{"ridx0", i}, {"ridx1", j}}), (j * 4 + i) / 16);
    QCOMPARE(render_expr(simplify(floormod(r, 16))), std::string("ridx0"));
  }

  void validity() {
    UOpPtr r = UOp::range(16, 0);
    // reference map §6
    UOpPtr u = uop_given_valid(lt(r, 4), floormod(r, 4) + floordiv(r, 4) * 100);
    QVERIFY(u);
    QCOMPARE(render_expr(u), std::string("ridx0"));
    UOpPtr v = simplify_valid(logical_and(lt(r + 1, 5), lt(r, 3)));
    QCOMPARE(render_expr(v), std::string("(ridx0<3)"));
    // a valid that can never hold
    QVERIFY(uop_given_valid(logical_and(lt(r, 3), logical_not(lt(r, 5))), r) == nullptr);
    QCOMPARE(render_expr(simplify_valid(logical_and(lt(r, 3), logical_not(lt(r, 5))))), std::string("False"));
    // a lower bound: r >= 8 makes r//8 one
    UOpPtr w = uop_given_valid(logical_not(lt(r, 8)), floordiv(r, 8) * 3 + floormod(r, 8));
    QCOMPARE(render_expr(w), std::string("(ridx0-5)"));
    // c < X reads as X >= c+1
    UOpPtr c = uop_given_valid(lt(UOp::cnst_int(dtypes::index, 11), r), floordiv(r, 12));
    QCOMPARE(render_expr(c), std::string("1"));
    // clauses unrelated to u leave it as it is
    UOpPtr x = UOp::variable("x", 0, 10);
    QCOMPARE(render_expr(uop_given_valid(lt(x, 5), floordiv(r, 4))), std::string("(ridx0//4)"));
    // simplex: a+b >= 1 over non-negative a, b
    UOpPtr a = UOp::variable("a", 0, 3), b = UOp::variable("b", 0, 3);
    UOpPtr sx = uop_given_valid(logical_not(lt(a + b, 1)), lt(UOp::cnst_int(dtypes::index, 0), a + b));
    QCOMPARE(render_expr(sx), std::string("True"));
  }

  void flat() {
    UOpPtr a = UOp::variable("a", 0, 10), b = UOp::variable("b", 0, 10);
    UOpPtr e = (a + b) * 3;
    QCOMPARE(render_expr(simplify(e)), std::string("((a+b)*3)"));
    QCOMPARE(render_expr(graph_rewrite(e, symbolic_flat())), std::string("((a*3)+(b*3))"));
    QCOMPARE(render_expr(graph_rewrite((a + b) * -1, symbolic_flat())), std::string("((-a)-b)"));
  }

  void simple_set_only_folds() {
    UOpPtr a = UOp::variable("a", 0, 10);
    UOpPtr e = (a * 1 + 0) + UOp::cnst_int(dtypes::index, 2) * UOp::cnst_int(dtypes::index, 3);
    QCOMPARE(render_expr(graph_rewrite(e, symbolic_simple())), std::string("(a+6)"));
    // range folding is phase 2
    QCOMPARE(render_expr(graph_rewrite(floordiv(a, 20), symbolic_simple())), std::string("(a//20)"));
    QCOMPARE(render_expr(simplify(floordiv(a, 20))), std::string("0"));
  }

  void fixed_width_ints() {
    // int32 arithmetic wraps: no index algebra, but ring identities and constant folding hold
    UOpPtr x = UOp::variable("x", -1000, 1000, dtypes::int32);
    UOpPtr c = UOp::cnst_int(dtypes::int32, 2147483647);
    QCOMPARE(render_expr(simplify(c + UOp::cnst_int(dtypes::int32, 1))), std::string("-2147483648"));
    QCOMPARE(render_expr(simplify(x * 2 + x * 3)), std::string("(x*5)"));
    QCOMPARE(render_expr(simplify((x + 3) + 4)), std::string("(x+7)"));
    UOpPtr d = floordiv(x * 4, UOp::cnst_int(dtypes::int32, 4));
    QCOMPARE(simplify(d), d);  // x*4 may wrap in int32: not folded
  }

  void bools_and_where() {
    UOpPtr a = UOp::variable("a", 0, 10), b = UOp::variable("b", 0, 10);
    UOpPtr c = lt(a, 5), d = lt(b, 3);
    UOpPtr t = UOp::cnst_bool(true), f = UOp::cnst_bool(false);
    QCOMPARE(simplify(where(c, a, a)), a);
    QCOMPARE(simplify(where(t, a, b)), a);
    QCOMPARE(simplify(where(f, a, b)), b);
    QCOMPARE(simplify(where(logical_not(c), a, b)), simplify(where(c, b, a)));
    QCOMPARE(simplify(logical_and(c, t)), c);
    QCOMPARE(simplify(logical_and(c, f)), f);
    QCOMPARE(simplify(logical_or(c, t)), t);
    QCOMPARE(simplify(logical_or(c, logical_not(c))), t);
    QCOMPARE(simplify(logical_and(c, logical_not(c))), f);
    QCOMPARE(simplify(logical_not(logical_not(c))), c);
    QCOMPARE(simplify(logical_and(c, c)), c);
    QCOMPARE(simplify(c * d), simplify(logical_and(c, d)));  // bool MUL is AND
    QCOMPARE(simplify(c + d), simplify(logical_or(c, d)));   // bool ADD is OR
    QCOMPARE(simplify(where(c, t, f)), c);
    QCOMPARE(render_expr(simplify(where(c, f, t))), std::string("(not (a<5))"));
    // selects on one condition combine when a side is constant
    UOpPtr w = where(c, UOp::cnst_int(dtypes::index, 2), a) + where(c, UOp::cnst_int(dtypes::index, 3), b);
    QCOMPARE(render_expr(simplify(w)), std::string("(5 if (a<5) else (a+b))"));
    // the same operands in either order are one node
    QCOMPARE(simplify(umax(b, a)), simplify(umax(a, b)));
    QCOMPARE(simplify(logical_and(d, c)), simplify(logical_and(c, d)));
    // ne of index math: decided by the difference's range or a common factor
    QCOMPARE(simplify(ne(a * 2, a * 2 + 1)), t);
    QCOMPARE(simplify(ne(a * 2, b * 4 + 1)), t);
    QCOMPARE(render_expr(simplify(ne(a + 3, b + 3))), std::string("(a!=b)"));
  }

  void rules_are_data() {
    for (const PatternMatcher* pm : {&symbolic_simple(), &symbolic(), &symbolic_flat()}) {
      QVERIFY(!pm->rules().empty());
      for (const Rule& r : pm->rules()) {
        QVERIFY(!r.name.empty());
        QVERIFY2(std::string(r.location.file_name()).find("symbolic") != std::string::npos, r.name.c_str());
        QVERIFY(r.location.line() > 0);
      }
    }
    QVERIFY(symbolic().rules().size() > symbolic_simple().rules().size());
  }

  void parse_errors_data() {
    QTest::addColumn<QString>("expr");
    QTest::addColumn<QString>("message");
    QTest::newRow("dangling op") << "a +" << "column 4: expected a number, a name or '(' but the expression ends";
    QTest::newRow("unclosed") << "(a + 1" << "column 7: expected ')' but the expression ends";
    QTest::newRow("bad char") << "a $ 1" << "column 3: unexpected '$'";
    QTest::newRow("unknown var") << "a + q" << "column 5: unknown variable 'q' (give its range in vars)";
    QTest::newRow("div zero") << "a // 0" << "column 3: division by zero";
    QTest::newRow("mod zero expr") << "a % (3 - 3)" << "column 3: modulo by zero";
    QTest::newRow("two lt") << "a < 1 < 2" << "column 7: at most one '<' is allowed";
    QTest::newRow("nested lt") << "(a < 1) + 1" << "column 4: '<' is only allowed at the top level";
    QTest::newRow("true div") << "a / 2" << "column 3: '/' is true division: use '//' (floor division)";
    QTest::newRow("function") << "abs(a)" << "column 1: unknown function 'abs' (only min and max)";
    QTest::newRow("min arity") << "min(a, 1, 2)" << "column 9: min() takes exactly two arguments";
    QTest::newRow("empty") << "   " << "column 4: empty expression";
    QTest::newRow("huge") << "99999999999999999999" << "column 1: integer too large";
  }
  void parse_errors() {
    QFETCH(QString, expr);
    QFETCH(QString, message);
    try {
      parse_index_expr(expr.toStdString(), kVars);
      QFAIL("no error");
    } catch (const Error& e) {
      QCOMPARE(QString::fromStdString(e.what()), message);
    }
  }

  void var_ranges() {
    VarRanges v = parse_var_ranges("a=0:10,b=-3:3");
    QCOMPARE(v.size(), size_t(2));
    QCOMPARE(v["b"].first, int64_t(-3));
    QVERIFY_THROWS_EXCEPTION(Error, parse_var_ranges("a=5:1"));
    QVERIFY_THROWS_EXCEPTION(Error, parse_var_ranges("a=0-5"));
    QVERIFY_THROWS_EXCEPTION(Error, parse_var_ranges("a=0:x"));
    QVERIFY_THROWS_EXCEPTION(Error, parse_var_ranges("a=0:1,a=0:2"));
    QVERIFY_THROWS_EXCEPTION(Error, parse_index_expr("a", {{"a", {3, 1}}}));
  }
};

QTEST_APPLESS_MAIN(TestSymbolic)
#include "tst_symbolic.moc"
