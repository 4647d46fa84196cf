// The engine's View and ShapeTracker (engine/shape) as tinygrad v0.10.2's classes of those names:
// values with tuple fields, movement ops that return new objects, `+` composition, invert, simplify,
// real_strides and index expressions. Dims are Python ints, or tinygrad.ops UOps where they are symbolic.
#include <sstream>

#include "common.h"
#include "shape/shapetracker.h"
#include "symbolic/symbolic.h"
#include "support/error.h"
#include "uop_binding.h"

namespace loupe::python {

namespace {

std::string repr_of(py::handle h) { return py::repr(h).cast<std::string>(); }

// A Python UOp (tinygrad.ops.UOp) as the engine's node, or null when `h` is not one.
UOpPtr py_to_uop(py::handle h) { return is_uop(h) ? uop_from_py(h) : nullptr; }

py::object sint_to_py(const sint& s) { return s.is_int() ? py::object(py::int_(s.as_int())) : uop_to_py(s.sym()); }

sint py_to_sint(py::handle h, const char* what) {
  if (py::isinstance<py::bool_>(h)) throw py::type_error(std::string(what) + ": expected an int or a UOp, got a bool");
  if (py::isinstance<py::int_>(h) || py::hasattr(h, "__index__")) {
    try {
      return sint(h.attr("__index__")().cast<int64_t>());
    } catch (const py::error_already_set&) {
    } catch (const py::cast_error&) {
    }
  }
  // simplified, as the engine's own shape arithmetic leaves its results: 4*v and the v*4 a shrink
  // computes are then the same node
  if (UOpPtr u = py_to_uop(h)) return u->dtype.is_int() ? sint(simplify(u)) : sint(u);
  throw py::type_error(std::string(what) + ": expected an int or a UOp, got " + repr_of(h));
}

sints py_to_sints(py::handle h, const char* what) {
  if (!py::isinstance<py::sequence>(h) || py::isinstance<py::str>(h))
    throw py::type_error(std::string(what) + ": expected a tuple of ints, got " + repr_of(h));
  sints out;
  for (py::handle x : h) out.push_back(py_to_sint(x, what));
  return out;
}

py::tuple sints_to_py(const sints& xs) {
  py::tuple t(xs.size());
  for (size_t i = 0; i < xs.size(); i++) t[i] = sint_to_py(xs[i]);
  return t;
}

Ranges py_to_ranges(py::handle h, const char* what) {
  if (!py::isinstance<py::sequence>(h))
    throw py::type_error(std::string(what) + ": expected a tuple of (begin, end) pairs, got " + repr_of(h));
  Ranges out;
  for (py::handle pair : h) {
    if (!py::isinstance<py::sequence>(pair) || py::len(pair) != 2)
      throw py::type_error(std::string(what) + ": expected a tuple of (begin, end) pairs, got " + repr_of(h));
    py::sequence p = py::reinterpret_borrow<py::sequence>(pair);
    out.emplace_back(py_to_sint(p[0], what), py_to_sint(p[1], what));
  }
  return out;
}

py::object ranges_to_py(const std::optional<Ranges>& r) {
  if (!r) return py::none();
  py::tuple t(r->size());
  for (size_t i = 0; i < r->size(); i++) t[i] = py::make_tuple(sint_to_py((*r)[i].first), sint_to_py((*r)[i].second));
  return t;
}

std::optional<Ranges> py_to_opt_ranges(py::handle h, const char* what) {
  if (h.is_none()) return std::nullopt;
  return py_to_ranges(h, what);
}

std::vector<int64_t> py_to_ints(py::handle h, const char* what) {
  if (!py::isinstance<py::sequence>(h)) throw py::type_error(std::string(what) + ": expected a tuple of ints, got " + repr_of(h));
  std::vector<int64_t> out;
  for (py::handle x : h) {
    if (!py::isinstance<py::int_>(x) && !py::hasattr(x, "__index__"))
      throw py::type_error(std::string(what) + ": expected a tuple of ints, got " + repr_of(h));
    out.push_back(x.attr("__index__")().cast<int64_t>());
  }
  return out;
}

// tinygrad's flip takes a bool per dim (ShapeTracker.flip's `mul` is the same flags).
std::vector<bool> py_to_flags(py::handle h, const char* what) {
  if (!py::isinstance<py::sequence>(h)) throw py::type_error(std::string(what) + ": expected a tuple of bools, got " + repr_of(h));
  std::vector<bool> out;
  for (py::handle x : h) out.push_back(PyObject_IsTrue(x.ptr()) == 1);
  return out;
}

UOpList py_to_uops(py::handle h, const char* what) {
  UOpList out;
  for (py::handle x : h) {
    UOpPtr u = py_to_uop(x);
    if (!u) throw py::type_error(std::string(what) + ": expected UOps, got " + repr_of(x));
    out.push_back(std::move(u));
  }
  return out;
}

py::object vars_to_py(const UOpList& vars) {
  py::set s;
  for (const UOpPtr& v : vars) s.add(uop_to_py(v));
  return s;
}

py::dict var_vals_to_py(const std::vector<std::pair<UOpPtr, int64_t>>& vals) {
  py::dict d;
  for (const auto& [v, x] : vals) d[uop_to_py(v)] = py::int_(x);
  return d;
}

// A bad movement argument is the engine's Error; tinygrad raises ValueError for those.
template <typename F> auto checked(F f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Runtime) throw;
    throw py::value_error(e.what());
  }
}

