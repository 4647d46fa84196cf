// Hand-made linearized kernels (the contract of engine/render/README.md) for the renderer, runtime and
// transcendental tests, plus a tiny linearizer for one-loop elementwise kernels.
#pragma once
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/uop.h"

namespace loupe::test {

inline UOpPtr global(int64_t index, DType element, int64_t size) {
  return UOp::make(Ops::DEFINE_GLOBAL, element.ptr(size), {}, Arg(index));
}
inline UOpPtr index(const UOpPtr& buf, const UOpPtr& i) { return UOp::make(Ops::INDEX, buf->dtype, {buf, i}); }
inline UOpPtr load(const UOpPtr& idx) { return UOp::make(Ops::LOAD, idx->dtype.base().scalar().vec(idx->dtype.count), {idx}); }
inline UOpPtr load_gated(const UOpPtr& idx, const UOpPtr& alt, const UOpPtr& gate) {
  return UOp::make(Ops::LOAD, alt->dtype, {idx, alt, gate});
}
inline UOpPtr store(const UOpPtr& idx, const UOpPtr& v) { return UOp::make(Ops::STORE, dtypes::void_, {idx, v}); }
inline UOpPtr endrange(const UOpPtr& r) { return UOp::make(Ops::ENDRANGE, dtypes::void_, {r}); }
inline UOpPtr binop(Ops op, const UOpPtr& a, const UOpPtr& b) {
  DType d = op == Ops::CMPLT || op == Ops::CMPNE ? dtypes::bool_.vec(a->dtype.count) : a->dtype;
  return UOp::make(op, d, {a, b});
}
inline UOpPtr unop(Ops op, const UOpPtr& a) { return UOp::make(op, a->dtype, {a}); }

// Appends the nodes a value needs (sources first) that are not in the list yet.
inline void place(UOpList& list, std::unordered_set<const UOp*>& placed, const UOpPtr& root) {
  for (const UOp* u : root->toposort()) {
    if (placed.count(u)) continue;
    placed.insert(u);
    list.push_back(u->ptr());
  }
}

// out[i] = f(in0[i], in1[i], ...) for i < n: DEFINE_GLOBALs, constants, one RANGE, loads, the value, a store.
inline UOpList elementwise(DType out, const std::vector<DType>& ins, int64_t n,
                           const std::function<UOpPtr(const UOpList&)>& f) {
  UOpList list;
  std::unordered_set<const UOp*> placed;
  auto add = [&](const UOpPtr& u) {
    placed.insert(u.get());
    list.push_back(u);
  };
  UOpPtr g0 = global(0, out, n);
  add(g0);
  UOpList gs;
  for (size_t i = 0; i < ins.size(); i++) {
    gs.push_back(global(static_cast<int64_t>(i) + 1, ins[i], n));
    add(gs.back());
  }
  UOpPtr end = UOp::cnst_int(dtypes::index, n);
  add(end);
  UOpPtr r = UOp::range(n, 0);
  add(r);
  UOpList vals;
  for (const UOpPtr& g : gs) {
    UOpPtr v = load(index(g, r));
    place(list, placed, v);
    vals.push_back(v);
  }
  UOpPtr st = store(index(g0, r), f(vals));
  place(list, placed, st);
  add(endrange(r));
  return list;
}

// data0[i] = data1[i] + data2[i], 16 floats.
inline UOpList kernel_add() {
  return elementwise(dtypes::float32, {dtypes::float32, dtypes::float32}, 16,
                     [](const UOpList& v) { return binop(Ops::ADD, v[0], v[1]); });
}

// data0[i] = sum_j data1[i*8 + j], 4 x 8 floats: an accumulator around an inner loop.
inline UOpList kernel_reduce() {
  UOpPtr g0 = global(0, dtypes::float32, 4), g1 = global(1, dtypes::float32, 32);
  UOpPtr c4 = UOp::cnst_int(dtypes::index, 4), c8 = UOp::cnst_int(dtypes::index, 8);
  UOpPtr zero = UOp::cnst(dtypes::float32, 0.0);
  UOpPtr r0 = UOp::range(4, 0), r1 = UOp::range(8, 1);
  UOpPtr acc = UOp::make(Ops::DEFINE_ACC, dtypes::float32, {zero, r1}, Arg(Arg::Tuple{Arg(0)}));
  UOpPtr i = r0 * c8 + r1;
  UOpPtr v = load(index(g1, i));
  UOpPtr sum = binop(Ops::ADD, acc, v);
  UOpPtr asg = UOp::make(Ops::ASSIGN, dtypes::float32, {acc, sum});
  UOpPtr i0 = index(g0, r0);
  return {g0, g1, c4, c8, zero, r0, acc, r1, r0 * c8, i, index(g1, i), v, sum, asg, endrange(r1), i0, store(i0, asg),
          endrange(r0)};
}

// data0[i] = (1 <= i < 5) ? data1[i-1] : 0.0f for i < 6: a padded read through a gated load.
inline UOpList kernel_gated() {
  UOpPtr g0 = global(0, dtypes::float32, 6), g1 = global(1, dtypes::float32, 4);
  UOpPtr r = UOp::range(6, 0);
  UOpPtr valid = logical_and(logical_not(lt(r, 1)), lt(r, 5));
  UOpPtr idx = index(g1, r + UOp::cnst_int(dtypes::index, -1));
  UOpPtr v = load_gated(idx, UOp::cnst(dtypes::float32, 0.0), valid);
  UOpPtr st = store(index(g0, r), v);
  UOpList list{g0, g1};
  std::unordered_set<const UOp*> placed{g0.get(), g1.get()};
  place(list, placed, r);
  place(list, placed, st);
  list.push_back(endrange(r));
  return list;
}

// Integer floor division and modulo with Python semantics: data0[i] = data2[i] // data3[i] (general, with
// negative numbers), data1[i] = data2[i] % data3[i]; plus index math that needs none (i // 3, i % 3 on i >= 0).
inline UOpList kernel_floor_divmod(int64_t n) {
  UOpPtr g0 = global(0, dtypes::int32, n), g1 = global(1, dtypes::int32, n), g2 = global(2, dtypes::int32, n),
         g3 = global(3, dtypes::int32, n), g4 = global(4, dtypes::int32, n);
  UOpPtr r = UOp::range(n, 0);
  UOpPtr a = load(index(g2, r)), b = load(index(g3, r));
  UOpPtr q = binop(Ops::FLOORDIV, a, b), m = binop(Ops::FLOORMOD, a, b);
  UOpPtr s0 = store(index(g0, r), q), s1 = store(index(g1, r), m);
  UOpPtr plain = cast(floordiv(r, 3) * 10 + floormod(r, 3), dtypes::int32);
  UOpPtr s2 = store(index(g4, r), plain);
  UOpList list{g0, g1, g2, g3, g4};
  std::unordered_set<const UOp*> placed(list.size());
  for (auto& u : list) placed.insert(u.get());
  place(list, placed, r);
  place(list, placed, s0);
  place(list, placed, s1);
  place(list, placed, s2);
  list.push_back(endrange(r));
  return list;
}

// data0[4i .. 4i+3] = data1[4i .. 4i+3] * 2 + i: float4 loads and stores through CAST(INDEX).
inline UOpList kernel_float4() {
  DType f4 = dtypes::float32.vec(4);
  UOpPtr g0 = global(0, dtypes::float32, 32), g1 = global(1, dtypes::float32, 32);
  UOpPtr r = UOp::range(8, 0);
  UOpPtr base = r * 4;
  UOpPtr p1 = UOp::make(Ops::CAST, f4.ptr(32), {index(g1, base)});
  UOpPtr v = UOp::make(Ops::LOAD, f4, {p1});
  UOpPtr two = UOp::cnst(f4, 2.0);
  UOpPtr fi = cast(r, dtypes::float32);
  UOpPtr bias = UOp::make(Ops::VECTORIZE, f4, {fi, fi, fi, fi});
  UOpPtr y = binop(Ops::ADD, binop(Ops::MUL, v, two), bias);
  UOpPtr p0 = UOp::make(Ops::CAST, f4.ptr(32), {index(g0, base)});
  UOpPtr st = store(p0, y);
  UOpList list{g0, g1};
  std::unordered_set<const UOp*> placed{g0.get(), g1.get()};
  place(list, placed, r);
  place(list, placed, st);
  list.push_back(endrange(r));
  return list;
}

} // namespace loupe::test
