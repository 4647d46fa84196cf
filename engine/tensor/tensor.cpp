// Tensor core: construction, the lazy-graph building blocks (ALU with broadcasting and promotion,
// reductions, casts) and creation functions. Movement ops live in tensor_movement.cpp, the math
// built from primitives in tensor_math.cpp, reductions in tensor_reduce.cpp.
#include "tensor/tensor.h"

#include <cmath>
#include <mutex>
#include <numeric>
#include <unordered_set>

#include "exec/realize.h"
#include "ir/alu_eval.h"
#include "ir/buffer_ref.h"
#include "ir/metadata.h"
#include "runtime/device.h"
#include "runtime/disk/disk_device.h"
#include "support/error.h"
#include "support/options.h"
#include "tensor/disk_window.h"
#include "tensor/host_data.h"

namespace loupe {

DType ConstVal::weak_dtype() const {
  if (std::holds_alternative<bool>(v)) return dtypes::bool_;
  if (std::holds_alternative<int64_t>(v)) return dtypes::weakint;
  return dtypes::weakfloat;
}

double ConstVal::as_double() const {
  if (auto b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
  if (auto i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}

ConstVal ConstVal::lowest(DType d) {
  if (d.is_float()) return ConstVal(-INFINITY);
  if (d.is_bool()) return ConstVal(false);
  return ConstVal(static_cast<int64_t>(d.min_int()));
}

ConstVal ConstVal::highest(DType d) {
  if (d.is_float()) return ConstVal(INFINITY);
  if (d.is_bool()) return ConstVal(true);
  return ConstVal(static_cast<int64_t>(static_cast<uint64_t>(d.max_int())));
}

namespace {

// Where new tensors live: DEVICE, else the CPU.
std::string home_device() {
  const std::string& d = options().device;
  return d.empty() ? "CPU" : d;
}

// A float constant of a strong float dtype holds that dtype's value (1.0001 as a half is 1.0, as in
// tinygrad and numpy), so comparisons and arithmetic see what the tensor would hold.
UOpPtr float_const(DType dtype, double v) {
  bool strong_float = dtype.is_float() && !dtype.is_weak();
  return UOp::cnst(dtype, strong_float ? round_to_float(v, dtype.scalar()) : v);
}

UOpPtr const_uop(DType dtype, const ConstVal& c) {
  if (auto b = std::get_if<bool>(&c.v)) return UOp::cnst_int(dtype, *b);
  if (auto i = std::get_if<int64_t>(&c.v)) return UOp::cnst_int(dtype, *i);
  return float_const(dtype, std::get<double>(c.v));
}

// Literal data: shape, and the flattened scalars.
void flatten_nested(const Nested& n, size_t depth, Shape& shape, std::vector<ConstVal>& out, bool& shape_set) {
  if (auto c = std::get_if<ConstVal>(&n.v)) {
    if (!shape_set) shape_set = true, shape.resize(depth);
    else if (shape.size() != depth) throw ValueError("Tensor(): nested lists are ragged (mixed depths)");
    out.push_back(*c);
    return;
  }
  const auto& list = std::get<std::vector<Nested>>(n.v);
  if (!shape_set && shape.size() <= depth) shape.push_back(static_cast<int64_t>(list.size()));
  else if (depth >= shape.size() || shape[depth] != static_cast<int64_t>(list.size()))
    throw ValueError(loupe::cat("Tensor(): nested lists are ragged at depth ", depth));
  if (list.empty() && !shape_set) {
    shape_set = true;
    shape.resize(depth + 1);
  }
  for (const Nested& x : list) flatten_nested(x, depth + 1, shape, out, shape_set);
}

} // namespace

namespace {
// Every tensor state, so backward() can find the tensors a graph depends on (like tinygrad's all_tensors).
std::mutex registry_mutex;
std::vector<std::weak_ptr<Tensor::State>> registry;
size_t registry_prune_at = 1024;
} // namespace

namespace {
// A constant seen through views (a tensor op's 0 or 1 broadcast to a shape): the same node serves every
// later op of that shape, so it carries no op's provenance (it would name an earlier, unrelated call).
bool constant_view(const UOp* u) {
  while (true) {
    switch (u->op) {
    case Ops::CONST: return true;
    case Ops::RESHAPE: case Ops::EXPAND: case Ops::PERMUTE: case Ops::PAD: case Ops::SHRINK: case Ops::FLIP: case Ops::CAST:
      if (u->src.empty()) return false;
      u = u->src[0].get();
      break;
    default: return false;
    }
  }
}
} // namespace

void Tensor::init(UOpPtr uop, sints shape) {
  if (uint32_t meta = MetadataScope::current(); meta && !constant_view(uop.get())) uop->set_metadata_once(meta);
  Shape concrete = all_int(shape) ? to_ints(shape) : Shape{};
  s_ = std::make_shared<State>(State{std::move(uop), std::move(shape), std::move(concrete), nullptr, std::nullopt});
  std::lock_guard lock(registry_mutex);
  registry.push_back(s_);
  if (registry.size() >= registry_prune_at) {
    std::erase_if(registry, [](const std::weak_ptr<State>& w) { return w.expired(); });
    registry_prune_at = std::max<size_t>(1024, registry.size() * 2);
  }
}

std::vector<std::shared_ptr<Tensor::State>> live_tensor_states() {
  std::lock_guard lock(registry_mutex);
  std::vector<std::shared_ptr<Tensor::State>> out;
  for (auto& w : registry)
    if (auto s = w.lock()) out.push_back(std::move(s));
  return out;
}

Tensor::Tensor(UOpPtr uop, Shape shape) { init(std::move(uop), to_sints(shape)); }
Tensor::Tensor(UOpPtr uop, sints shape) { init(std::move(uop), std::move(shape)); }

std::vector<Tensor> Tensor::live() {
  std::vector<Tensor> out;
  for (auto& st : live_tensor_states()) out.push_back(Tensor(FromState{}, st));
  return out;
}

Tensor::Tensor(ConstVal scalar) { init(const_uop(scalar.weak_dtype(), scalar), {}); }

Tensor::Tensor(const Nested& data, std::optional<DType> dtype) {
  if (auto c = std::get_if<ConstVal>(&data.v)) {  // Tensor(3.0) through the nested path
    DType d = dtype ? *dtype : c->weak_dtype();
    init(const_uop(d, *c), {});
    return;
  }
  Shape shape;
  std::vector<ConstVal> values;
  bool shape_set = false;
  flatten_nested(data, 0, shape, values, shape_set);
  DType d = dtypes::default_float();
  if (dtype) d = *dtype;
  else if (!values.empty()) {
    bool all_bool = true, any_float = false;
    for (const ConstVal& v : values) {
      all_bool = all_bool && std::holds_alternative<bool>(v.v);
      any_float = any_float || std::holds_alternative<double>(v.v);
    }
    d = all_bool ? dtypes::bool_ : any_float ? dtypes::default_float() : dtypes::default_int();
  }
  d = dtypes::strong(d);
  auto ref = BufferRef::make_new(home_device(), d, static_cast<int64_t>(values.size()));
  std::vector<uint8_t> bytes(values.size() * d.itemsize());
  for (size_t i = 0; i < values.size(); i++) {
    const ConstVal& v = values[i];
    bool is_int = !std::holds_alternative<double>(v.v);
    int64_t iv = is_int ? (std::holds_alternative<bool>(v.v) ? int64_t(std::get<bool>(v.v)) : std::get<int64_t>(v.v)) : 0;
    pack_value(d, v.as_double(), iv, is_int, bytes.data() + i * d.itemsize());
  }
  ref->state->pending_host_data = std::move(bytes);
  UOpPtr buf = UOp::make(Ops::BUFFER, d, {}, Arg(std::static_pointer_cast<const ArgObject>(ref)));
  init(buf, sints{static_cast<int64_t>(values.size())});
  if (to_sints(shape) != s_->shape) *this = reshape(shape);
}

Tensor Tensor::from_uop(UOpPtr uop, Shape shape) { return Tensor(std::move(uop), std::move(shape)); }
Tensor Tensor::from_uop_sym(UOpPtr uop, sints shape) { return Tensor(std::move(uop), std::move(shape)); }

const Shape& Tensor::shape() const {
  if (s_->concrete.size() != s_->shape.size())
    throw Error(loupe::cat("this operation needs a concrete shape; the tensor's shape ", shape_str(s_->shape),
                           " has a symbolic dimension (a Variable)"));
  return s_->concrete;
}

Tensor Tensor::from_bytes(const Shape& shape, DType dtype, std::vector<uint8_t> bytes) {
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0) throw ValueError(loupe::cat("Tensor from bytes: negative dimension in shape ", shape_str(shape)));
    n *= s;
  }
  DType d = dtypes::strong(dtype);
  if (static_cast<int64_t>(bytes.size()) != n * d.itemsize())
    throw ValueError(loupe::cat("Tensor from bytes: ", bytes.size(), " bytes for shape ", shape_str(shape), " of ",
                                d.short_name(), " (", n * d.itemsize(), " expected)"));
  auto ref = BufferRef::make_new(home_device(), d, n);
  ref->state->pending_host_data = std::move(bytes);
  Tensor flat(UOp::make(Ops::BUFFER, d, {}, Arg(std::static_pointer_cast<const ArgObject>(ref))), Shape{n});
  return shape == Shape{n} ? flat : flat.reshape(shape);
}

int64_t Tensor::numel() const {
  Shape s = shape();
  return std::accumulate(s.begin(), s.end(), int64_t(1), std::multiplies<>());
}

std::string Tensor::device() const {
  // the nearest COPY or buffer below (the operands of one op share a device)
  std::vector<const UOp*> level{s_->uop.get()};
  std::unordered_set<const UOp*> seen;
  while (!level.empty()) {
    std::vector<const UOp*> next;
    for (const UOp* u : level) {
      if (u->op == Ops::COPY) return u->arg.as_string();
      if (u->op == Ops::BUFFER) return static_cast<const BufferRef&>(u->arg.as_object()).device;
      for (const UOpPtr& s : u->src)
        if (seen.insert(s.get()).second) next.push_back(s.get());
    }
    level = std::move(next);
  }
  return home_device();
}

Tensor Tensor::to(const std::string& device) const {
  DeviceStatus st = device_status(device);
  if (!st.available)
    throw Error(loupe::cat("to('", device, "'): ", st.reason.empty() ? "no such device" : st.reason));
  if (st.name == this->device()) return *this;
  Tensor src = dtype().is_weak() ? cast(dtypes::strong(dtype())) : *this;
  // a buffer, maybe reshaped (a numpy array's, a DISK window), is its elements in order: copied as it is
  UOpPtr whole = symbolic() ? nullptr : realized_buffer(src.uop());
  // a copy moves a whole buffer: a view of one (a permute, a slice of a realized tensor) is laid out as its
  // elements first, on its own device (copying the viewed buffer gave its raw order, or a size mismatch)
  if (!whole && op_in(src.uop()->op, kMovement)) src = src.contiguous();
  Tensor copy(UOp::make(Ops::COPY, src.dtype(), {whole ? whole : src.uop()}, Arg(st.name)), whole ? sints{numel()} : s_->shape);
  if (is_disk_device(st.name)) copy.realize();  // written to the file now: a window of it, which views and writes need
  return whole ? copy.reshape(shape()) : copy;
}

int64_t Tensor::resolve_axis(int64_t axis) const {
  int64_t n = ndim();
  int64_t lo = n == 0 ? -1 : -n, hi = n == 0 ? 0 : n - 1;
  if (axis < lo || axis > hi)
    throw IndexError(loupe::cat("dimension ", axis, " is out of range for a tensor of shape ", shape_str(s_->shape),
                    " (expected in [", lo, ", ", hi, "])"));
  return axis < 0 ? axis + std::max<int64_t>(n, 1) : axis;
}

int64_t Tensor::resolve_dim(int64_t dim) const {
  if (ndim() == 0) throw IndexError(loupe::cat("dimension ", dim, " given for a 0-d tensor, which has no dimensions"));
  return resolve_axis(dim);
}

// ---- creation ----

Tensor Tensor::empty(const Shape& shape, DType dtype) {
  for (int64_t s : shape)
    if (s < 0) throw Error(loupe::cat("Tensor.empty: negative dimension in shape ", shape_str(shape)));
  int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<>());
  auto ref = BufferRef::make_new(home_device(), dtypes::strong(dtype), n);
  Tensor t(UOp::make(Ops::BUFFER, dtypes::strong(dtype), {}, Arg(std::static_pointer_cast<const ArgObject>(ref))),
           Shape{n});
  return t.reshape(shape);
}