py::object opt_view(const std::optional<View>& v) { return v ? py::cast(*v) : py::none(); }

int64_t hash_of(const View& v) {
  StableHasher h;
  v.hash(h);
  return static_cast<int64_t>(h.finish().lo >> 1);
}

View view_from_fields(py::handle shape, py::handle strides, py::handle offset, py::handle mask, bool contiguous) {
  View v;
  v.shape = py_to_sints(shape, "View shape");
  v.strides = py_to_sints(strides, "View strides");
  v.offset = py_to_sint(offset, "View offset");
  v.mask = py_to_opt_ranges(mask, "View mask");
  v.contiguous = contiguous;
  if (v.strides.size() != v.shape.size())
    throw py::value_error("View: " + std::to_string(v.strides.size()) + " strides for a shape of " +
                          std::to_string(v.shape.size()) + " dims");
  if (v.mask && v.mask->size() != v.shape.size())
    throw py::value_error("View: a mask of " + std::to_string(v.mask->size()) + " ranges for a shape of " +
                          std::to_string(v.shape.size()) + " dims");
  return v;
}

std::vector<View> py_to_views(py::handle h) {
  if (!py::isinstance<py::sequence>(h)) throw py::type_error("ShapeTracker: views must be a tuple of View, got " + repr_of(h));
  std::vector<View> views;
  for (py::handle x : h) {
    if (!py::isinstance<View>(x)) throw py::type_error("ShapeTracker: views must be View objects, got " + repr_of(x));
    views.push_back(x.cast<View>());
  }
  if (views.empty()) throw py::value_error("ShapeTracker: needs at least one View");
  return views;
}

py::tuple views_to_py(const std::vector<View>& views) {
  py::tuple t(views.size());
  for (size_t i = 0; i < views.size(); i++) t[i] = py::cast(views[i]);
  return t;
}

py::tuple indexed_to_py(const std::pair<UOpPtr, UOpPtr>& iv) { return py::make_tuple(uop_to_py(iv.first), uop_to_py(iv.second)); }

int64_t hash_of(const ShapeTracker& st) {
  StableHasher h;
  st.hash(h);
  return static_cast<int64_t>(h.finish().lo >> 1);
}

