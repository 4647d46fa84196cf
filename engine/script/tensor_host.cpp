#include "script/tensor_host.h"

#include <limits>

#include "script/tensor_methods.h"
#include "support/error.h"

namespace loupe::script {

namespace {

// The built-in `Tensor` (a class: callable, with static methods) and `dtypes` (a namespace of dtypes).
struct TensorClass : Object {
  std::string type_name() const override { return "type"; }
  std::string repr() const override { return "<class 'Tensor'>"; }
};
struct DTypesNamespace : Object {
  std::string type_name() const override { return "type"; }
  std::string repr() const override { return "<class 'dtypes'>"; }
};

// A method looked up on a tensor (bound), on the class (Tensor.arange; Tensor.cat(a, b) takes its
// tensor as the first argument, as an unbound Python method does) or on a tensor for a classmethod.
struct MethodObj : Object {
  const Method* m;
  std::optional<Tensor> self;
  MethodObj(const Method* method, std::optional<Tensor> s) : m(method), self(std::move(s)) {}
  std::string type_name() const override { return "method"; }
  std::string repr() const override { return "<method Tensor." + m->sig.name + ">"; }
};

// Tensor attributes of tinygrad that are data, not methods (for the error message's wording).
bool is_data_attribute(const std::string& name) {
  return name == "requires_grad" || name == "uop" || name == "lazydata" || name == "is_param";
}

[[noreturn]] void no_method(const std::string& name) {
  if (is_data_attribute(name)) throw Error(cat("Tensor has no attribute '", name, "'"));
  throw Error(cat("Tensor has no method '", name, "'"));
}

const Signature& constructor_signature() {
  static const Signature sig{"Tensor", {req("data"), opt("device"), opt("dtype")}};
  return sig;
}

Value construct_tensor(const std::vector<Value>& args, const KwArgs& kwargs) {
  Args a(constructor_signature(), args, kwargs);
  if (!a["device"].is_none()) a.fail("device", "is not supported in a tensor script (choose the device with --device)");
  std::optional<DType> dtype;
  if (!a["dtype"].is_none()) dtype = to_dtype(a["dtype"], "Tensor: argument 'dtype'");
  const Value& data = a["data"];
  const std::string what = "Tensor: argument 'data'";
  if (data.is_number()) {
    ConstVal c = to_const(data, what, dtype);
    return wrap(dtype ? Tensor(Nested(c), dtype) : Tensor(c));
  }
  if (data.is_seq()) return wrap(Tensor(to_nested(data, what, dtype), dtype));
  throw Error(cat(what, " must be a number or a (nested) list or tuple of numbers, not ", type_name(data)));
}

using BinaryFn = Tensor (Tensor::*)(const Tensor&) const;
BinaryFn tensor_op(BinOp op) {
  switch (op) {
  case BinOp::Add: return &Tensor::add;
  case BinOp::Sub: return &Tensor::sub;
  case BinOp::Mul: return &Tensor::mul;
  case BinOp::Div: return &Tensor::div;
  case BinOp::FloorDiv: return &Tensor::floordiv;
  case BinOp::Mod: return &Tensor::mod;
  case BinOp::Pow: return &Tensor::pow;
  case BinOp::MatMul: return &Tensor::matmul;
  case BinOp::BitAnd: return &Tensor::bitwise_and;
  case BinOp::BitOr: return &Tensor::bitwise_or;
  case BinOp::BitXor: return &Tensor::bitwise_xor;
  case BinOp::LShift: return &Tensor::lshift;
  case BinOp::RShift: return &Tensor::rshift;
  case BinOp::Lt: return &Tensor::lt;
  case BinOp::Le: return &Tensor::le;
  case BinOp::Gt: return &Tensor::gt;
  case BinOp::Ge: return &Tensor::ge;
  case BinOp::Eq: return &Tensor::eq;
  case BinOp::Ne: return &Tensor::ne;
  }
  LOUPE_ASSERT(false, "unknown binary op");
}

// `3 < x` is x.__gt__(3) in Python: the mirrored comparison with the tensor on the left.
BinOp mirrored(BinOp op) {
  switch (op) {
  case BinOp::Lt: return BinOp::Gt;
  case BinOp::Le: return BinOp::Ge;
  case BinOp::Gt: return BinOp::Lt;
  case BinOp::Ge: return BinOp::Le;
  default: return op;
  }
}

[[noreturn]] void unsupported(BinOp op, const Value& a, const Value& b) {
  throw Error(cat("TypeError: unsupported operand type(s) for ", op_symbol(op), ": '", type_name(a), "' and '", type_name(b), "'"));
}

int64_t clamp_slice_bound(const Value& v) {
  if (!v.is_integral()) throw Error(cat("TypeError: slice indices must be integers or None, not ", type_name(v)));
  PyInt i = v.as_int();  // Python clamps out-of-range slice bounds, so a huge one means "the end"
  if (i > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (i < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return int64_t(i);
}

Index to_index(const Value& v) {
  switch (v.kind()) {
  case Value::Kind::Int: return Index::integer(to_int64(v, "index"));
  case Value::Kind::Bool: throw Error("a bool index is not supported (index with a tensor of positions)");
  case Value::Kind::None: return Index::new_axis();
  case Value::Kind::Ellipsis: return Index::ellipsis();
  case Value::Kind::Slice: {
    Slice s;
    const Items& p = v.items();
    if (!p[0].is_none()) s.start = clamp_slice_bound(p[0]);
    if (!p[1].is_none()) s.stop = clamp_slice_bound(p[1]);
    if (!p[2].is_none()) {
      s.step = clamp_slice_bound(p[2]);
      if (*s.step == 0) throw Error("ValueError: slice step cannot be zero");
    }
    return Index::range(s);
  }
  case Value::Kind::Tuple:
  case Value::Kind::List: return Index::of(Tensor(to_nested(v, "index")));  // a list index is a tensor of positions
  case Value::Kind::Object:
    if (auto* t = v.object_as<TensorObj>()) return Index::of(t->t);
    break;
  default: break;
  }
  throw Error(cat("TypeError: a tensor index must be an int, slice, None, ..., list or Tensor, not ", type_name(v)));
}

} // namespace

// ---------------------------------------------------------------- objects and conversions

std::string TensorObj::repr() const { return cat("<Tensor shape=", shape_str(t.shape()), " dtype=", t.dtype().short_name(), ">"); }

Value wrap(Tensor t) { return Value::object(std::make_shared<TensorObj>(std::move(t))); }
Value wrap(DType d) { return Value::object(std::make_shared<DTypeObj>(d)); }
Value wrap_tensors(const std::vector<Tensor>& ts, bool as_tuple) {
  Items items;
  for (const Tensor& t : ts) items.push_back(wrap(t));
  return as_tuple ? Value::tuple(std::move(items)) : Value::list(std::move(items));
}

bool is_tensor(const Value& v) { return v.object_as<TensorObj>() != nullptr; }

Tensor to_tensor(const Value& v, const std::string& what) {
  if (auto* t = v.object_as<TensorObj>()) return t->t;
  if (v.is_number()) return Tensor(to_const(v, what));
  throw Error(cat(what, " must be a Tensor or a number, not ", type_name(v)));
}

DType to_dtype(const Value& v, const std::string& what) {
  if (auto* d = v.object_as<DTypeObj>()) return d->d;
  if (v.is_str()) {
    std::optional<DType> d = dtypes::from_name(v.as_str());
    if (!d) throw Error(cat(what, ": unknown dtype '", v.as_str(), "'"));
    return *d;
  }
  throw Error(cat(what, " must be a dtype (like dtypes.float32), not ", type_name(v)));
}

ConstVal to_const(const Value& v, const std::string& what, std::optional<DType> target) {
  if (v.is_bool()) return ConstVal(v.as_bool());
  if (v.is_float()) return ConstVal(v.as_float());
  if (v.is_int()) {
    PyInt i = v.as_int();
    if (i >= std::numeric_limits<int64_t>::min() && i <= std::numeric_limits<int64_t>::max()) return ConstVal(int64_t(i));
    if (target && *target == dtypes::uint64 && i > 0 && i < (PyInt(1) << 64))
      return ConstVal(static_cast<int64_t>(static_cast<uint64_t>(i)));  // the uint64's bit pattern
    throw Error(cat(what, ": the integer ", int_str(i), " does not fit in 64 bits"));
  }
  throw Error(cat(what, " must be a number, not ", type_name(v)));
}

Axes to_axes(const Value& v, const std::string& what) {
  if (v.is_none()) return Axes();
  if (v.is_integral()) return Axes(to_int64(v, what));
  if (v.is_seq()) {
    std::vector<int64_t> axes;
    for (const Value& x : v.items()) axes.push_back(to_int64(x, what + " element"));
    return Axes(std::move(axes));
  }
  throw Error(cat(what, " must be None, an int or a tuple of ints, not ", type_name(v)));
}

Nested to_nested(const Value& v, const std::string& what, std::optional<DType> target) {
  if (v.is_number()) return Nested(to_const(v, what, target));
  if (v.is_seq()) {
    std::vector<Nested> items;
    items.reserve(v.items().size());
    for (const Value& x : v.items()) items.push_back(to_nested(x, what, target));
    return Nested(std::move(items));
  }
  if (is_tensor(v)) throw Error(cat(what, ": a list of tensors is not supported (use Tensor.stack)"));
  throw Error(cat(what, " must hold numbers, not ", type_name(v)));
}

std::vector<Index> to_indices(const Value& index) {
  std::vector<Index> out;
  if (index.kind() == Value::Kind::Tuple) {
    for (const Value& v : index.items()) out.push_back(to_index(v));
  } else {
    out.push_back(to_index(index));
  }
  return out;
}

// ---------------------------------------------------------------- the host

std::optional<Value> TensorHost::builtin(const std::string& name) {
  static const Value tensor_class = Value::object(std::make_shared<TensorClass>());
  static const Value dtypes_ns = Value::object(std::make_shared<DTypesNamespace>());
  if (name == "Tensor") return tensor_class;
  if (name == "dtypes") return dtypes_ns;
  return std::nullopt;
}

Value TensorHost::attribute(const Value& obj, const std::string& name) {
  if (auto* to = obj.object_as<TensorObj>()) {
    const Tensor& t = to->t;
    if (name == "shape") {
      Items dims;
      for (int64_t d : t.shape()) dims.push_back(Value::integer(d));
      return Value::tuple(std::move(dims));
    }
    if (name == "dtype") return wrap(t.dtype());
    if (name == "ndim") return Value::integer(t.ndim());
    if (name == "T") return wrap(t.T());
    if (name == "device") return Value::str(t.device());
    if (name == "grad") {
      std::optional<Tensor> g = t.grad();
      return g ? wrap(*g) : Value::none();
    }
    const Method* m = find_method(name);
    if (!m) no_method(name);
    return Value::object(std::make_shared<MethodObj>(m, m->is_static ? std::nullopt : std::optional<Tensor>(t)));
  }
  if (obj.object_as<TensorClass>()) {
    const Method* m = find_method(name);
    if (!m) no_method(name);
    return Value::object(std::make_shared<MethodObj>(m, std::nullopt));
  }
  if (obj.object_as<DTypesNamespace>()) {
    std::optional<DType> d = dtypes::from_name(name);
    if (!d) throw Error(cat("dtypes has no attribute '", name, "'"));
    return wrap(*d);
  }
  if (auto* d = obj.object_as<DTypeObj>()) {
    if (name == "itemsize") return Value::integer(d->d.itemsize());
    if (name == "name") return Value::str(d->d.name());
  }
  throw Error(cat("'", type_name(obj), "' object has no attribute '", name, "'"));
}

Value TensorHost::call(const Value& callee, const std::vector<Value>& args, const KwArgs& kwargs) {
  if (callee.object_as<TensorClass>()) return construct_tensor(args, kwargs);
  auto* mo = callee.object_as<MethodObj>();
  if (!mo) throw Error(cat("TypeError: '", type_name(callee), "' object is not callable"));
  const Method& m = *mo->m;
  if (m.is_static) return m.fn(nullptr, Args(m.sig, args, kwargs));
  if (mo->self) return m.fn(&*mo->self, Args(m.sig, args, kwargs));
  // Tensor.cat(a, b): the first argument is the tensor
  if (args.empty()) throw Error(cat("TypeError: Tensor.", m.sig.name, "() needs a tensor as its first argument"));
  auto* self = args[0].object_as<TensorObj>();
  if (!self)
    throw Error(cat("TypeError: Tensor.", m.sig.name, "() needs a tensor as its first argument, not ", type_name(args[0])));
  std::vector<Value> rest(args.begin() + 1, args.end());
  return m.fn(&self->t, Args(m.sig, rest, kwargs));
}

Value TensorHost::binary(BinOp op, const Value& a, const Value& b) {
  auto* ta = a.object_as<TensorObj>();
  auto* tb = b.object_as<TensorObj>();
  if (!ta && !tb) {
    // dtypes compare by identity of the type, like Python's DType objects
    auto* da = a.object_as<DTypeObj>();
    auto* db = b.object_as<DTypeObj>();
    if ((op == BinOp::Eq || op == BinOp::Ne) && (da || db)) {
      bool same = da && db && da->d == db->d;
      return Value::boolean(op == BinOp::Eq ? same : !same);
    }
    if (op == BinOp::Eq || op == BinOp::Ne) return Value::boolean((op == BinOp::Eq) == py_equal(a, b));
    unsupported(op, a, b);
  }
  std::string what = cat("operand of ", op_symbol(op));
  if (ta) {
    if (!tb && !b.is_number()) unsupported(op, a, b);
    Tensor other = tb ? tb->t : Tensor(to_const(b, what, ta->t.dtype()));
    return wrap((ta->t.*tensor_op(op))(other));
  }
  if (!a.is_number() || op == BinOp::MatMul) unsupported(op, a, b);
  if (is_comparison(op)) return wrap((tb->t.*tensor_op(mirrored(op)))(Tensor(to_const(a, what, tb->t.dtype()))));
  return wrap((Tensor(to_const(a, what, tb->t.dtype())).*tensor_op(op))(tb->t));  // 3 - x: reversed
}

Value TensorHost::unary(UnOp op, const Value& a) {
  auto* t = a.object_as<TensorObj>();
  if (t && op == UnOp::Neg) return wrap(t->t.neg());
  if (t && op == UnOp::Invert) return wrap(t->t.bitwise_not());
  throw Error(cat("TypeError: bad operand type for unary ", op_symbol(op), ": '", type_name(a), "'"));
}

Value TensorHost::subscript(const Value& obj, const Value& index) {
  auto* t = obj.object_as<TensorObj>();
  if (!t) throw Error(cat("TypeError: '", type_name(obj), "' object is not subscriptable"));
  return wrap(t->t.getitem(to_indices(index)));
}

} // namespace loupe::script
