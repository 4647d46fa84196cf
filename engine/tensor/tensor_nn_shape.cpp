// Shape-building functions: einsum (align every operand to one sorted alphabet of axes, multiply,
// sum the letters the output drops), einops-style rearrange (unflatten, permute, flatten), meshgrid,
// roll, unfold (a 1-d pooling window), repeat_interleave and diagonals. Only views and one product/sum.
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "support/error.h"
#include "tensor/tensor.h"

namespace loupe {

namespace {
std::vector<int64_t> argsort_ints(const std::vector<int64_t>& v) {
  std::vector<int64_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return v[a] < v[b]; });
  return idx;
}

std::vector<std::string> split_str(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); i++)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// The formula's letters that appear exactly once, sorted (numpy's implicit output).
std::string implicit_output(const std::string& lhs, const std::string& exclude = "") {
  std::string out;
  for (char c : lhs)
    if (is_letter(c) && std::count(lhs.begin(), lhs.end(), c) == 1 && exclude.find(c) == std::string::npos) out += c;
  std::sort(out.begin(), out.end());
  return out;
}
} // namespace

// ---- einsum ----

Tensor Tensor::einsum(const std::string& formula_in, const std::vector<Tensor>& operands, std::optional<DType> acc_dtype) {
  std::string formula;
  for (char c : formula_in)
    if (c != ' ') formula += c;
  auto bad = [&](const std::string& why) { return AssertionError(loupe::cat("einsum('", formula_in, "'): ", why)); };
  if (operands.empty()) throw bad("needs at least one operand");
  size_t arrow = formula.find("->");
  if (arrow != std::string::npos && formula.find("->", arrow + 2) != std::string::npos) throw bad("more than one '->'");
  for (size_t i = 0; i < formula.size(); i++) {
    char c = formula[i];
    bool arrow_char = arrow != std::string::npos && (i == arrow || i == arrow + 1);
    if (!is_letter(c) && c != ',' && c != '.' && !arrow_char) throw bad(loupe::cat("unexpected character '", c, "'"));
  }
  std::vector<Tensor> xs = operands;
  // an accumulator wider than the operands takes their exact products (a half times a half is a float32)
  if (acc_dtype && acc_dtype->is_float())
    for (Tensor& x : xs)
      if (acc_dtype->itemsize() > dtypes::strong(x.dtype()).itemsize()) x = x.cast(*acc_dtype);
  std::string lhs = formula.substr(0, arrow), rhs;
  bool explicit_rhs = arrow != std::string::npos;
  if (explicit_rhs) rhs = formula.substr(arrow + 2);
  std::vector<std::string> inputs = split_str(lhs, ',');
  if (inputs.size() != xs.size()) throw bad(loupe::cat("the formula has ", inputs.size(), " operands but ", xs.size(), " were given"));
  // an ellipsis becomes letters the formula does not use, right-aligned across operands
  if (formula.find("...") != std::string::npos) {
    std::string unused;
    for (char c = 'a'; c <= 'z'; c++)
      if (formula.find(c) == std::string::npos) unused += c;
    for (char c = 'A'; c <= 'Z'; c++)
      if (formula.find(c) == std::string::npos) unused += c;
    std::vector<int64_t> ell_n;
    for (size_t i = 0; i < inputs.size(); i++) {
      size_t p = inputs[i].find("...");
      if (p == std::string::npos) {
        ell_n.push_back(0);
        continue;
      }
      if (inputs[i].find("...", p + 3) != std::string::npos) throw bad("an operand has more than one '...'");
      ell_n.push_back(std::max<int64_t>(0, xs[i].ndim() - static_cast<int64_t>(inputs[i].size()) + 3));
    }
    int64_t mx = *std::max_element(ell_n.begin(), ell_n.end());
    if (mx > static_cast<int64_t>(unused.size())) throw bad("too many dimensions under '...'");
    for (size_t i = 0; i < inputs.size(); i++) {
      size_t p = inputs[i].find("...");
      if (p != std::string::npos) inputs[i].replace(p, 3, unused.substr(mx - ell_n[i], ell_n[i]));
    }
    std::string ell = unused.substr(0, mx);
    std::string joined;
    for (size_t i = 0; i < inputs.size(); i++) joined += (i ? "," : "") + inputs[i];
    if (explicit_rhs) {
      size_t p = rhs.find("...");
      if (p != std::string::npos) rhs.replace(p, 3, ell);
    } else {
      rhs = ell + implicit_output(joined, unused);
      explicit_rhs = true;
    }
    lhs = joined;
  }
  if (!explicit_rhs) rhs = implicit_output(lhs);
  for (const std::string& s : inputs)
    if (s.find('.') != std::string::npos) throw bad("'.' is only allowed as '...'");
  if (rhs.find('.') != std::string::npos) throw bad("'...' in the output needs '...' in the inputs");
  // a letter repeated inside one operand takes that operand's diagonal
  for (size_t i = 0; i < inputs.size(); i++) {
    std::string& s = inputs[i];
    if (static_cast<int64_t>(s.size()) != xs[i].ndim())
      throw bad(loupe::cat("operand ", i, " has shape ", shape_str(xs[i].shape()), " but its subscript '", s, "' names ", s.size(),
                           " dimensions"));
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t j = 0; j < s.size() && !changed; j++) {
        size_t k = s.find(s[j], j + 1);
        if (k == std::string::npos) continue;
        if (xs[i].shape()[j] != xs[i].shape()[k])
          throw bad(loupe::cat("letter '", s[j], "' repeats in operand ", i, " over dimensions of sizes ", xs[i].shape()[j], " and ",
                               xs[i].shape()[k]));
        xs[i] = xs[i].diagonal(0, static_cast<int64_t>(j), static_cast<int64_t>(k));  // the diagonal goes last
        char c = s[j];
        s.erase(k, 1);
        s.erase(j, 1);
        s += c;
        changed = true;
      }
    }
  }
  std::map<char, int64_t> sz;
  for (size_t i = 0; i < inputs.size(); i++)
    for (size_t j = 0; j < inputs[i].size(); j++) {
      auto [it, fresh] = sz.emplace(inputs[i][j], xs[i].shape()[j]);
      if (!fresh && it->second != xs[i].shape()[j])
        throw bad(loupe::cat("letter '", inputs[i][j], "' has size ", it->second, " and ", xs[i].shape()[j], " in different operands"));
    }
  std::set<char> seen_out;
  for (char c : rhs) {
    if (!sz.count(c)) throw bad(loupe::cat("output letter '", c, "' does not appear in the inputs"));
    if (!seen_out.insert(c).second) throw bad(loupe::cat("output letter '", c, "' appears twice"));
  }
  std::string alpha;
  for (auto& [c, n] : sz) alpha += c;  // std::map keeps them sorted
  std::optional<Tensor> prod;
  for (size_t i = 0; i < inputs.size(); i++) {
    const std::string& s = inputs[i];
    Tensor x = xs[i];
    if (!s.empty()) {
      std::string sorted_s = s;
      std::sort(sorted_s.begin(), sorted_s.end());
      std::vector<int64_t> perm;
      for (char c : sorted_s) perm.push_back(static_cast<int64_t>(s.find(c)));
      Shape rs;
      for (char c : alpha) rs.push_back(s.find(c) != std::string::npos ? sz[c] : 1);
      x = x.permute(perm).reshape(rs);
    }
    prod = !prod ? x : prod->dtype().is_bool() && x.dtype().is_bool() ? prod->bitwise_and(x) : *prod * x;
  }
  std::vector<int64_t> drop;
  for (size_t i = 0; i < alpha.size(); i++)
    if (rhs.find(alpha[i]) == std::string::npos) drop.push_back(static_cast<int64_t>(i));
  std::vector<int64_t> rhs_codes(rhs.begin(), rhs.end());
  return prod->sum(Axes(drop), false, acc_dtype).permute(argsort_ints(argsort_ints(rhs_codes)));
}

