// Views and in-place writes. A movement op's result remembers the tensor its chain of movements starts
// at and the movements themselves; assigning into it writes that tensor at the elements the view shows
// (x scattered back through the inverse movements, beside a mask of the elements it covers), and every
// live view of the tensor then reads the new value. The graph stays functional: a write builds a new
// graph for the tensor written (WHERE(mask, x scattered, old value)); nothing is mutated in a buffer.
#include <mutex>
#include <unordered_set>

#include "exec/realize.h"
#include "shape/sint_arg.h"
#include "support/error.h"
#include "tensor/disk_window.h"
#include "tensor/tensor.h"

namespace loupe {

namespace {

// Guards every State's list of views (tensors may be built from several threads in C++).
std::mutex views_mutex;

// The tensors assigned since they were last realized (weak: one that dies needs no write).
std::mutex assigned_mutex;
std::vector<std::weak_ptr<Tensor::State>> assigned_states;

void mark_assigned(const std::shared_ptr<Tensor::State>& s) {
  std::lock_guard lock(assigned_mutex);
  if (s->assigned) return;
  s->assigned = true;
  std::erase_if(assigned_states, [](const std::weak_ptr<Tensor::State>& w) { return w.expired(); });
  assigned_states.push_back(s);
}

// The graph of a view of a tensor whose graph is `base`.
UOpPtr follow(UOpPtr base, const std::vector<Tensor::ViewStep>& steps) {
  for (const Tensor::ViewStep& s : steps) {
    DType d = base->dtype;
    base = UOp::make(s.op, d, {base}, s.arg);
  }
  return base;
}

} // namespace

Tensor Tensor::view(Ops op, Arg arg, sints shape) const {
  if (disk_window_buffer(*this)) return disk_view(*this, op, arg, shape);  // a new window, at once
  Tensor r = from_uop_sym(UOp::make(op, dtype(), {s_->uop}, arg), std::move(shape));
  auto origin = std::make_shared<ViewOrigin>();
  std::shared_ptr<State> base = s_->view ? s_->view->base.lock() : nullptr;
  if (base) origin->steps = s_->view->steps;
  else base = s_;
  origin->base = base;
  origin->steps.push_back({op, std::move(arg), s_->shape});
  r.s_->view = std::move(origin);
  std::lock_guard lock(views_mutex);
  std::vector<std::weak_ptr<State>>& views = base->views;
  // a model's forward pass makes new views of its weights on every call: drop the dead ones as the
  // list doubles, so it stays proportional to the views alive
  if (views.size() >= 16 && (views.size() & (views.size() - 1)) == 0)
    std::erase_if(views, [](const std::weak_ptr<State>& w) { return w.expired(); });
  views.push_back(r.s_);
  return r;
}

namespace {

// x, of a view's shape, moved back through the view's steps to the shape of the tensor it views, and a
// bool mask of the elements it lands on. Elements a view shows from padding are dropped; an expanded
// view shows one element at several places, so it cannot take values.
std::pair<Tensor, Tensor> scatter_back(Tensor x, const std::vector<Tensor::ViewStep>& steps) {
  Tensor mask = Tensor::full_sym(x.sshape(), ConstVal(true), dtypes::bool_);
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const Tensor::ViewStep& s = *it;
    auto both = [&](auto&& f) {
      x = f(x);
      mask = f(mask);
    };
    switch (s.op) {
    case Ops::RESHAPE: both([&](const Tensor& t) { return t.reshape_sym(s.in); }); break;
    case Ops::PERMUTE: {
      std::vector<int64_t> order = s.arg.as_ints(), inverse(order.size());
      for (size_t i = 0; i < order.size(); i++) inverse[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
      both([&](const Tensor& t) { return t.permute(inverse); });
      break;
    }
    case Ops::SHRINK: {
      SymPadSpec pads;
      Ranges r = ranges_from_arg(s.arg, "shrink");
      for (size_t d = 0; d < r.size(); d++) pads.push_back(std::pair<sint, sint>{r[d].first, s.in[d] - r[d].second});
      both([&](const Tensor& t) { return t.pad_sym(pads); });
      break;
    }
    case Ops::PAD: {
      SymPadSpec inside;
      Ranges p = ranges_from_arg(s.arg, "pad");
      for (size_t d = 0; d < p.size(); d++) inside.push_back(std::pair<sint, sint>{p[d].first, p[d].first + s.in[d]});
      both([&](const Tensor& t) { return t.shrink_sym(inside); });
      break;
    }
    case Ops::FLIP: {
      std::vector<int64_t> axes;
      const Arg::Tuple& flags = s.arg.as_tuple();
      for (size_t d = 0; d < flags.size(); d++)
        if (flags[d].as_bool()) axes.push_back(static_cast<int64_t>(d));
      both([&](const Tensor& t) { return t.flip(Axes(axes)); });
      break;
    }
    case Ops::EXPAND:
      throw RuntimeError(cat("cannot assign into an expanded view: it shows each element of the tensor it views several times (",
                             shape_str(s.in), " expanded to ", shape_str(sints_from_arg(s.arg, "expand")), "); assign into a contiguous copy"));
    default: throw InternalError(cat("a view step of op ", op_name(s.op)));
    }
  }
  return {x, mask};
}

// Every live view of `base` reads its value anew.
void refresh_views(const std::shared_ptr<Tensor::State>& base) {
  std::lock_guard lock(views_mutex);
  std::erase_if(base->views, [](const std::weak_ptr<Tensor::State>& w) { return w.expired(); });
  for (const std::weak_ptr<Tensor::State>& w : base->views)
    if (auto v = w.lock(); v && v->view) v->uop = follow(base->uop, v->view->steps);
}

} // namespace

void Tensor::set_uop(UOpPtr uop) {
  s_->uop = std::move(uop);
  s_->realized_constant = false;
  refresh_views(s_);
}

Tensor& Tensor::assign(const Tensor& x) {
  if (x.sshape() != sshape())
    throw AssertionError(loupe::cat("assign shape mismatch ", shape_str(sshape()), " != ", shape_str(x.sshape())));
  Tensor v = x;
  if (x.dtype() != dtype()) {
    if (!x.dtype().is_weak()) throw AssertionError(loupe::cat("assign dtype mismatch ", dtype().short_name(), " != ", x.dtype().short_name()));
    v = x.cast(dtype());
  }
  if (v.s_ == s_) return *this;
  if (disk_window_buffer(*this)) {  // bytes of a file: written now
    disk_write(*this, v);
    return *this;
  }
  std::shared_ptr<State> base = s_->view ? s_->view->base.lock() : nullptr;
  if (!base) {  // not a view of a live tensor: this tensor takes the value, and its views see it
    set_uop(v.uop());
    if (!realized_buffer(s_->uop)) mark_assigned(s_);  // (a realized value has no write to wait for)
    return *this;
  }
  auto [scattered, mask] = scatter_back(v, s_->view->steps);
  Tensor old(FromState{}, base);
  old.set_uop(mask.where(scattered, old).cast(old.dtype()).uop());
  mark_assigned(base);
  return *this;
}

Tensor& Tensor::replace(const Tensor& x) {
  if (x.sshape() != sshape())
    throw AssertionError(loupe::cat("replace shape mismatch ", shape_str(sshape()), " != ", shape_str(x.sshape())));
  set_uop(x.uop());  // x's dtype too, as tinygrad (a float16 checkpoint loads as float16)
  return *this;
}

std::vector<Tensor> Tensor::pending_assigns(const std::vector<Tensor*>& tensors) {
  std::lock_guard lock(assigned_mutex);
  for (Tensor* t : tensors) t->s_->assigned = false;  // realized anyway
  std::erase_if(assigned_states, [](const std::weak_ptr<State>& w) {
    auto s = w.lock();
    return !s || !s->assigned;
  });
  if (assigned_states.empty()) return {};
  std::vector<std::shared_ptr<State>> due;
  std::unordered_set<const State*> bases;
  for (Tensor* t : tensors)
    if (t->s_->view)
      if (auto b = t->s_->view->base.lock()) bases.insert(b.get());
  std::unordered_set<const UOp*> read;
  for (Tensor* t : tensors)
    for (const UOp* u : t->uop()->toposort()) read.insert(u);
  std::erase_if(assigned_states, [&](const std::weak_ptr<State>& w) {
    auto s = w.lock();
    if (!bases.count(s.get()) && !read.count(s->uop.get())) return false;
    s->assigned = false;
    due.push_back(std::move(s));
    return true;
  });
  std::vector<Tensor> out;
  for (auto& s : due) out.push_back(Tensor(FromState{}, std::move(s)));
  return out;
}

void Tensor::realize_assigned() {
  std::vector<Tensor> due;
  {
    std::lock_guard lock(assigned_mutex);
    for (const std::weak_ptr<State>& w : assigned_states)
      if (auto s = w.lock(); s && s->assigned) due.push_back(Tensor(FromState{}, s));
  }
  std::vector<Tensor*> ptrs;
  for (Tensor& t : due) ptrs.push_back(&t);
  if (!ptrs.empty()) realize_in_buffers(ptrs);  // (state a step writes: in memory a replay writes again)
}

} // namespace loupe
