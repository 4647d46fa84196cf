// Randomized differential test of the symbolic simplifier: thousands of random index expressions
// over small variable ranges (negative ones included, divisors of both signs, variable divisors),
// each simplified and compared with the original on every assignment; the simplified expression's
// proven bounds must contain every value (and so must every input node's), and simplifying it again
// must change nothing.
// LOUPE_SYMBOLIC_FUZZ=N sets the number of expressions per seed (default 2000); LOUPE_SYMBOLIC_SEED adds a seed.
#include <QtTest>

#include <random>

#include "ir/eval.h"
#include "ir/print.h"
#include "support/error.h"
#include "symbolic/symbolic.h"

using namespace loupe;

namespace {

struct Var {
  std::string name;
  int64_t lo, hi;
  UOpPtr u;
};

class Gen {
public:
  explicit Gen(uint64_t seed) : rng_(seed) {}

  std::vector<Var> vars() {
    std::vector<Var> vs;
    int n = 1 + pick(3);
    for (int i = 0; i < n; i++) {
      int64_t lo = range(-8, 6);
      if (coin(0.5)) lo = std::max<int64_t>(lo, 0);  // index math is mostly non-negative
      int64_t hi = lo + range(0, 9);
      std::string name(1, char('a' + i));
      vs.push_back({name, lo, hi, UOp::variable(name, lo, hi)});
    }
    return vs;
  }

  UOpPtr expr(const std::vector<Var>& vs, int depth) {
    if (depth <= 0 || coin(0.2)) return leaf(vs);
    switch (pick(13)) {
    case 0:
    case 1: return expr(vs, depth - 1) + expr(vs, depth - 1);
    case 2: return expr(vs, depth - 1) - expr(vs, depth - 1);
    case 3: return expr(vs, depth - 1) * cst(range(-6, 8));
    case 4: return coin(0.3) ? expr(vs, depth - 1) * expr(vs, depth - 2) : linear(vs);
    case 5:
    case 6: return floordiv(expr(vs, depth - 1), divisor(vs, depth));
    case 7:
    case 8: return floormod(expr(vs, depth - 1), divisor(vs, depth));
    case 9: return umax(expr(vs, depth - 1), expr(vs, depth - 1));
    case 10: return umin(expr(vs, depth - 1), expr(vs, depth - 1));
    case 11: return -expr(vs, depth - 1);
    default: {
      // index-math shapes: (sum of var*coeff + k) // c % d, and digit recombination
      UOpPtr x = linear(vs);
      int64_t c = nonzero(-4, 9);
      if (coin(0.5)) return floormod(floordiv(x, c), nonzero(-3, 6));
      return floordiv(x, c) * cst(c) + floormod(x, c);
    }
    }
  }

  // A conjunction of 1-3 bounds on small linear expressions: X < c, !(X < c), c < X.
  UOpPtr valid(const std::vector<Var>& vs) {
    UOpPtr out;
    int n = 1 + pick(3);
    for (int i = 0; i < n; i++) {
      UOpPtr x = coin(0.5) ? vs[pick(static_cast<int>(vs.size()))].u : linear(vs);
      UOpPtr c = cst(range(static_cast<int64_t>(x->vmin()) - 1, static_cast<int64_t>(std::min<__int128>(x->vmax(), x->vmin() + 30)) + 1));
      UOpPtr clause = pick(3) == 0 ? lt(c, x) : coin(0.5) ? lt(x, c) : logical_not(lt(x, c));
      out = out ? logical_and(out, clause) : clause;
    }
    return out;
  }