Tensor Tensor::full(const Shape& shape, ConstVal value, std::optional<DType> dtype) {
  for (int64_t s : shape)
    if (s < 0) throw Error(loupe::cat("Tensor.full: negative dimension in shape ", shape_str(shape)));
  DType d = dtype ? *dtype : dtypes::strong(value.weak_dtype());
  Tensor c(const_uop(d, value), Shape{});
  return c.reshape(Shape(shape.size(), 1)).expand(shape);
}

Tensor Tensor::zeros(const Shape& shape, DType dtype) { return full(shape, ConstVal(0.0), dtype); }
Tensor Tensor::ones(const Shape& shape, DType dtype) { return full(shape, ConstVal(1.0), dtype); }
Tensor Tensor::zeros_like() const { return full_sym(s_->shape, ConstVal(0.0), dtypes::strong(dtype())); }
Tensor Tensor::ones_like() const { return full_sym(s_->shape, ConstVal(1.0), dtypes::strong(dtype())); }
Tensor Tensor::full_like(ConstVal value) const { return full_sym(s_->shape, value, dtypes::strong(dtype())); }

Tensor Tensor::arange(ConstVal start, std::optional<ConstVal> stop, ConstVal step, std::optional<DType> dtype) {
  if (!stop) {
    stop = start;
    start = ConstVal(int64_t(0));
  }
  bool any_float = std::holds_alternative<double>(start.v) || std::holds_alternative<double>(stop->v) ||
                   std::holds_alternative<double>(step.v);
  double a = start.as_double(), b = stop->as_double(), s = step.as_double();
  if (s == 0) throw Error("Tensor.arange: step must not be zero");
  int64_t n = static_cast<int64_t>(std::ceil((b - a) / s));
  DType d = dtype ? *dtype : any_float ? dtypes::default_float() : dtypes::default_int();
  if (!dtype && !any_float) {
    double lo = s > 0 ? a : b - s, hi = s > 0 ? b - s : a;
    if (lo < -2147483648.0 || hi > 2147483647.0) d = dtypes::int64;
  }
  if (n <= 0) return full({0}, ConstVal(int64_t(0)), d);
  DType idx_dtype = n - 1 > 2147483647 ? dtypes::int64 : dtypes::int32;
  Tensor iota(UOp::make(Ops::IOTA, idx_dtype, {}, Arg(n)), Shape{n});
  if (d.is_float()) return (iota.cast(d) * Tensor(step).cast(d) + Tensor(start).cast(d));
  // integer ranges: compute in the wider of the index type and the result type, then cast
  DType wide = dtypes::least_upper_dtype({idx_dtype, d.is_int() ? d : dtypes::int64});
  if (wide.is_float()) wide = dtypes::int64;
  return (iota.cast(wide) * Tensor(step).cast(wide) + Tensor(start).cast(wide)).cast(d);
}

