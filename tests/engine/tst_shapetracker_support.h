// Test helpers for views and ShapeTrackers: a brute-force reference (movement ops applied to an
// actual array of buffer offsets) and checks of a tracker against it.
#pragma once
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ir/eval.h"
#include "shape/shape_json.h"
#include "shape/shapetracker.h"
#include "support/json.h"

namespace loupe::testing {

// An n-d array of buffer offsets (-1 = padding), transformed literally by each movement op.
struct OffsetArray {
  std::vector<int64_t> shape;
  std::vector<int64_t> data;

  static OffsetArray iota(const std::vector<int64_t>& shape) {
    OffsetArray a{shape, {}};
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    for (int64_t i = 0; i < n; i++) a.data.push_back(i);
    return a;
  }
  int64_t size() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
  }
  int64_t flat(const std::vector<int64_t>& idx) const {
    int64_t f = 0;
    for (size_t d = 0; d < shape.size(); d++) f = f * shape[d] + idx[d];
    return f;
  }
  // Builds a new array of `new_shape` where each element is fn(its index) (an index into *this, or none).
  template <typename F> OffsetArray map(const std::vector<int64_t>& new_shape, F fn) const {
    OffsetArray out{new_shape, {}};
    int64_t n = out.size();
    std::vector<int64_t> idx(new_shape.size(), 0);
    for (int64_t k = 0; k < n; k++) {
      std::optional<std::vector<int64_t>> src = fn(idx);
      out.data.push_back(src ? data[flat(*src)] : -1);
      for (size_t d = new_shape.size(); d-- > 0;) {
        if (++idx[d] < new_shape[d]) break;
        idx[d] = 0;
      }
    }
    return out;
  }

  OffsetArray reshape(const std::vector<int64_t>& s) const { return OffsetArray{s, data}; }
  OffsetArray permute(const std::vector<int64_t>& order) const {
    std::vector<int64_t> ns;
    for (int64_t a : order) ns.push_back(shape[a]);
    return map(ns, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> src(shape.size());
      for (size_t k = 0; k < order.size(); k++) src[order[k]] = i[k];
      return std::optional(src);
    });
  }
  OffsetArray expand(const std::vector<int64_t>& ns) const {
    return map(ns, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> src(i);
      for (size_t k = 0; k < shape.size(); k++)
        if (shape[k] == 1) src[k] = 0;
      return std::optional(src);
    });
  }
  OffsetArray pad(const std::vector<std::pair<int64_t, int64_t>>& p) const {
    std::vector<int64_t> ns;
    for (size_t k = 0; k < shape.size(); k++) ns.push_back(shape[k] + p[k].first + p[k].second);
    return map(ns, [&](const std::vector<int64_t>& i) -> std::optional<std::vector<int64_t>> {
      std::vector<int64_t> src(i);
      for (size_t k = 0; k < shape.size(); k++) {
        src[k] -= p[k].first;
        if (src[k] < 0 || src[k] >= shape[k]) return std::nullopt;
      }
      return src;
    });
  }
  OffsetArray shrink(const std::vector<std::pair<int64_t, int64_t>>& r) const {
    std::vector<int64_t> ns;
    for (const auto& [b, e] : r) ns.push_back(e - b);
    return map(ns, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> src(i);
      for (size_t k = 0; k < shape.size(); k++) src[k] += r[k].first;
      return std::optional(src);
    });
  }
  OffsetArray flip(const std::vector<int64_t>& axes) const {
    return map(shape, [&](const std::vector<int64_t>& i) {
      std::vector<int64_t> src(i);
      for (int64_t a : axes) src[a] = shape[a] - 1 - i[a];
      return std::optional(src);
    });
  }

  // Applies one op in the CLI's JSON form.
  OffsetArray apply(const json::Value& op) const {
    const std::string& name = op.as_array()[0].as_string();
    const json::Value& a = op.as_array()[1];
    auto pairs = [&]() {
      std::vector<std::pair<int64_t, int64_t>> out;
      for (const json::Value& p : a.as_array()) out.emplace_back(p.as_array()[0].as_int(), p.as_array()[1].as_int());
      return out;
    };
    if (name == "reshape") return reshape(a.as_ints());
    if (name == "permute") return permute(a.as_ints());
    if (name == "expand") return expand(a.as_ints());
    if (name == "pad") return pad(pairs());
    if (name == "shrink") return shrink(pairs());
    return flip(a.as_ints());
  }
};