// ---- rearrange ----

namespace {
struct Side {
  std::vector<std::string> names;
  std::vector<std::pair<int64_t, int64_t>> groups;  // [start, end) positions in names of each (...)
};

Side parse_side(const std::string& text, const std::string& formula) {
  auto bad = [&](const std::string& why) { return Error(loupe::cat("rearrange('", formula, "'): ", why)); };
  Side side;
  std::vector<std::string> tokens;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) tokens.push_back(cur);
    cur.clear();
  };
  for (char c : text) {
    if (c == '(' || c == ')') {
      flush();
      tokens.push_back(std::string(1, c));
    } else if (c == ' ' || c == '\t') {
      flush();
    } else {
      cur += c;
    }
  }
  flush();
  std::optional<int64_t> open;
  for (const std::string& t : tokens) {
    if (t == "(") {
      if (open) throw bad("nested parentheses");
      open = static_cast<int64_t>(side.names.size());
    } else if (t == ")") {
      if (!open) throw bad("unbalanced parentheses");
      side.groups.push_back({*open, static_cast<int64_t>(side.names.size())});
      open.reset();
    } else if (t == "1") {
      if (open) throw bad("'1' inside parentheses");
      side.groups.push_back({static_cast<int64_t>(side.names.size()), static_cast<int64_t>(side.names.size())});  // a unit axis
    } else {
      bool ok = t == "..." || ((std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_') && t.front() != '_' && t.back() != '_');
      for (char c : t) ok = ok && (t == "..." || std::isalnum(static_cast<unsigned char>(c)) || c == '_');
      if (!ok) throw bad(loupe::cat("invalid axis name '", t, "'"));
      side.names.push_back(t);
    }
  }
  if (open) throw bad("unbalanced parentheses");
  return side;
}
} // namespace