Tensor Tensor::linspace(ConstVal start, ConstVal stop, int64_t steps, std::optional<DType> dtype) {
  if (steps < 0) throw Error("Tensor.linspace: number of steps must be non-negative");
  DType d = dtype ? *dtype : dtypes::default_float();
  if (d.is_bool()) throw Error("Tensor.linspace: bool dtype is not supported");
  if (steps == 1) return full({1}, start, d);
  double delta = (stop.as_double() - start.as_double()) / static_cast<double>(steps - 1);
  Tensor r = arange(int64_t(0), ConstVal(steps), 1, dtypes::default_float());
  return (Tensor(start) + r * Tensor(delta)).cast(d);
}

Tensor Tensor::eye(int64_t n, std::optional<int64_t> m, DType dtype) {
  int64_t cols = m ? *m : n;
  if (n < 0 || cols < 0) throw Error(loupe::cat("Tensor.eye: negative size n=", n, ", m=", cols));
  return arange(ConstVal(n)).unsqueeze(-1).eq(arange(ConstVal(cols))).cast(dtype);
}

Tensor Tensor::tril(int64_t diagonal) const {
  if (ndim() < 2) throw Error(loupe::cat("tril needs at least 2 dimensions, got shape ", shape_str(s_->shape)));
  int64_t r = shape()[ndim() - 2], c = shape()[ndim() - 1];
  Tensor upper = (arange(ConstVal(r)).unsqueeze(-1) + Tensor(diagonal + 1)).le(arange(ConstVal(c)));
  return upper.where(zeros_like(), *this);
}