void bind_view(py::module_& m) {
  py::class_<View> view(m, "View", "One strided, optionally masked window onto a buffer (tinygrad.shape.view.View)");
  view.def(py::init(&view_from_fields), py::arg("shape"), py::arg("strides"), py::arg("offset"), py::arg("mask"),
           py::arg("contiguous"));
  view.def_static("create", [](py::handle shape, py::handle strides, py::handle offset, py::handle mask) {
    std::optional<sints> st;
    if (!strides.is_none()) st = py_to_sints(strides, "View.create strides");
    return checked([&] {
      return View::create(py_to_sints(shape, "View.create shape"), st, py_to_sint(offset, "View.create offset"),
                          py_to_opt_ranges(mask, "View.create mask"));
    });
  }, py::arg("shape"), py::arg("strides") = py::none(), py::arg("offset") = 0, py::arg("mask") = py::none());
  view.def_property_readonly("shape", [](const View& v) { return sints_to_py(v.shape); });
  view.def_property_readonly("strides", [](const View& v) { return sints_to_py(v.strides); });
  view.def_property_readonly("offset", [](const View& v) { return sint_to_py(v.offset); });
  view.def_property_readonly("mask", [](const View& v) { return ranges_to_py(v.mask); });
  view.def_readonly("contiguous", &View::contiguous);
  view.def("size", &View::size);
  view.def("pad", [](const View& v, py::handle arg) { return checked([&] { return v.pad(py_to_ranges(arg, "pad")); }); }, py::arg("arg"));
  view.def("shrink", [](const View& v, py::handle arg) { return checked([&] { return v.shrink(py_to_ranges(arg, "shrink")); }); }, py::arg("arg"));
  view.def("expand", [](const View& v, py::handle s) { return checked([&] { return v.expand(py_to_sints(s, "expand")); }); }, py::arg("new_shape"));
  view.def("permute", [](const View& v, py::handle a) { return checked([&] { return v.permute(py_to_ints(a, "permute")); }); }, py::arg("axis"));
  view.def("flip", [](const View& v, py::handle a) { return checked([&] { return v.flip(py_to_flags(a, "flip")); }); }, py::arg("arg"));
  view.def("reshape", [](const View& v, py::handle s) { return checked([&] { return opt_view(v.reshape(py_to_sints(s, "reshape"))); }); },
           py::arg("new_shape"));
  view.def("__add__", [](const View& outer, const View& inner) { return opt_view(outer.merge(inner)); });
  view.def("invert", [](const View& v, py::handle s) { return opt_view(v.invert(py_to_sints(s, "invert"))); },
           py::arg("out_shape"));
  view.def("minify", &View::minify);
  view.def("vars", [](const View& v) { return vars_to_py(v.vars()); });
  view.def("unbind", [](const View& v) {
    auto [u, vals] = v.unbind();
    return py::make_tuple(py::cast(u), var_vals_to_py(vals));
  });
  view.def("to_indexed_uops", [](const View& v, py::handle idxs, py::handle vexpr) {
    UOpPtr valid = vexpr.is_none() ? nullptr : py_to_uop(vexpr);
    if (!vexpr.is_none() && !valid) throw py::type_error("View.to_indexed_uops: vexpr must be a UOp, got " + repr_of(vexpr));
    if (idxs.is_none()) {
      UOpList ridx;
      for (size_t i = 0; i < v.ndim(); i++) ridx.push_back(UOp::make(Ops::RANGE, dtypes::index, {v.shape[i].uop()}, Arg(int64_t(i))));
      return indexed_to_py(v.to_indexed(ridx, valid));
    }
    UOpList list = py_to_uops(idxs, "View.to_indexed_uops idxs");
    if (list.size() != v.ndim())
      throw py::value_error("View.to_indexed_uops: " + std::to_string(list.size()) + " index expressions for a view of " +
                            std::to_string(v.ndim()) + " dims");
    return indexed_to_py(v.to_indexed(list, valid));
  }, py::arg("idxs") = py::none(), py::arg("vexpr") = py::none());
  view.def("__eq__", [](const View& a, py::handle b) { return py::isinstance<View>(b) && a == b.cast<const View&>(); });
  view.def("__ne__", [](const View& a, py::handle b) { return !(py::isinstance<View>(b) && a == b.cast<const View&>()); });
  view.def("__hash__", [](const View& v) { return hash_of(v); });
  view.def("__repr__", &View::str);
  view.def("__copy__", [](const View& v) { return v; });
  view.def("__deepcopy__", [](const View& v, py::handle) { return v; });
  view.def(py::pickle([](const View& v) { return py::make_tuple(sints_to_py(v.shape), sints_to_py(v.strides), sint_to_py(v.offset),
                                                                ranges_to_py(v.mask), v.contiguous); },
                      [](py::tuple t) { return view_from_fields(t[0], t[1], t[2], t[3], t[4].cast<bool>()); }));

  m.def("strides_for_shape", [](py::handle s) { return sints_to_py(strides_for_shape(py_to_sints(s, "strides_for_shape"))); },
        py::arg("shape"));
  m.def("unravel", [](py::handle s, py::handle off) {
    sints r = unravel(py_to_sints(s, "unravel shape"), py_to_sint(off, "unravel offset"));
    py::list out;
    for (const sint& x : r) out.append(sint_to_py(x));
    return out;
  }, py::arg("shape"), py::arg("offset"));
  m.def("merge_dims", [](py::handle shape, py::handle strides, py::handle mask) {
    std::vector<int64_t> sh = py_to_ints(shape, "merge_dims shape"), st = py_to_ints(strides, "merge_dims strides");
    if (sh.size() != st.size()) throw py::value_error("merge_dims: shape and strides differ in length");
    std::optional<std::vector<std::pair<int64_t, int64_t>>> mk;
    if (!mask.is_none()) {
      mk.emplace();
      for (const Range& r : py_to_ranges(mask, "merge_dims mask")) {
        if (!r.first.is_int() || !r.second.is_int()) throw py::type_error("merge_dims: mask bounds must be ints");
        mk->emplace_back(r.first.as_int(), r.second.as_int());
      }
      if (mk->size() != sh.size()) throw py::value_error("merge_dims: mask and shape differ in length");
    }
    std::vector<MergedDim> md = merge_dims(sh, st, mk);
    py::tuple out(md.size());
    for (size_t i = 0; i < md.size(); i++) out[i] = py::make_tuple(md[i].size, md[i].stride, md[i].real_size);
    return out;
  }, py::arg("shape"), py::arg("strides"), py::arg("mask") = py::none());
}

