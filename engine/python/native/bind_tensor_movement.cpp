// Movement and shape ops with tinygrad's argument conventions (x.reshape(2, 3) or x.reshape((2, 3)),
// pad's flat torch-style or per-axis padding), joining and splitting, and the gather/scatter family.
#include "common.h"
#include "convert.h"
#include "support/error.h"
#include "uop_binding.h"

namespace loupe::python {

namespace {

// f(first, *rest): tinygrad's argfix over a required first argument
std::vector<int64_t> first_and_rest(py::handle first, const py::args& rest, const char* what) {
  if (rest.size() == 0) return to_ints(first, what);
  std::vector<int64_t> out{to_int(first, what)};
  for (py::handle h : rest) out.push_back(to_int(h, what));
  return out;
}

// reshape/expand arguments: None keeps that dimension of the tensor (tinygrad's convention); a dim may
// be a bound Variable's UOp (symbolic)
sints shape_keeping_none(const Tensor& t, py::handle first, const py::args& rest, const char* what) {
  std::vector<py::handle> items;
  if (rest.size() == 0 && (py::isinstance<py::list>(first) || py::isinstance<py::tuple>(first)))
    for (py::handle h : first) items.push_back(h);
  else {
    items.push_back(first);
    for (py::handle h : rest) items.push_back(h);
  }
  sints out;
  for (size_t i = 0; i < items.size(); i++) {
    if (!items[i].is_none()) out.push_back(to_sint(items[i], what));
    else if (static_cast<int64_t>(i) < t.ndim()) out.push_back(t.sshape()[i]);
    else throw ValueError(cat(what, ": None at position ", i, " but the tensor has ", t.ndim(), " dimensions"));
  }
  return out;
}

// pad/shrink arguments: per axis a (begin, end) pair or None; bounds may be Variables' UOps
SymPadSpec pairs_of(py::handle h, const char* what) {
  SymPadSpec out;
  for (py::handle x : h) {
    if (x.is_none()) {
      out.push_back(std::nullopt);
      continue;
    }
    sints p = sints_of(x, what);
    if (p.size() != 2) throw ValueError(cat(what, ": each axis needs a (begin, end) pair or None"));
    out.push_back(std::make_pair(p[0], p[1]));
  }
  return out;
}

bool all_concrete(const SymPadSpec& p) {
  for (const auto& x : p)
    if (x && (!x->first.is_int() || !x->second.is_int())) return false;
  return true;
}

PadSpec concrete(const SymPadSpec& p) {
  PadSpec out;
  for (const auto& x : p)
    out.push_back(x ? std::optional(std::pair<int64_t, int64_t>{x->first.as_int(), x->second.as_int()}) : std::nullopt);
  return out;
}

Tensor pad_python(const Tensor& t, py::handle padding, const std::string& mode, py::handle value) {
  if (mode != "constant" && mode != "reflect" && mode != "replicate" && mode != "circular")
    throw NotImplementedError(cat("pad mode='", mode, "' is not supported (constant, reflect, replicate or circular)"));
  ConstVal v = to_const(value, "pad: value");
  if (mode != "constant" && v.as_double() != 0) throw NotImplementedError("pad: a value is only used with mode='constant'");
  bool flat = true, symbolic = false;
  for (py::handle x : padding) {
    symbolic = symbolic || is_uop(x);
    flat = flat && (is_uop(x) || PyLong_Check(x.ptr()) || py::hasattr(x, "__index__")) && !x.is_none();
  }
  if (flat && symbolic) {  // torch-style flat pads with Variables: (begin, end) of the last axis first
    sints p = sints_of(padding, "pad");
    if (p.size() % 2 != 0) throw ValueError(cat("pad: flat padding must have an even number of pads, got ", p.size()));
    if (static_cast<int64_t>(p.size()) > 2 * t.ndim())
      throw ValueError(cat("pad: padding length is improper: ", p.size(), " pads for ", t.ndim(), " dimensions"));
    SymPadSpec spec(static_cast<size_t>(t.ndim()) - p.size() / 2, std::nullopt);
    for (size_t i = p.size() / 2; i-- > 0;) spec.push_back(std::make_pair(p[2 * i], p[2 * i + 1]));
    if (mode != "constant") throw NotImplementedError(cat("pad mode='", mode, "' with a symbolic padding (only 'constant' takes one)"));
    return t.pad_sym(spec, v);
  }
  if (flat) {
    std::vector<int64_t> p = to_ints(padding, "pad");
    if (p.size() % 2 != 0) throw ValueError(cat("pad: flat padding must have an even number of pads, got ", p.size()));
    if (static_cast<int64_t>(p.size()) > 2 * t.ndim())
      throw ValueError(cat("pad: padding length is improper: ", p.size(), " pads for ", t.ndim(), " dimensions"));
    return t.pad_flat(p, v, mode);
  }
  SymPadSpec spec = pairs_of(padding, "pad");
  if (static_cast<int64_t>(spec.size()) != t.ndim())
    throw ValueError(cat("pad: padding length is improper: ", spec.size(), " axes for ", t.ndim(), " dimensions"));
  if (all_concrete(spec)) return t.pad(concrete(spec), v, mode);
  if (mode != "constant") throw NotImplementedError(cat("pad mode='", mode, "' with a symbolic padding (only 'constant' takes one)"));
  return t.pad_sym(spec, v);
}

py::tuple tensors_tuple(const std::vector<Tensor>& ts) {
  py::tuple out(ts.size());
  for (size_t i = 0; i < ts.size(); i++) out[i] = py::cast(ts[i]);
  return out;
}

} // namespace

void bind_tensor_movement(TensorClass& cls) {
  def_op(cls, "reshape", [](const Tensor& t, py::handle shape, py::args rest) {
    return t.reshape_sym(shape_keeping_none(t, shape, rest, "reshape"));
  }, py::arg("shape"));
  def_op(cls, "view", [](const Tensor& t, py::args shape) { return t.reshape_sym(sints_from_args(shape, "view")); });
  def_op(cls, "expand", [](const Tensor& t, py::handle shape, py::args rest) {
    return t.expand_sym(shape_keeping_none(t, shape, rest, "expand"));
  }, py::arg("shape"));
  def_op(cls, "permute", [](const Tensor& t, py::handle order, py::args rest) {
    return t.permute(first_and_rest(order, rest, "permute"));
  }, py::arg("order"));
  def_op(cls, "flip", [](const Tensor& t, py::handle axis, py::args rest) {
    return t.flip(Axes(first_and_rest(axis, rest, "flip")));
  }, py::arg("axis"));
  def_op(cls, "shrink", [](const Tensor& t, py::handle arg) {
    SymPadSpec p = pairs_of(arg, "shrink");
    return all_concrete(p) && !t.symbolic() ? t.shrink(concrete(p)) : t.shrink_sym(p);
  }, py::arg("arg"));
  def_op(cls, "pad", [](const Tensor& t, py::handle padding, const std::string& mode, py::handle value) {
    return pad_python(t, padding, mode, value);
  }, py::arg("padding"), py::arg("mode") = "constant", py::arg("value") = 0.0);
  def_op(cls, "pad2d", [](const Tensor& t, py::handle padding, py::handle value) {  // older tinygrad's name
    return t.pad_flat(to_ints(padding, "pad2d"), to_const(value, "pad2d: value"));
  }, py::arg("padding"), py::arg("value") = 0.0);
  def_op(cls, "transpose", [](const Tensor& t, int64_t d0, int64_t d1) { return t.transpose(d0, d1); },
         py::arg("dim0") = 1, py::arg("dim1") = 0);
  cls.def_property_readonly("T", traced("T", [](const Tensor& t) { return t.T(); }));
  def_op(cls, "flatten", [](const Tensor& t, int64_t start, int64_t end) { return t.flatten(start, end); },
         py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  def_op(cls, "unflatten", [](const Tensor& t, int64_t dim, py::handle sizes) {
    return t.unflatten(dim, to_ints(sizes, "unflatten: sizes"));
  }, py::arg("dim"), py::arg("sizes"));
  def_op(cls, "squeeze", [](const Tensor& t, py::handle dim) { return t.squeeze(to_opt_int(dim, "squeeze: dim")); },
         py::arg("dim") = py::none());
  def_op(cls, "unsqueeze", [](const Tensor& t, int64_t dim) { return t.unsqueeze(dim); }, py::arg("dim"));
  def_op(cls, "cat", [](const Tensor& t, py::args others, int64_t dim) { return t.cat(to_tensors(others, "cat"), dim); },
         py::kw_only(), py::arg("dim") = 0);
  def_op(cls, "stack", [](const Tensor& t, py::args others, int64_t dim) {
    std::vector<Tensor> all{t};
    for (const Tensor& o : to_tensors(others, "stack")) all.push_back(o);
    return Tensor::stack(all, dim);
  }, py::kw_only(), py::arg("dim") = 0);
  def_op(cls, "repeat", [](const Tensor& t, py::handle repeats, py::args rest) {
    return t.repeat(first_and_rest(repeats, rest, "repeat"));
  }, py::arg("repeats"));
  def_op(cls, "repeat_interleave", [](const Tensor& t, int64_t repeats, py::handle dim) {
    return t.repeat_interleave(repeats, to_opt_int(dim, "repeat_interleave: dim"));
  }, py::arg("repeats"), py::arg("dim") = py::none());
  def_op(cls, "split", [](const Tensor& t, py::handle sizes, int64_t dim) {
    if (PyLong_Check(sizes.ptr())) return tensors_tuple(t.split(to_int(sizes, "split"), dim));
    return tensors_tuple(t.split(to_ints(sizes, "split"), dim));
  }, py::arg("sizes"), py::arg("dim") = 0);
  def_op(cls, "chunk", [](const Tensor& t, int64_t chunks, int64_t dim) {
    std::vector<Tensor> parts = t.chunk(chunks, dim);
    py::list out;
    for (const Tensor& p : parts) out.append(py::cast(p));
    return out;
  }, py::arg("chunks"), py::arg("dim") = 0);
  def_op(cls, "meshgrid", [](const Tensor& t, py::args others, const std::string& indexing) {
    if (indexing != "ij" && indexing != "xy") throw RuntimeError(cat("meshgrid: indexing must be 'ij' or 'xy', not '", indexing, "'"));
    return tensors_tuple(t.meshgrid(to_tensors(others, "meshgrid"), indexing));
  }, py::kw_only(), py::arg("indexing") = "ij");
  def_op(cls, "roll", [](const Tensor& t, py::handle shifts, py::handle dims) {
    return t.roll(to_ints(shifts, "roll: shifts"), dims.is_none() ? std::nullopt : std::optional<std::vector<int64_t>>(to_ints(dims, "roll: dims")));
  }, py::arg("shifts"), py::arg("dims") = py::none());
  def_op(cls, "rearrange", [](const Tensor& t, const std::string& formula, py::kwargs sizes) {
    std::vector<std::pair<std::string, int64_t>> s;
    for (auto [k, v] : sizes) s.emplace_back(k.cast<std::string>(), to_int(v, "rearrange: size"));
    return t.rearrange(formula, s);
  }, py::arg("formula"));
  def_op(cls, "unfold", [](const Tensor& t, int64_t dim, int64_t size, int64_t step) { return t.unfold(dim, size, step); },
         py::arg("dim"), py::arg("size"), py::arg("step"));
  def_op(cls, "diagonal", [](const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2) {
    return offset == 0 && dim1 == 0 && dim2 == 1 ? t.diagonal() : t.diagonal(offset, dim1, dim2);
  }, py::arg("offset") = 0, py::arg("dim1") = 0, py::arg("dim2") = 1);
  def_op(cls, "diag", [](const Tensor& t) { return t.diag(); });
  def_op(cls, "triu", [](const Tensor& t, int64_t diagonal) { return t.triu(diagonal); }, py::arg("diagonal") = 0);
  def_op(cls, "tril", [](const Tensor& t, int64_t diagonal) { return t.tril(diagonal); }, py::arg("diagonal") = 0);

  // gather / scatter
  def_op(cls, "gather", [](const Tensor& t, int64_t dim, const Tensor& index) { return t.gather(dim, index); },
         py::arg("dim"), py::arg("index"));
  def_op(cls, "scatter", [](const Tensor& t, int64_t dim, const Tensor& index, py::handle src, py::handle reduce) {
    std::string r = reduce.is_none() ? "" : reduce.cast<std::string>();
    if (!r.empty() && r != "add" && r != "multiply")
      throw TypeError(cat("scatter: reduce must be None, 'add' or 'multiply', not '", r, "'"));
    if (is_tensor(src)) {
      if (!r.empty()) throw TypeError("scatter: a Tensor src does not take reduce (use scatter_reduce)");
      return t.scatter(dim, index, src.cast<Tensor>(), r);
    }
    return t.scatter(dim, index, to_const(src, "scatter: src"), r);
  }, py::arg("dim"), py::arg("index"), py::arg("src"), py::arg("reduce") = py::none());
  def_op(cls, "scatter_reduce", [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce, bool include_self) {
    if (reduce != "sum" && reduce != "prod" && reduce != "mean" && reduce != "amax" && reduce != "amin")
      throw RuntimeError(cat("scatter_reduce: reduce must be sum, prod, mean, amax or amin, not '", reduce, "'"));
    return t.scatter_reduce(dim, index, src, reduce, include_self);
  }, py::arg("dim"), py::arg("index"), py::arg("src"), py::arg("reduce"), py::arg("include_self") = true);
}

} // namespace loupe::python