Tensor Tensor::rearrange(const std::string& formula, const std::vector<std::pair<std::string, int64_t>>& sizes) const {
  auto bad = [&](const std::string& why) { return Error(loupe::cat("rearrange('", formula, "'): ", why)); };
  size_t arrow = formula.find("->");
  if (arrow == std::string::npos || formula.find("->", arrow + 2) != std::string::npos) throw bad("needs exactly one '->'");
  Side l = parse_side(formula.substr(0, arrow), formula), r = parse_side(formula.substr(arrow + 2), formula);
  std::map<std::string, int64_t> size_of(sizes.begin(), sizes.end());
  for (auto& [name, v] : size_of)
    if (std::find(l.names.begin(), l.names.end(), name) == l.names.end()) throw bad(loupe::cat("axis '", name, "' is not used in the transform"));
  auto sorted_l = l.names, sorted_r = r.names;
  std::sort(sorted_l.begin(), sorted_l.end());
  std::sort(sorted_r.begin(), sorted_r.end());
  if (sorted_l != sorted_r) throw bad("the two sides must name the same axes");
  if (std::adjacent_find(sorted_l.begin(), sorted_l.end()) != sorted_l.end()) throw bad("an axis name repeats");
  for (auto [s, e] : l.groups)
    for (int64_t i = s; i < e; i++)
      if (l.names[i] == "...") throw bad("'...' cannot be inside parentheses on the left");
  // an ellipsis stands for the dimensions the names do not cover
  auto ell_at = std::find(l.names.begin(), l.names.end(), "...");
  if (ell_at != l.names.end()) {
    int64_t grouped_extra = 0;
    for (auto [s, e] : l.groups) grouped_extra += e - s - 1;
    int64_t ell_len = ndim() - static_cast<int64_t>(l.names.size()) + 1 + grouped_extra;
    if (ell_len < 0) throw bad(loupe::cat("shape ", shape_str(shape()), " has fewer dimensions than the left side names"));
    auto expand = [&](Side& side) {
      auto it = std::find(side.names.begin(), side.names.end(), "...");
      int64_t at = it - side.names.begin();
      std::vector<std::string> repl;
      for (int64_t j = 0; j < ell_len; j++) repl.push_back(loupe::cat("...", j));
      side.names.erase(it);
      side.names.insert(side.names.begin() + at, repl.begin(), repl.end());
      for (auto& [s, e] : side.groups) {
        if (s > at) s += ell_len - 1;
        if (e > at) e += ell_len - 1;
      }
    };
    expand(l);
    expand(r);
  }
  Tensor t = *this;
  int64_t covered = static_cast<int64_t>(l.names.size());
  for (auto [s, e] : l.groups) covered -= e - s - 1;
  if (covered != ndim()) throw bad(loupe::cat("the left side names ", covered, " dimensions but the input has shape ", shape_str(shape())));
  for (auto [s, e] : l.groups) {
    Shape parts;
    for (int64_t i = s; i < e; i++) parts.push_back(size_of.count(l.names[i]) ? size_of[l.names[i]] : -1);
    if (e == s && t.shape()[s] != 1) throw bad(loupe::cat("dimension ", s, " of ", shape_str(t.shape()), " is not 1"));
    t = t.unflatten(s, parts);
  }
  for (size_t i = 0; i < l.names.size(); i++)
    if (size_of.count(l.names[i]) && size_of[l.names[i]] != t.shape()[i])
      throw bad(loupe::cat("size given for axis '", l.names[i], "' is ", size_of[l.names[i]], " but it is ", t.shape()[i]));
  std::vector<int64_t> perm;
  for (const std::string& name : r.names) perm.push_back(std::find(l.names.begin(), l.names.end(), name) - l.names.begin());
  t = t.permute(perm);
  for (auto it = r.groups.rbegin(); it != r.groups.rend(); ++it)
    t = it->first < it->second ? t.flatten(it->first, it->second - 1) : t.unsqueeze(it->first);
  return t;
}