void bind_shapetracker(py::module_& m) {
  py::class_<ShapeTracker> st(m, "ShapeTracker", "A stack of views (tinygrad.shape.shapetracker.ShapeTracker)");
  st.def(py::init([](py::handle views) { return ShapeTracker(py_to_views(views)); }), py::arg("views"));
  st.def_static("from_shape", [](py::handle s) { return checked([&] { return ShapeTracker::from_shape(py_to_sints(s, "ShapeTracker.from_shape")); }); },
                py::arg("shape"));
  st.def_property_readonly("views", [](const ShapeTracker& s) { return views_to_py(s.views()); });
  st.def_property_readonly("shape", [](const ShapeTracker& s) { return sints_to_py(s.shape()); });
  st.def_property_readonly("size", &ShapeTracker::size);
  st.def_property_readonly("contiguous", &ShapeTracker::contiguous);
  st.def_property_readonly("consecutive", &ShapeTracker::consecutive);
  st.def("reduce", [](const ShapeTracker& s, py::handle axis) { return sints_to_py(s.reduce(py_to_ints(axis, "reduce"))); },
         py::arg("axis"));
  st.def("reshape", [](const ShapeTracker& s, py::handle a) { return checked([&] { return s.reshape(py_to_sints(a, "reshape")); }); }, py::arg("new_shape"));
  st.def("pad", [](const ShapeTracker& s, py::handle a) { return checked([&] { return s.pad(py_to_ranges(a, "pad")); }); }, py::arg("arg"));
  st.def("shrink", [](const ShapeTracker& s, py::handle a) { return checked([&] { return s.shrink(py_to_ranges(a, "shrink")); }); }, py::arg("arg"));
  st.def("expand", [](const ShapeTracker& s, py::handle a) { return checked([&] { return s.expand(py_to_sints(a, "expand")); }); }, py::arg("new_shape"));
  st.def("permute", [](const ShapeTracker& s, py::handle a) { return checked([&] { return s.permute(py_to_ints(a, "permute")); }); }, py::arg("axis"));
  st.def("flip", [](const ShapeTracker& s, py::handle a) { return checked([&] { return s.flip(py_to_flags(a, "flip")); }); }, py::arg("mul"));
  st.def("simplify", &ShapeTracker::simplify);
  st.def("__add__", [](const ShapeTracker& a, const ShapeTracker& b) { return a + b; });
  st.def("invert", [](const ShapeTracker& s, py::handle out) {
    std::optional<ShapeTracker> r = s.invert(py_to_sints(out, "invert"));
    return r ? py::cast(*r) : py::none();
  }, py::arg("out_shape"));
  st.def("real_strides", [](const ShapeTracker& s, bool ignore_valid) {
    std::vector<std::optional<sint>> rs = s.real_strides(ignore_valid);
    py::tuple out(rs.size());
    for (size_t i = 0; i < rs.size(); i++) out[i] = rs[i] ? sint_to_py(*rs[i]) : py::none();
    return out;
  }, py::arg("ignore_valid") = false);
  st.def("unit_stride_axes", &ShapeTracker::unit_stride_axes, py::arg("ignore_valid") = false);
  st.def("axis_is_masked", [](const ShapeTracker& s, int64_t axis) {
    if (axis < 0 || axis >= static_cast<int64_t>(s.ndim()))
      throw py::index_error("axis_is_masked: axis " + std::to_string(axis) + " of a shape with " + std::to_string(s.ndim()) + " dims");
    return s.axis_is_masked(axis);
  }, py::arg("axis"));
  st.def("real_size", &ShapeTracker::real_size);
  st.def("vars", [](const ShapeTracker& s) { return vars_to_py(s.vars()); });
  st.def_property_readonly("var_vals", [](const ShapeTracker& s) { return var_vals_to_py(s.unbind().second); });
  st.def("unbind", [](const ShapeTracker& s) {
    auto [u, vals] = s.unbind();
    return py::make_tuple(py::cast(u), var_vals_to_py(vals));
  });
  st.def("to_indexed_uops", [](const ShapeTracker& s, py::handle idxs) {
    if (idxs.is_none()) return indexed_to_py(s.to_indexed(true));
    UOpList list = py_to_uops(idxs, "ShapeTracker.to_indexed_uops idxs");
    if (list.size() != s.ndim())
      throw py::value_error("ShapeTracker.to_indexed_uops: " + std::to_string(list.size()) + " index expressions for a shape of " +
                            std::to_string(s.ndim()) + " dims");
    return indexed_to_py(s.to_indexed(list, true));
  }, py::arg("_idxs") = py::none());
  st.def("to_uop", [](const ShapeTracker& s) { return uop_to_py(s.to_uop()); });
  // Ground truth by evaluating the views: the buffer offset element `idx` reads, or None for padding.
  st.def("offset_of", [](const ShapeTracker& s, py::handle idx) -> py::object {
    std::vector<int64_t> i = py_to_ints(idx, "offset_of");
    if (i.size() != s.ndim()) throw py::value_error("offset_of: index of " + std::to_string(i.size()) + " dims for a shape of " + std::to_string(s.ndim()));
    for (const View& v : s.views())
      if (!v.is_concrete()) throw py::value_error("offset_of: the tracker has symbolic dims");
    int64_t off = s.offset_of(i);
    return off < 0 ? py::none() : py::object(py::int_(off));
  }, py::arg("idx"));
  st.def("__eq__", [](const ShapeTracker& a, py::handle b) { return py::isinstance<ShapeTracker>(b) && a == b.cast<const ShapeTracker&>(); });
  st.def("__ne__", [](const ShapeTracker& a, py::handle b) { return !(py::isinstance<ShapeTracker>(b) && a == b.cast<const ShapeTracker&>()); });
  st.def("__hash__", [](const ShapeTracker& s) { return hash_of(s); });
  st.def("__repr__", &ShapeTracker::str);
  st.def(py::pickle([](const ShapeTracker& s) { return views_to_py(s.views()); },
                    [](py::tuple t) { return ShapeTracker(py_to_views(t)); }));
}

} // namespace

void bind_shape(py::module_& m) {
  bind_view(m);
  bind_shapetracker(m);
}

} // namespace loupe::python