Tensor Tensor::triu(int64_t diagonal) const {
  if (ndim() < 2) throw Error(loupe::cat("triu needs at least 2 dimensions, got shape ", shape_str(s_->shape)));
  int64_t r = shape()[ndim() - 2], c = shape()[ndim() - 1];
  Tensor keep = (arange(ConstVal(r)).unsqueeze(-1) + Tensor(diagonal)).le(arange(ConstVal(c)));
  return keep.where(*this, zeros_like());
}

// ---- the building blocks ----

std::vector<Tensor> Tensor::broadcast(const std::vector<Tensor>& ts) {
  size_t rank = 0;
  for (const Tensor& t : ts) rank = std::max(rank, t.s_->shape.size());
  sints out(rank, 1);
  for (const Tensor& t : ts) {
    size_t off = rank - t.s_->shape.size();
    for (size_t i = 0; i < t.s_->shape.size(); i++) {
      const sint& s = t.s_->shape[i];
      sint& o = out[off + i];
      if (s == o || s == 1) continue;
      if (o == 1) o = s;
      else {
        std::string shapes;
        for (const Tensor& x : ts) shapes += (shapes.empty() ? "" : " and ") + shape_str(x.s_->shape);
        throw ValueError(loupe::cat("cannot broadcast ", shapes, ": dimension ", off + i, " is ", o.str(), " vs ", s.str()));
      }
    }
  }
  std::vector<Tensor> res;
  for (const Tensor& t : ts) res.push_back(t.s_->shape == out ? t : t.expand_sym(out));
  return res;
}

