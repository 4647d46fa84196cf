// ShapeTracker: movement ops, simplification, evaluation, and its life as a UOp arg.
#include "shape/shapetracker.h"
#include "shape/sint_arg.h"

#include <algorithm>

#include "shape/shape_json.h"
#include "support/error.h"

namespace loupe {

ShapeTracker::ShapeTracker(std::vector<View> views) : views_(std::move(views)) {
  LOUPE_ASSERT(!views_.empty(), "a ShapeTracker needs at least one view");
}

ShapeTracker ShapeTracker::from_shape(const sints& shape) { return ShapeTracker({View::create(shape)}); }

bool ShapeTracker::consecutive() const {
  return views_.size() == 1 && !views_[0].mask && views_[0].strides == strides_for_shape(views_[0].shape);
}

sints ShapeTracker::reduce(const std::vector<int64_t>& axes) const {
  sints out = shape();
  for (int64_t a : axes) {
    if (a < 0 || a >= int64_t(out.size())) throw Error(cat("reduce: axis ", a, " out of range for shape ", shape_str(shape())));
    out[a] = 1;
  }
  return out;
}

ShapeTracker ShapeTracker::with_last(View v) const {
  std::vector<View> vs(views_.begin(), views_.end() - 1);
  vs.push_back(std::move(v));
  return ShapeTracker(std::move(vs));
}

ShapeTracker ShapeTracker::reshape(const sints& new_shape) const {
  if (std::optional<View> v = views_.back().reshape(new_shape)) return with_last(std::move(*v));
  // One view cannot express it: the new view indexes the previous one's output as a flat array.
  std::vector<View> vs(views_);
  vs.push_back(View::create(new_shape));
  return ShapeTracker(std::move(vs));
}
ShapeTracker ShapeTracker::pad(const Ranges& a) const { return with_last(views_.back().pad(a)); }
ShapeTracker ShapeTracker::shrink(const Ranges& a) const { return with_last(views_.back().shrink(a)); }
ShapeTracker ShapeTracker::expand(const sints& s) const { return with_last(views_.back().expand(s)); }
ShapeTracker ShapeTracker::permute(const std::vector<int64_t>& o) const { return with_last(views_.back().permute(o)); }
ShapeTracker ShapeTracker::flip(const std::vector<bool>& a) const { return with_last(views_.back().flip(a)); }

std::optional<ShapeTracker> ShapeTracker::extended(size_t axis, int64_t size, int64_t buffer_elements) const {
  const View& last = views_.back();
  if (axis >= last.ndim() || last.mask || !last.is_concrete() || size < last.shape[axis].as_int()) return std::nullopt;
  int64_t below = buffer_elements;
  if (views_.size() > 1) {
    const View& prev = views_[views_.size() - 2];
    if (!prev.is_concrete()) return std::nullopt;
    below = prev.size();
  }
  sints shape = last.shape;
  shape[axis] = size;
  int64_t lo = last.offset.as_int(), hi = lo;  // the offsets the extended view reads
  for (size_t i = 0; i < shape.size(); i++) {
    if (shape[i].as_int() == 0) return std::nullopt;
    const int64_t reach = last.strides[i].as_int() * (shape[i].as_int() - 1);
    (reach < 0 ? lo : hi) += reach;
  }
  if (below < 0 || lo < 0 || hi >= below) return std::nullopt;
  std::vector<View> views = views_;
  views.back() = View::create(shape, last.strides, last.offset);
  return ShapeTracker(std::move(views));
}

ShapeTracker ShapeTracker::flip_axes(const std::vector<int64_t>& axes) const {
  int64_t n = int64_t(ndim());
  std::vector<bool> flags(ndim(), false);
  for (int64_t a : axes) {
    int64_t ax = a < 0 ? a + n : a;
    if (ax < 0 || ax >= n) throw Error(cat("flip: axis ", a, " out of range for shape ", shape_str(shape())));
    if (flags[ax]) throw Error(cat("flip: axis ", a, " repeated in ", shape_str(axes)));
    flags[ax] = true;
  }
  return flip(flags);
}

namespace {
std::vector<int64_t> arg_ints(const Arg& arg, const char* op) {
  if (!arg.is_tuple()) throw Error(cat(op, ": argument must be a tuple of ints, got ", arg.str()));
  std::vector<int64_t> out;
  for (const Arg& a : arg.as_tuple()) {
    if (!a.is_int()) throw Error(cat(op, ": argument must be a tuple of ints, got ", arg.str()));
    out.push_back(a.as_int());
  }
  return out;
}
} // namespace

ShapeTracker ShapeTracker::movement(Ops op, const Arg& arg) const {
  switch (op) {
  case Ops::RESHAPE: return reshape(sints_from_arg(arg, "reshape"));
  case Ops::EXPAND: return expand(sints_from_arg(arg, "expand"));
  case Ops::PERMUTE: return permute(arg_ints(arg, "permute"));
  case Ops::PAD: return pad(ranges_from_arg(arg, "pad"));
  case Ops::SHRINK: return shrink(ranges_from_arg(arg, "shrink"));
  case Ops::FLIP: {
    if (!arg.is_tuple()) throw Error(cat("flip: argument must be a tuple of bools, got ", arg.str()));
    std::vector<bool> flags;
    for (const Arg& a : arg.as_tuple()) {
      if (!a.is_bool()) throw Error(cat("flip: argument must be a tuple of bools, got ", arg.str()));
      flags.push_back(a.as_bool());
    }
    return flip(flags);
  }
  default: throw Error(cat("ShapeTracker: ", op_name(op), " is not a movement op"));
  }
}

ShapeTracker ShapeTracker::simplify() const {
  std::vector<View> vs(views_);
  while (vs.size() >= 2) {
    std::optional<View> merged = vs[vs.size() - 2].merge(vs.back());
    if (!merged) break;
    vs.pop_back();
    vs.back() = std::move(*merged);
  }
  return ShapeTracker(std::move(vs));
}

ShapeTracker ShapeTracker::operator+(const ShapeTracker& other) const {
  ShapeTracker ret = *this;
  for (const View& v : other.views_) {  // one view at a time simplifies better
    std::vector<View> vs(ret.views_);
    vs.push_back(v);
    ret = ShapeTracker(std::move(vs)).simplify();
  }
  return ret;
}

std::optional<ShapeTracker> ShapeTracker::invert(const sints& out_shape) const {
  std::vector<View> inverted;
  for (size_t i = views_.size(); i-- > 0;) {
    const sints& target = i > 0 ? views_[i - 1].shape : out_shape;
    std::optional<View> inv = views_[i].invert(target);
    if (!inv) return std::nullopt;
    inverted.push_back(std::move(*inv));
  }
  return ShapeTracker(std::move(inverted)).reshape(out_shape);
}

int64_t ShapeTracker::offset_of(const std::vector<int64_t>& idx) const {
  std::optional<int64_t> off = views_.back().offset_of(idx);
  for (size_t i = views_.size() - 1; off && i-- > 0;) {
    const View& v = views_[i];
    // The later view's offset is a flat position in this view's output.
    std::vector<int64_t> pos(v.ndim());
    int64_t rest = *off;
    for (size_t d = v.ndim(); d-- > 0;) {
      int64_t s = v.shape[d].as_int();
      pos[d] = floor_mod(rest, s);
      rest = floor_div(rest, s);
    }
    off = v.offset_of(pos);
  }
  return off ? *off : -1;
}

std::vector<int64_t> ShapeTracker::mapping() const {
  for (const View& v : views_)
    if (!v.is_concrete()) throw Error(cat("mapping: ", str(), " has symbolic parts; bind its variables first"));
  std::vector<int64_t> dims = to_ints(shape());
  int64_t n = size();
  std::vector<int64_t> out;
  if (n == 0) return out;
  out.reserve(n);
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t k = 0; k < n; k++) {
    out.push_back(offset_of(idx));
    for (size_t d = dims.size(); d-- > 0;) {  // row-major increment
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

UOpList ShapeTracker::vars() const {
  UOpList out;
  for (const View& v : views_)
    for (const UOpPtr& x : v.vars())
      if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  return out;
}

std::pair<ShapeTracker, std::vector<std::pair<UOpPtr, int64_t>>> ShapeTracker::unbind() const {
  std::vector<View> vs;
  std::vector<std::pair<UOpPtr, int64_t>> values;
  for (const View& v : views_) {
    auto [u, vals] = v.unbind();
    vs.push_back(std::move(u));
    for (auto& kv : vals)
      if (std::find(values.begin(), values.end(), kv) == values.end()) values.push_back(kv);
  }
  return {ShapeTracker(std::move(vs)), values};
}

Arg ShapeTracker::to_arg() const { return Arg(std::shared_ptr<const ArgObject>(std::make_shared<ShapeTracker>(*this))); }
UOpPtr ShapeTracker::to_uop() const { return UOp::make(Ops::VIEW, dtypes::void_, {}, to_arg()); }

void ShapeTracker::hash(StableHasher& h) const {
  h.u64(views_.size());
  for (const View& v : views_) v.hash(h);
}

bool ShapeTracker::equals(const ArgObject& other) const {
  const auto* o = dynamic_cast<const ShapeTracker*>(&other);
  return o && *this == *o;
}

std::string ShapeTracker::str() const {
  std::string s = "ShapeTracker(views=(";
  for (size_t i = 0; i < views_.size(); i++) s += (i ? ", " : "") + views_[i].str();
  if (views_.size() == 1) s += ",";
  return s + "))";
}

std::string ShapeTracker::encode() const {
  json::Value vs = json::Value::array();
  for (const View& v : views_) vs.push_back(view_to_json(v));
  return vs.dump();
}

ShapeTracker ShapeTracker::decode(const std::string& text) {
  json::Value j;
  try {
    j = json::parse(text);
  } catch (const Error& e) {
    throw Error(cat("ShapeTracker: cannot decode: ", e.what()));
  }
  const json::Array& a = j.as_array("ShapeTracker encoding");
  if (a.empty()) throw Error("ShapeTracker: encoding has no views");
  std::vector<View> vs;
  for (size_t i = 0; i < a.size(); i++) {
    try {
      vs.push_back(view_from_json(a[i]));
    } catch (const Error& e) {
      throw Error(cat("ShapeTracker: view ", i, ": ", e.what()));
    }
  }
  return ShapeTracker(std::move(vs));
}

void register_shapetracker_arg() {
  register_arg_kind("ShapeTracker", [](const std::string& text) -> std::shared_ptr<const ArgObject> {
    return std::make_shared<ShapeTracker>(ShapeTracker::decode(text));
  });
}

namespace {
const bool registered = (register_shapetracker_arg(), true);
} // namespace

} // namespace loupe