  UOpPtr top(const std::vector<Var>& vs) {
    int depth = 1 + pick(4);
    if (coin(0.15)) return lt(expr(vs, depth), expr(vs, depth - 1));
    return expr(vs, depth);
  }

private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  int64_t range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1)); }
  bool coin(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int64_t nonzero(int64_t lo, int64_t hi) {
    int64_t v = 0;
    while (v == 0) v = range(lo, hi);
    return v;
  }
  UOpPtr cst(int64_t v) { return UOp::cnst_int(dtypes::index, v); }
  UOpPtr leaf(const std::vector<Var>& vs) { return coin(0.7) ? vs[pick(static_cast<int>(vs.size()))].u : cst(range(-12, 12)); }
  UOpPtr linear(const std::vector<Var>& vs) {
    UOpPtr s = cst(range(-10, 10));
    for (const Var& v : vs)
      if (coin(0.8)) s = s + v.u * cst(range(-8, 16));
    return s;
  }
  UOpPtr divisor(const std::vector<Var>& vs, int depth) {
    if (coin(0.8)) return cst(coin(0.8) ? nonzero(1, 12) : nonzero(-9, -1));
    UOpPtr d = expr(vs, depth - 2);
    if (d->vmin() > 0 || d->vmax() < 0) return d;  // a divisor whose range excludes 0
    return cst(nonzero(-5, 7));
  }

  std::mt19937_64 rng_;
};

// Values of e on every assignment, or nullopt if some assignment divides by zero.
bool for_all(const std::vector<Var>& vs, const std::function<void(const VarValues&)>& f) {
  VarValues vals;
  std::vector<int64_t> cur;
  for (const Var& v : vs) cur.push_back(v.lo);
  while (true) {
    for (size_t i = 0; i < vs.size(); i++) vals[vs[i].name] = cur[i];
    f(vals);
    size_t i = 0;
    for (; i < vs.size(); i++) {
      if (++cur[i] <= vs[i].hi) break;
      cur[i] = vs[i].lo;
    }
    if (i == vs.size()) return true;
  }
}

} // namespace

class TestSymbolicRandom : public QObject {
  Q_OBJECT
private slots:
  void differential_data() {
    QTest::addColumn<quint64>("seed");
    for (quint64 s : {1ull, 2ull, 3ull, 20260101ull}) QTest::newRow(qPrintable(QString("seed %1").arg(s))) << s;
    if (qEnvironmentVariableIsSet("LOUPE_SYMBOLIC_SEED"))
      QTest::newRow("seed from env") << quint64(qEnvironmentVariable("LOUPE_SYMBOLIC_SEED").toULongLong());
  }

