// UOp graphs for the Graph panel's tests and benchmark: kernel-shaped graphs (globals, ranges, index
// math, loads, ALU chains with constants, stores) of a chosen size, and one-node rewrite steps.
#pragma once
#include <functional>
#include <random>
#include <unordered_map>

#include "ir/uop.h"

namespace graphfix {

using namespace loupe;

// Rebuilds root with every occurrence of `from` replaced by `to` (what a single match does).
inline UOpPtr substitute(const UOpPtr& root, const UOpPtr& from, const UOpPtr& to) {
  std::unordered_map<const UOp*, UOpPtr> memo;
  std::function<UOpPtr(const UOpPtr&)> go = [&](const UOpPtr& u) -> UOpPtr {
    if (u == from) return to;
    auto it = memo.find(u.get());
    if (it != memo.end()) return it->second;
    UOpList src;
    for (const UOpPtr& s : u->src) src.push_back(go(s));
    UOpPtr r = u->replace_src(std::move(src));
    memo.emplace(u.get(), r);
    return r;
  };
  return go(root);
}

// A kernel-like graph with at least `target` nodes (toposort size): `globals` DEFINE_GLOBALs
// read through index expressions over three RANGEs, float ALU over the loads and constants,
// STOREs into the last global, all under one SINK.
inline UOpPtr kernelGraph(int target, unsigned seed = 1, int globals = 5) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  UOpList bufs;
  for (int i = 0; i < globals; i++)
    bufs.push_back(UOp::make(Ops::DEFINE_GLOBAL, dtypes::float32.ptr(), {}, Arg(int64_t(i))));
  UOpList ranges{UOp::range(64, 0), UOp::range(32, 1), UOp::range(16, 2)};
  auto index = [&]() {
    UOpPtr a = ranges[pick(3)], b = ranges[pick(3)];
    UOpPtr idx = a * int64_t(1 + pick(64)) + b;
    if (pick(3) == 0) idx = idx + int64_t(pick(100));
    return idx;
  };
  auto load = [&]() {
    UOpPtr idx = UOp::make(Ops::INDEX, dtypes::float32.ptr(), {bufs[pick(globals - 1)], index()});
    return UOp::make(Ops::LOAD, dtypes::float32, {idx});
  };
  UOpList pool{load(), load()};
  UOpList stores;
  auto sink = [&]() {
    UOpList s = stores;
    s.push_back(UOp::make(Ops::STORE, dtypes::void_,
                          {UOp::make(Ops::INDEX, dtypes::float32.ptr(), {bufs.back(), index()}), pool.back()}));
    return UOp::make(Ops::SINK, dtypes::void_, s);
  };
  const Ops binary[] = {Ops::ADD, Ops::MUL, Ops::MAX, Ops::ADD, Ops::MUL};
  const Ops unary[] = {Ops::EXP2, Ops::LOG2, Ops::SQRT, Ops::RECIP, Ops::NEG};
  // Mostly the latest values (chains, like the body of a real kernel), now and then an older one,
  // and rarely one from far back (the long edges that make dot slow).
  auto recent = [&]() {
    size_t back = pick(100) == 0 ? pick(400) : pick(8) == 0 ? pick(40) : (pick(2) ? 0 : pick(3));
    return pool[pool.size() - 1 - std::min(pool.size() - 1, back)];
  };
  for (int step = 0;; step++) {
    if (step % 64 == 63 && static_cast<int>(sink()->toposort().size()) >= target) break;
    int r = pick(40);
    UOpPtr v;
    if (r < 6) v = load();
    else if (r < 27) {
      UOpPtr other = pick(3) == 0 ? UOp::cnst(dtypes::float32, 0.5 * (1 + pick(16))) : pool[pool.size() - 1 - std::min<size_t>(pool.size() - 1, pick(4))];
      v = alu(binary[pick(5)], {recent(), other});
    } else if (r < 34) v = alu(unary[pick(5)], {recent()});
    else if (r < 38) v = alu(Ops::WHERE, {alu(Ops::CMPLT, {recent(), recent()}), recent(), recent()});
    else {
      stores.push_back(UOp::make(Ops::STORE, dtypes::void_,
                                 {UOp::make(Ops::INDEX, dtypes::float32.ptr(), {bufs.back(), index()}), recent()}));
      continue;
    }
    pool.push_back(v);
  }
  return sink();
}

// A node of root's graph chosen deterministically among ALU ops (to be rewritten by a test step).
inline UOpPtr someAlu(const UOpPtr& root, unsigned seed) {
  std::vector<const UOp*> order = root->toposort();
  std::vector<const UOp*> alus;
  for (const UOp* u : order)
    if (is_alu(u->op) && u->dtype == dtypes::float32) alus.push_back(u);
  return alus.empty() ? nullptr : alus[seed % alus.size()]->ptr();
}

} // namespace graphfix
