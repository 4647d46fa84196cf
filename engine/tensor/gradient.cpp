// Autograd (current tinygrad's design): gradients are more lazy UOps, built by a rule per op that
// maps the incoming gradient to one gradient per source, walking the graph backwards from the root.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>

#include "ir/metadata.h"
#include "schedule/lazy_shape.h"
#include "shape/sint_arg.h"
#include "support/error.h"
#include "tensor/tensor.h"

namespace loupe {

std::vector<std::shared_ptr<Tensor::State>> live_tensor_states();  // tensor.cpp

namespace {
constexpr double kLn2 = 0.6931471805599453;
constexpr double kPi = 3.141592653589793;

using Grads = std::vector<std::optional<Tensor>>;

Tensor sum_to_shape(const Tensor& v, const sints& want) {
  if (v.sshape() == want) return v;
  std::vector<int64_t> axes;
  for (size_t i = 0; i < want.size(); i++)
    if (want[i] == 1 && v.sshape()[i] != 1) axes.push_back(static_cast<int64_t>(i));
  return v.cast(dtypes::sum_acc_dtype(v.dtype())).sum(Axes(axes), true).reshape_sym(want).cast(v.dtype());
}

Grads reduce_gradient(const Tensor& g, const Tensor& ret, const Tensor& x, Ops op, const std::vector<int64_t>& axes) {
  if (op == Ops::ADD) return {g.expand_sym(x.sshape())};
  if (op == Ops::MAX) {
    // the elements equal to the max: x and its max from the same bits (Tensor::computed_once), else
    // x recomputed at the element may round otherwise than inside the max and match nowhere
    const Tensor once = x.computed_once();
    const Tensor max = once.uop() == x.uop() ? ret : once.max(Axes(axes), true).reshape_sym(ret.sshape());
    Tensor mask = once.eq(max).cast(g.dtype());
    return {mask / mask.sum(Axes(axes), true) * g};
  }
  // MUL: the product of the others, with care for zeros
  Tensor is_zero = x.eq(Tensor(int64_t(0)));
  Tensor safe_x = is_zero.where(Tensor(int64_t(1)), x);
  Tensor zero_count = is_zero.cast(dtypes::int32).sum(Axes(axes), true);
  Tensor others = zero_count.eq(Tensor(int64_t(1))).where(safe_x.prod(Axes(axes), true), Tensor(int64_t(0)));
  return {g * is_zero.where(others, ret / safe_x)};
}

Grads op_gradient(const UOpPtr& u, const Tensor& g, ShapeMemo& shapes) {
  auto T = [&](const UOpPtr& x) { return Tensor::from_uop_sym(x, shapes.of(x)); };
  Tensor ret = T(u);
  auto src = [&](size_t i) { return T(u->src[i]); };
  switch (u->op) {
  case Ops::CAST: return {g.cast(u->src[0]->dtype)};
  case Ops::RECIP: return {g.neg() * ret * ret};
  case Ops::SIN: return {(Tensor(kPi / 2) - src(0)).sin() * g};
  case Ops::LOG2: return {g / (src(0) * Tensor(kLn2))};
  case Ops::EXP2: return {ret * g * Tensor(kLn2)};
  case Ops::SQRT: return {g / (ret * Tensor(int64_t(2)))};
  case Ops::TRUNC: return {g.zeros_like()};
  case Ops::ADD: return {g, g};
  case Ops::MUL: return {src(1) * g, src(0) * g};
  case Ops::POW: {
    Tensor b = src(0), e = src(1);
    Tensor db = g * e.eq(Tensor(int64_t(0))).where(e, e * b.pow(e - Tensor(int64_t(1))));
    Tensor de = g * b.eq(Tensor(int64_t(0)))
                        .where(e.lt(Tensor(int64_t(0))).where(Tensor(-INFINITY), Tensor(0.0)),
                               ret * b.log2() * Tensor(kLn2));
    return {db, de};
  }
  case Ops::MAX: {
    Tensor x = src(0), y = src(1);
    Tensor half = x.eq(y).where(g * Tensor(0.5), Tensor(0.0));
    return {x.gt(y).where(g, half), x.lt(y).where(g, half)};
  }
  case Ops::WHERE: {
    Tensor c = src(0);
    return {std::nullopt, c.where(g, Tensor(0.0)), c.where(Tensor(0.0), g)};
  }
  case Ops::REDUCE_AXIS: {
    Ops op = u->arg.as_tuple()[0].as_op();
    return reduce_gradient(g, ret, src(0), op, u->arg.as_tuple()[1].as_ints());
  }
  case Ops::CONTIGUOUS: return {g};
  case Ops::COPY: return {g.to(src(0).device())};
  case Ops::CONTIGUOUS_BACKWARD: return {g.contiguous()};
  case Ops::RESHAPE: return {g.reshape_sym(shapes.of(u->src[0]))};
  case Ops::EXPAND: return {g};  // summed back to the source's shape by the caller
  case Ops::PAD: {
    SymPadSpec p;
    const sints& in = shapes.of(u->src[0]);
    Ranges t = ranges_from_arg(u->arg, "pad");
    for (size_t i = 0; i < in.size(); i++) p.push_back(std::pair<sint, sint>{t[i].first, t[i].first + in[i]});
    return {g.shrink_sym(p)};
  }
  case Ops::SHRINK: {
    SymPadSpec p;
    const sints& in = shapes.of(u->src[0]);
    Ranges t = ranges_from_arg(u->arg, "shrink");
    for (size_t i = 0; i < in.size(); i++) p.push_back(std::pair<sint, sint>{t[i].first, in[i] - t[i].second});
    return {g.pad_sym(p)};
  }
  case Ops::PERMUTE: {
    std::vector<int64_t> order = u->arg.as_ints(), inv(order.size());
    for (size_t i = 0; i < order.size(); i++) inv[order[i]] = static_cast<int64_t>(i);
    return {g.permute(inv)};
  }
  case Ops::FLIP: {
    std::vector<int64_t> axes;
    const auto& t = u->arg.as_tuple();
    for (size_t i = 0; i < t.size(); i++)
      if (t[i].as_bool()) axes.push_back(static_cast<int64_t>(i));
    return {g.flip(Axes(axes))};
  }
  case Ops::CMPLT:
  case Ops::CMPNE:
  case Ops::BITCAST:
  case Ops::FLOORDIV:
  case Ops::FLOORMOD:
  case Ops::IDIV:
  case Ops::MOD:
  case Ops::AND:
  case Ops::OR:
  case Ops::XOR:
  case Ops::SHL:
  case Ops::SHR: return Grads(u->src.size());
  default: break;
  }
  throw Error(loupe::cat("no gradient rule for ", op_name(u->op)));
}

// The record of a gradient of a node made by `id`'s op (0 for a node no op recorded).
uint32_t backward_of(uint32_t id) {
  if (id == 0) return 0;
  Metadata m = metadata_of(id);
  if (m.backward) return id;
  m.backward = true;
  return intern_metadata(m);
}

} // namespace

std::vector<Tensor> Tensor::gradient(const std::vector<Tensor>& targets, std::optional<Tensor> gradient) const {
  if (!gradient) {
    if (ndim() != 0)
      throw AssertionError(loupe::cat("backward/gradient needs a scalar (0-d) tensor or an explicit gradient, got shape ",
                                      shape_str(sshape())));  // (tinygrad asserts it)
    gradient = Tensor(1.0).cast(dtype());
  }
  // a gradient of the same elements in another shape (a scalar's as [g], as tinygrad takes it) is reshaped
  if (gradient->sshape() != sshape() && gradient->ndim() <= 1 && ndim() <= 1 && gradient->numel() == numel())
    gradient = gradient->reshape_sym(sshape());
  if (gradient->sshape() != sshape())
    throw Error(loupe::cat("gradient of shape ", shape_str(gradient->sshape()), " for a tensor of shape ", shape_str(sshape())));
  ShapeMemo shapes;
  std::unordered_set<const UOp*> target_set;
  for (const Tensor& t : targets) target_set.insert(t.uop().get());
  std::vector<const UOp*> order = uop()->toposort();
  std::unordered_map<const UOp*, bool> on_path;
  for (const UOp* u : order) {
    bool p = false;
    if (u->op != Ops::DETACH)
      for (const UOpPtr& s : u->src) p = p || on_path[s.get()] || target_set.count(s.get());
    on_path[u] = p;
  }
  std::unordered_map<const UOp*, Tensor> grads;
  grads.emplace(uop().get(), *gradient);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const UOp* t0 = *it;
    if (!on_path[t0]) continue;
    auto g = grads.find(t0);
    if (g == grads.end()) continue;
    // the gradient's nodes name the op they differentiate, marked backward (tinygrad's "relu bw")
    MetadataScope provenance(backward_of(t0->metadata()), true);
    Grads local = op_gradient(t0->ptr(), g->second, shapes);
    for (size_t i = 0; i < t0->src.size() && i < local.size(); i++) {
      if (!local[i]) continue;
      const UOpPtr& k = t0->src[i];
      Tensor v = sum_to_shape(*local[i], shapes.of(k));
      auto [slot, fresh] = grads.emplace(k.get(), v);
      if (!fresh) slot->second = slot->second + v;
    }
  }
  std::vector<Tensor> out;
  for (const Tensor& t : targets) {
    auto it = grads.find(t.uop().get());
    out.push_back(it != grads.end() ? it->second.cast(t.dtype()) : t.zeros_like());
  }
  return out;
}