  void differential() {
    QFETCH(quint64, seed);
    int n = qEnvironmentVariableIsSet("LOUPE_SYMBOLIC_FUZZ") ? qEnvironmentVariableIntValue("LOUPE_SYMBOLIC_FUZZ") : 2000;
    Gen gen(seed);
    size_t checked = 0, assignments = 0, skipped = 0, nodes_before = 0, nodes_after = 0, larger = 0;
    for (int i = 0; i < n; i++) {
      std::vector<Var> vs = gen.vars();
      UOpPtr e = gen.top(vs);
      // inputs that divide by zero somewhere are not expressions of the grammar's domain
      std::vector<int64_t> want;
      bool defined = true;
      for_all(vs, [&](const VarValues& v) {
        if (!defined) return;
        try {
          want.push_back(eval_int(e, v));
        } catch (const Error&) {
          defined = false;
        }
      });
      if (!defined) {
        skipped++;
        continue;
      }
      UOpPtr s = simplify(e);
      std::string ctx = "input " + render_expr(e) + " simplified " + render_expr(s);
      size_t k = 0;
      std::string failure;
      for_all(vs, [&](const VarValues& v) {
        if (!failure.empty()) return;
        std::string at;
        for (const auto& [name, val] : v) at += name + "=" + std::to_string(val) + " ";
        int64_t got = 0;
        try {
          got = eval_int(s, v);
        } catch (const Error& err) {
          failure = ctx + ": " + err.what() + " at " + at;
          return;
        }
        if (got != want[k]) failure = ctx + ": got " + std::to_string(got) + " want " + std::to_string(want[k]) + " at " + at;
        else if (got < s->vmin() || got > s->vmax()) failure = ctx + ": value " + std::to_string(got) + " outside the proven bounds at " + at;
        k++;
      });
      if (!failure.empty()) QFAIL(failure.c_str());
      // the range analysis the rules decide on is sound for every node of the input (every 4th case:
      // evaluating each node on its own is slow)
      if (i % 4 == 0) for_all(vs, [&](const VarValues& v) {
        for (const UOp* n : e->toposort()) {
          if (!failure.empty() || n->op == Ops::CONST) continue;
          int64_t val = eval_int(n->ptr(), v);
          if (val < n->vmin() || val > n->vmax())
            failure = "bounds of " + render_expr(n->ptr()) + " miss " + std::to_string(val) + " (input " + render_expr(e) + ")";
        }
      });
      if (!failure.empty()) QFAIL(failure.c_str());
      QVERIFY2(simplify(s) == s, qPrintable(QString::fromStdString(ctx + " changes again: " + render_expr(simplify(s)))));
      checked++;
      assignments += want.size();
      size_t nb = e->toposort().size(), na = s->toposort().size();
      nodes_before += nb;
      nodes_after += na;
      larger += na > nb;
      if (na > nb && qEnvironmentVariableIsSet("LOUPE_SYMBOLIC_SHOW_GROWTH"))
        qInfo("grew %zu -> %zu: %s", nb, na, ctx.c_str());
    }
    qInfo("seed %llu: %zu expressions checked on %zu assignments (%zu skipped: division by zero); nodes %zu -> %zu; %zu grew",
          static_cast<unsigned long long>(seed), checked, assignments, skipped, nodes_before, nodes_after, larger);
    QVERIFY(checked > static_cast<size_t>(n) / 2);
  }

  // uop_given_valid must agree with the expression wherever the valid holds (and answer null only
  // when it never does); simplify_valid must keep the valid's truth on every assignment.
  void validity() {
    Gen gen(7);
    int n = qEnvironmentVariableIsSet("LOUPE_SYMBOLIC_FUZZ") ? qEnvironmentVariableIntValue("LOUPE_SYMBOLIC_FUZZ") : 2500;
    size_t checked = 0, never = 0, changed = 0;
    for (int i = 0; i < n; i++) {
      std::vector<Var> vs = gen.vars();
      UOpPtr valid = gen.valid(vs);
      UOpPtr u = gen.expr(vs, 3);
      bool defined = true, holds_somewhere = false;
      for_all(vs, [&](const VarValues& v) {
        try {
          eval_int(u, v);
        } catch (const Error&) {
          defined = false;
        }
        holds_somewhere = holds_somewhere || eval_int(valid, v) != 0;
      });
      if (!defined) continue;
      UOpPtr g = uop_given_valid(valid, u);
      UOpPtr sv = simplify_valid(valid);
      std::string ctx = "valid " + render_expr(valid) + " u " + render_expr(u) + " -> " + (g ? render_expr(g) : "null") +
                        ", simplify_valid -> " + render_expr(sv);
      if (!g) {
        QVERIFY2(!holds_somewhere, ctx.c_str());
        never++;
      }
      std::string failure;
      for_all(vs, [&](const VarValues& v) {
        if (!failure.empty()) return;
        bool holds = eval_int(valid, v) != 0;
        if ((eval_int(sv, v) != 0) != holds) failure = ctx + ": simplify_valid changed the truth";
        if (holds && g && eval_int(g, v) != eval_int(u, v)) failure = ctx + ": differs where the valid holds";
      });
      if (!failure.empty()) QFAIL(failure.c_str());
      checked++;
      changed += g && g != simplify(u);
    }
    qInfo("validity: %zu cases checked, %zu valids never hold, %zu simplified beyond plain simplify", checked, never, changed);
    QVERIFY(changed > 0);
  }
};

QTEST_APPLESS_MAIN(TestSymbolicRandom)
#include "tst_symbolic_random.moc"