// ---- grids, rolls, windows ----

std::vector<Tensor> Tensor::meshgrid(const std::vector<Tensor>& others, const std::string& indexing) const {
  if (indexing != "ij" && indexing != "xy") throw Error(loupe::cat("meshgrid: indexing must be 'ij' or 'xy', got '", indexing, "'"));
  std::vector<Tensor> ts{*this};
  ts.insert(ts.end(), others.begin(), others.end());
  for (const Tensor& t : ts)
    if (t.ndim() > 1) throw Error(loupe::cat("meshgrid: inputs must be scalars or 1-d tensors, got shape ", shape_str(t.shape())));
  if (ts.size() == 1) return ts;
  int64_t n = static_cast<int64_t>(ts.size());
  std::vector<Tensor> shaped;
  for (int64_t k = 0; k < n; k++) {
    int64_t i = indexing == "ij" || k >= 2 ? k : 1 - k;
    Shape s{-1};
    for (int64_t j = 0; j < n - 1 - i; j++) s.push_back(1);
    shaped.push_back(ts[k].reshape(s));
  }
  return broadcast(shaped);
}

Tensor Tensor::roll(const std::vector<int64_t>& shifts, const std::optional<std::vector<int64_t>>& dims_in) const {
  if (!dims_in) {
    if (shifts.size() != 1) throw Error(loupe::cat("roll: without dims, shifts must be a single value, got ", shifts.size()));
    return flatten().roll(shifts, std::vector<int64_t>{0}).reshape(shape());
  }
  if (dims_in->size() != shifts.size())
    throw Error(loupe::cat("roll: ", shifts.size(), " shifts for ", dims_in->size(), " dims"));
  std::vector<int64_t> dims;
  for (int64_t d : *dims_in) dims.push_back(resolve_dim(d));
  for (int64_t s : shape())
    if (s == 0) return *this;
  Shape reps(ndim(), 1);
  PadSpec sh(ndim());
  for (size_t j = 0; j < dims.size(); j++) {
    int64_t n = shape()[dims[j]], delta = n - (((shifts[j] % n) + n) % n);
    reps[dims[j]] = 2;
    sh[dims[j]] = std::pair<int64_t, int64_t>{delta, delta + n};
  }
  return repeat(reps).shrink(sh);
}