Tensor& Tensor::backward(std::optional<Tensor> gradient) {
  std::vector<const UOp*> order = uop()->toposort();
  std::unordered_set<const UOp*> in_graph(order.begin(), order.end());
  auto states = live_tensor_states();
  // requires_grad as tinygrad derives it for a tensor an op made: true when a source's is, false when
  // every source's is, else unset. A tensor's own setting wins; nodes no live tensor holds (constants,
  // the ops inside one tensor op) pass their sources' on; a node that reaches none is unset.
  enum class Need { None, Unset, False, True };
  std::unordered_map<const UOp*, Need> own;
  for (auto& st : states)
    if (in_graph.count(st->uop.get()) && st->requires_grad) {
      Need& n = own[st->uop.get()];
      n = std::max(n, *st->requires_grad ? Need::True : Need::False);
    }
  std::unordered_map<const UOp*, Need> need;
  for (const UOp* u : order) {
    Need n = Need::None;
    if (auto it = own.find(u); it != own.end()) n = it->second;
    else
      for (const UOpPtr& s : u->src) {
        Need m = need[s.get()];
        if (m == Need::True || n == Need::True) n = Need::True;
        else if (m == Need::Unset || n == Need::Unset) n = Need::Unset;
        else if (m == Need::False) n = Need::False;
      }
    need[u] = n;
  }
  std::vector<Tensor> targets;
  for (auto& st : states) {
    Tensor t(FromState{}, st);
    // like tinygrad: every strong floating-point tensor (Tensor.ones too), never a weak Python scalar,
    // nor one that requires no gradient (set so, or made only from such tensors)
    // (any dtype when asked for by requires_grad=True, as tinygrad: an int tensor's gradient is an int tensor)
    bool asked = st->requires_grad == true;
    if (in_graph.count(st->uop.get()) && !t.dtype().is_weak() && st->requires_grad != false && need[st->uop.get()] != Need::False &&
        (asked || t.dtype().is_float()))
      targets.push_back(t);
  }
  std::vector<Tensor> grads = this->gradient(targets, gradient);
  for (size_t i = 0; i < targets.size(); i++) {
    Tensor& t = targets[i];
    if (t.s_->grad) t.s_->grad = (Tensor(FromState{}, t.s_->grad) + grads[i]).s_;
    else t.s_->grad = grads[i].s_;
  }
  return *this;
}

std::optional<Tensor> Tensor::grad() const {
  if (!s_->grad) return std::nullopt;
  return Tensor(FromState{}, s_->grad);
}

void Tensor::set_grad(std::optional<Tensor> g) { s_->grad = g ? g->s_ : nullptr; }

} // namespace loupe
