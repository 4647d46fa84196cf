// Shared by the trace tests and the trace benchmark: a listener that logs what the engine did in
// every pass, the expected graph at every step (replayed with the engine's own substitute()), small
// rule sets and random expression DAGs with shared subgraphs.
#pragma once
#include <random>
#include <string>
#include <vector>

#include "rewrite/graph_rewrite.h"
#include "rewrite/listener.h"

namespace trace_fixtures {
using namespace loupe;

struct LoggedPass {
  std::string name;
  bool bottom_up = false;
  int depth = 0;
  UOpPtr input, result;
  std::vector<std::pair<UOpPtr, UOpPtr>> matches;
  std::vector<std::string> rules;
};

// Logs passes in the order they begin (like the writer); nested passes are separate entries.
struct PassLog : RewriteListener {
  std::vector<LoggedPass> passes;
  std::vector<size_t> open;
  void pass_begin(const PassInfo& p, const UOpPtr& root) override {
    passes.push_back({p.name, p.bottom_up, p.depth, root, nullptr, {}, {}});
    open.push_back(passes.size() - 1);
  }
  void match(const UOpPtr& b, const UOpPtr& a, const Rule& r, double) override {
    passes[open.back()].matches.emplace_back(b, a);
    passes[open.back()].rules.push_back(r.name);
  }
  void pass_end(const PassInfo&, const UOpPtr& result) override {
    passes[open.back()].result = result;
    open.pop_back();
  }
};

// The engine's substitute() applied until nothing changes (a replacement may contain nodes that are
// themselves replaced).
inline UOpPtr substitute_to_fixed_point(UOpPtr g, const UOpMap<UOpPtr>& rep) {
  for (int i = 0; i < 10000; i++) {
    UOpPtr next = substitute(g, rep);
    if (next == g) return g;
    g = next;
  }
  return nullptr;  // does not settle: the caller's comparison fails
}

// What VIZ shows: step 0 = input; step k = substitute the first k replacements into the previous
// step's graph (default passes) or into the input (bottom_up passes).
inline UOpList expected_steps(const LoggedPass& p) {
  UOpList out{p.input};
  UOpMap<UOpPtr> rep;
  UOpPtr g = p.input;
  for (const auto& [b, a] : p.matches) {
    rep[b] = a;
    g = substitute_to_fixed_point(p.bottom_up ? p.input : g, rep);
    out.push_back(g);
  }
  return out;
}

inline std::vector<std::string> node_keys(const UOpPtr& root) {
  std::vector<std::string> keys;
  if (!root) return keys;
  for (const UOp* n : root->toposort()) keys.push_back(n->key().hex());
  return keys;
}

// x*1 -> x, x+0 -> x, x+x -> x*2, x*0 -> 0, (x*c1)*c2 -> x*(c1*c2), (x+c1)+c2 -> x+(c1+c2)
inline PatternMatcher simple_rules() {
  auto c = [](const Match& m, const char* n) { return m[n]->const_int(); };
  return PatternMatcher{
      rule("mul_one", UPat::var("x") * 1, [](const Match& m) { return m["x"]; }),
      rule("add_zero", UPat::var("x") + 0, [](const Match& m) { return m["x"]; }),
      rule("add_self", UPat::var("x") + UPat::var("x"), [](const Match& m) { return m["x"] * 2; }),
      rule("mul_zero", UPat::var("x") * 0, [](const Match& m) { return const_of(m["x"], 0); }),
      rule("fold_mul", (UPat::var("x") * UPat::cvar("a")) * UPat::cvar("b"),
           [c](const Match& m) { return m["x"] * (c(m, "a") * c(m, "b")); }),
      rule("fold_add", (UPat::var("x") + UPat::cvar("a")) + UPat::cvar("b"),
           [c](const Match& m) { return m["x"] + (c(m, "a") + c(m, "b")); }),
  };
}

// A random integer expression DAG over a few variables; earlier subexpressions are reused so the
// graph shares nodes. Constants are drawn from {0, 1, 2, 3} so the rules above fire often.
inline UOpPtr random_expr(std::mt19937& rng, int size) {
  UOpList pool = {UOp::variable("a", 0, 10), UOp::variable("b", 0, 10), UOp::variable("c", -5, 5)};
  auto pick = [&]() -> UOpPtr {
    if (rng() % 4 == 0) return UOp::cnst_int(dtypes::index, int64_t(rng() % 4));
    return pool[rng() % pool.size()];
  };
  for (int i = 0; i < size; i++) {
    UOpPtr a = pick(), b = pick();
    if (a->is_const() && b->is_const()) a = pool[rng() % pool.size()];
    UOpPtr n = rng() % 2 ? a + b : a * b;
    pool.push_back(n);
  }
  UOpList outs;
  for (int i = 0; i < 3; i++) outs.push_back(pool[pool.size() - 1 - size_t(rng() % std::min<size_t>(pool.size(), 6))]);
  return UOp::make(Ops::SINK, dtypes::void_, outs);
}

} // namespace trace_fixtures