Tensor Tensor::cast(DType dtype) const {
  if (dtype == this->dtype()) return *this;
  // a weak constant (possibly already broadcast) just takes the new type, without rounding through
  // the weak type's default width
  UOpList chain;
  UOpPtr base = s_->uop;
  while (base->op == Ops::RESHAPE || base->op == Ops::EXPAND) {
    chain.push_back(base);
    base = base->src[0];
  }
  if (base->op == Ops::CONST && base->dtype.is_weak()) {
    UOpPtr c = base->arg.is_float() ? float_const(dtype, base->arg.as_float())
                                    : UOp::cnst_int(dtype, base->arg.is_bool() ? base->arg.as_bool() : base->arg.as_int());
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) c = UOp::make((*it)->op, dtype, {c}, (*it)->arg);
    return Tensor(c, s_->shape);
  }
  return Tensor(UOp::make(Ops::CAST, dtype, {s_->uop}), s_->shape);
}

namespace {
DType unsigned_of_size(int64_t bytes) {
  return bytes == 1 ? dtypes::uint8 : bytes == 2 ? dtypes::uint16 : bytes == 4 ? dtypes::uint32 : dtypes::uint64;
}
} // namespace

Tensor Tensor::bitcast(DType dtype) const {
  if (disk_window_buffer(*this)) return disk_bitcast(*this, dtypes::strong(dtype));  // the same bytes, read anew
  int64_t from = dtypes::strong(this->dtype()).itemsize(), to = dtypes::strong(dtype).itemsize();
  if (from != to) {
    // elements of another size: the last dimension holds the same bytes (little-endian, as in memory)
    if (ndim() == 0 || (shape().back() * from) % to != 0)
      throw RuntimeError(loupe::cat("bitcast from ", this->dtype().short_name(), " to ", dtype.short_name(), ": the last dimension of ",
                                    shape_str(shape()), " holds ", ndim() ? shape().back() * from : from, " bytes, not a multiple of ", to));
    DType wide = unsigned_of_size(std::max(from, to));
    Tensor bits = bitcast(unsigned_of_size(from));
    Shape grouped = shape();
    if (to > from) {  // every to/from elements make one
      int64_t k = to / from;
      grouped.back() /= k;
      grouped.push_back(k);
      Tensor parts = bits.reshape(grouped).cast(wide);
      std::optional<Tensor> word;
      for (int64_t i = 0; i < k; i++) {
        PadSpec pick(parts.ndim());
        pick.back() = std::pair<int64_t, int64_t>{i, i + 1};
        Tensor part = parts.shrink(pick).squeeze(-1).lshift(Tensor(int64_t(8 * from * i)).cast(wide));
        word = word ? word->bitwise_or(part) : part;
      }
      return word->bitcast(dtype);
    }
    int64_t k = from / to;  // every element makes from/to
    std::vector<Tensor> pieces;
    for (int64_t i = 0; i < k; i++) pieces.push_back(bits.rshift(Tensor(int64_t(8 * to * i)).cast(wide)).cast(unsigned_of_size(to)));
    return stack(pieces, -1).flatten(-2).bitcast(dtype);
  }
  if (dtype == this->dtype()) return *this;
  Tensor src = this->dtype().is_weak() ? cast(dtypes::strong(this->dtype())) : *this;
  return Tensor(UOp::make(Ops::BITCAST, dtype, {src.s_->uop}), s_->shape);
}