Tensor Tensor::unfold(int64_t dim_in, int64_t size, int64_t step) const {
  if (size < 0) throw Error(loupe::cat("unfold: size must be >= 0, got ", size));
  if (step <= 0) throw Error(loupe::cat("unfold: step must be > 0, got ", step));
  int64_t dim = resolve_axis(dim_in);
  int64_t n = ndim() == 0 ? 1 : shape()[dim];
  if (size > n) throw Error(loupe::cat("unfold: size ", size, " is larger than dimension ", dim_in, " of size ", n));
  if (ndim() == 0) throw Error("unfold: needs at least one dimension");
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < ndim(); i++)
    if (i != dim) perm.push_back(i);
  perm.push_back(dim);
  std::vector<int64_t> back = argsort_ints(perm);
  back.push_back(ndim());
  if (size == 0) {  // no window has elements: (..., n+1 windows, 0)
    Shape s = permute(perm).shape();
    s.back() = n + 1;
    s.push_back(0);
    return zeros(s, dtypes::strong(dtype())).permute(back);
  }
  return permute(perm).pool_windows({size}, {step}).permute(back);
}

Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim_in) const {
  if (repeats < 0) throw Error(loupe::cat("repeat_interleave: repeats must be non-negative, got ", repeats));
  Tensor x = dim_in ? *this : flatten();
  int64_t dim = dim_in ? resolve_dim(*dim_in) : 0;
  Shape shp = x.shape();
  Shape a(shp.begin(), shp.begin() + dim + 1), b = a, c(shp.begin(), shp.begin() + dim);
  a.push_back(1);
  b.push_back(repeats);
  c.push_back(shp[dim] * repeats);
  for (size_t i = dim + 1; i < shp.size(); i++) a.push_back(shp[i]), b.push_back(shp[i]), c.push_back(shp[i]);
  return x.reshape(a).expand(b).reshape(c);
}

Tensor Tensor::diagonal(int64_t offset, int64_t dim1_in, int64_t dim2_in) const {
  int64_t dim1 = resolve_dim(dim1_in), dim2 = resolve_dim(dim2_in);
  if (dim1 == dim2) throw Error(loupe::cat("diagonal: dim1 and dim2 are the same dimension (", dim1_in, ", ", dim2_in, ")"));
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < ndim(); i++)
    if (i != dim1 && i != dim2) perm.push_back(i);
  perm.insert(perm.end(), {dim1, dim2});
  Tensor x = permute(perm);
  int64_t r = x.shape()[x.ndim() - 2], c = x.shape()[x.ndim() - 1];
  PadSpec sh(x.ndim());
  if (offset >= 0) sh.back() = std::pair<int64_t, int64_t>{std::min(offset, c), c};
  else sh[x.ndim() - 2] = std::pair<int64_t, int64_t>{std::min(-offset, r), r};
  x = x.shrink(sh);
  Shape lead(x.shape().begin(), x.shape().end() - 2);
  int64_t d = std::min(x.shape()[x.ndim() - 2], x.shape()[x.ndim() - 1]);
  if (d <= 0) {
    Shape s = lead;
    s.push_back(0);
    return x.reshape(s);
  }
  PadSpec sq(x.ndim());
  sq[x.ndim() - 2] = std::pair<int64_t, int64_t>{0, d};
  sq.back() = std::pair<int64_t, int64_t>{0, d};
  x = x.shrink(sq).flatten(-2);
  PadSpec p(x.ndim());
  p.back() = std::pair<int64_t, int64_t>{0, d};
  Shape rs = lead;
  rs.insert(rs.end(), {d, d + 1});
  x = x.pad(p).reshape(rs);
  PadSpec first(x.ndim());
  first.back() = std::pair<int64_t, int64_t>{0, 1};
  return x.shrink(first).squeeze(-1);
}

Tensor Tensor::diag() const {
  if (ndim() != 1) throw Error(loupe::cat("diag: expected a 1-d tensor, got shape ", shape_str(shape())));
  int64_t n = shape()[0];
  return unsqueeze(-1).pad({std::nullopt, std::pair<int64_t, int64_t>{0, n}}).flatten().shrink({std::pair<int64_t, int64_t>{0, n * n}}).reshape({n, n});
}

} // namespace loupe