// Evaluates index/valid expressions at every element (row-major): the offset read, or -1.
inline std::vector<int64_t> mapping_from_exprs(const ShapeTracker& st, const UOpPtr& index, const UOpPtr& valid) {
  std::vector<int64_t> dims = to_ints(st.shape());
  int64_t n = st.size();
  std::vector<int64_t> out;
  std::vector<int64_t> idx(dims.size(), 0);
  VarValues vars;
  for (int64_t k = 0; k < n; k++) {
    for (size_t d = 0; d < dims.size(); d++) vars["ridx" + std::to_string(d)] = idx[d];
    out.push_back(eval_int(valid, vars) ? eval_int(index, vars) : -1);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// A random legal movement op for `shape`, in JSON form (small sizes: at most `max_elems` elements).
inline json::Value random_op(std::mt19937_64& rng, const std::vector<int64_t>& shape, int64_t max_elems) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  auto factor = [&]() {  // a random shape of n elements, with occasional 1s
    std::vector<int64_t> dims;
    int64_t rest = n;
    while (rest > 1) {
      std::vector<int64_t> ds;
      for (int64_t d = 2; d <= rest; d++)
        if (rest % d == 0) ds.push_back(d);
      int64_t d = ds[pick(0, ds.size() - 1)];
      dims.push_back(d);
      rest /= d;
    }
    if (n == 0) dims = {0};
    int64_t ones = pick(0, 2) == 0 ? pick(1, 2) : 0;
    for (int64_t i = 0; i < ones; i++) dims.insert(dims.begin() + pick(0, dims.size()), 1);
    std::shuffle(dims.begin(), dims.end(), rng);
    return dims;
  };
  for (;;) {
    switch (pick(0, 7)) {
    case 0:
    case 1: return json::Value::array({"reshape", json::Value::ints(factor())});
    case 2: {
      std::vector<int64_t> p(shape.size());
      for (size_t i = 0; i < p.size(); i++) p[i] = int64_t(i);
      std::shuffle(p.begin(), p.end(), rng);
      return json::Value::array({"permute", json::Value::ints(p)});
    }
    case 3: {
      std::vector<int64_t> ns(shape);
      bool any = false;
      for (int64_t& s : ns)
        if (s == 1 && pick(0, 3) != 0) s = pick(2, 3), any = true;
      if (!any) continue;
      int64_t m = 1;
      for (int64_t s : ns) m *= s;
      if (m > max_elems) continue;
      return json::Value::array({"expand", json::Value::ints(ns)});
    }
    case 4: {
      json::Value p = json::Value::array();
      int64_t m = 1;
      for (int64_t s : shape) {
        int64_t b = pick(0, 2), e = pick(0, 2);
        m *= s + b + e;
        p.push_back(json::Value::ints({b, e}));
      }
      if (m > max_elems) continue;
      return json::Value::array({"pad", p});
    }
    case 5:
    case 6: {
      json::Value r = json::Value::array();
      for (int64_t s : shape) {
        int64_t b = pick(0, s), e = pick(b, s);
        if (e == b && s > 0 && pick(0, 9) != 0) (b < s ? e = b + 1 : b = e - 1);  // empty dims only sometimes
        r.push_back(json::Value::ints({b, e}));
      }
      return json::Value::array({"shrink", r});
    }
    default: {
      std::vector<int64_t> axes;
      for (size_t i = 0; i < shape.size(); i++)
        if (pick(0, 1)) axes.push_back(int64_t(i));
      return json::Value::array({"flip", json::Value::ints(axes)});
    }
    }
  }
}

} // namespace loupe::testing