namespace {

// The value of a tensor that is a weak Python int (a CONST, maybe reshaped and expanded).
std::optional<int64_t> weak_int_value(const UOpPtr& u) {
  const UOp* b = u.get();
  while (b->op == Ops::RESHAPE || b->op == Ops::EXPAND) b = b->src[0].get();
  if (b->op != Ops::CONST || b->dtype.scalar() != dtypes::weakint || !b->arg.is_int()) return std::nullopt;
  return b->arg.as_int();
}

// A comparison or max of an integer tensor with a Python int its dtype cannot hold is decided by the
// dtype's range, as in numpy and tinygrad (uint8 < -1 is false everywhere; the int is never wrapped
// into the dtype first). nullopt: the operands are not such a pair.
std::optional<Tensor> outside_the_range(Ops op, const std::vector<Tensor>& ab) {
  if (op != Ops::CMPLT && op != Ops::CMPNE && op != Ops::MAX) return std::nullopt;
  for (size_t k = 0; k < 2; k++) {
    const Tensor& t = ab[k];
    std::optional<int64_t> c = weak_int_value(ab[1 - k].uop());
    DType d = t.dtype();
    if (!c || !(d.is_int() || d.is_bool()) || d.is_weak() || dtypes::can_represent(d, *c)) continue;
    bool above = *c > d.max_int();
    auto all = [&](bool v) { return Tensor::full_sym(t.sshape(), ConstVal(v), dtypes::bool_); };
    if (op == Ops::CMPNE) return all(true);
    if (op == Ops::CMPLT) return all(k == 0 ? above : !above);  // t < c, or c < t
    if (!above) return t;  // max(t, c) with c below every value of t
    return std::nullopt;   // (a max above the range keeps the promotion rules)
  }
  return std::nullopt;
}

} // namespace

Tensor Tensor::apply_alu(Ops op, const std::vector<Tensor>& others) const {
  std::vector<Tensor> all{*this};
  all.insert(all.end(), others.begin(), others.end());
  all = broadcast(all);
  if (all.size() == 2)
    if (std::optional<Tensor> decided = outside_the_range(op, all)) return *decided;
  // WHERE: the condition is bool, the branches are promoted together
  size_t first = op == Ops::WHERE ? 1 : 0;
  if (op == Ops::WHERE) all[0] = all[0].cast(dtypes::bool_);
  std::vector<DType> ds;
  for (size_t i = first; i < all.size(); i++) ds.push_back(all[i].dtype());
  DType out = dtypes::least_upper_dtype(ds);
  UOpList src;
  for (size_t i = 0; i < all.size(); i++) src.push_back(i < first ? all[i].s_->uop : all[i].cast(out).s_->uop);
  DType result = op_in(op, kComparison) ? dtypes::bool_ : out;
  return Tensor(UOp::make(op, result, std::move(src)), all[0].s_->shape);
}

Tensor Tensor::reduce(Ops op, const Axes& axis, bool keepdim) const {
  Tensor x = dtype().is_weak() ? cast(dtypes::strong(dtype())) : *this;
  std::vector<int64_t> axes;
  if (axis.axes) {
    for (int64_t a : *axis.axes) axes.push_back(resolve_axis(a));
  } else {
    for (int64_t i = 0; i < ndim(); i++) axes.push_back(i);
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  if (ndim() == 0) axes.clear();
  sints kept = s_->shape;
  for (int64_t a : axes) kept[a] = 1;
  // (as tinygrad's _reduce_op: an axis of size 1 is reduced by reshaping it away, no REDUCE_AXIS over it)
  std::vector<int64_t> reduced;
  for (int64_t a : axes)
    if (s_->shape[a] != 1) reduced.push_back(a);
  Tensor r = x;
  if (!reduced.empty()) {
    Arg arg(Arg::Tuple{Arg(op), Arg::ints(reduced)});
    r = Tensor(UOp::make(Ops::REDUCE_AXIS, x.dtype(), {x.s_->uop}, arg), kept);
  }
  if (keepdim) return r;
  sints squeezed;
  for (int64_t i = 0; i < ndim(); i++)
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) squeezed.push_back(s_->shape[i]);
  return r.reshape_sym(squeezed);
}

Tensor Tensor::contiguous() const {
  if (s_->uop->op == Ops::CONTIGUOUS || dtype().is_weak()) return *this;
  return Tensor(UOp::make(Ops::CONTIGUOUS, dtype(), {s_->uop}), s_->shape);
}

Tensor Tensor::detach() const { return Tensor(UOp::make(Ops::DETACH, dtype(), {s_->uop}), s_->shape); }

Index Index::of(const Tensor& t) { return {Kind::Tensor, 0, {}, std::make_shared<Tensor>(t)}; }

Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor operator-(const Tensor& a) { return a.neg(); }

} // namespace loupe
