#include "nn/optim.h"

#include <algorithm>

#include "exec/realize.h"
#include "runtime/buffer.h"
#include "support/error.h"

namespace loupe::nn {

namespace {
// A float32 buffer of shape (1,) (tinygrad's lr, b1_t, b2_t), and the scalar the math reads from it.
Tensor scalar_buffer(double v) { return Tensor(Nested(std::vector<Nested>{Nested(v)}), dtypes::float32); }
// on the device of the parameter it updates (a sharded model's parameters live on several devices)
Tensor scalar(const Tensor& t, const Tensor& param) { return t.reshape({}).to(param.device()); }
Tensor one_if_not(const Tensor& cond, const Tensor& v) { return cond.where(v, Tensor(1.0)); }
} // namespace

Optimizer::Optimizer(std::vector<Tensor*> params, double lr) : lr_(scalar_buffer(lr)) {
  if (lr < 0) throw Error(loupe::cat("optimizer: invalid learning rate ", lr));
  for (Tensor* p : params) {
    if (!p) throw Error("optimizer: a parameter pointer is null");
    if (std::find(params_.begin(), params_.end(), p) == params_.end()) params_.push_back(p);
  }
  if (params_.empty()) throw Error("optimizer: needs at least one parameter");
  for (size_t i = 0; i < params_.size(); i++)
    if (!params_[i]->dtype().is_float())
      throw Error(loupe::cat("optimizer: parameter ", i, " has dtype ", params_[i]->dtype().short_name(),
                             "; only floating-point tensors can be optimized"));
}

void Optimizer::zero_grad() {
  for (Tensor* p : params_) p->set_grad(std::nullopt);
}

void Optimizer::set_lr(double lr) {
  if (lr < 0) throw Error(loupe::cat("optimizer: invalid learning rate ", lr));
  // written into the realized buffer in place: a TinyJit step captured with the old rate reads the new one
  if (UOpPtr buf = realized_buffer(lr_.uop())) {
    float v = static_cast<float>(lr);
    buffer_storage(buf)->copyin(&v, sizeof v);
    return;
  }
  lr_.assign(scalar_buffer(lr));
}

double Optimizer::get_lr() { return lr_.to_vector().at(0); }

std::vector<Tensor> Optimizer::new_state_like_params() const {
  std::vector<Tensor> out;
  for (Tensor* p : params_) out.push_back(Tensor::zeros(p->shape(), dtypes::float32).to(p->device()).contiguous());
  return out;
}

void Optimizer::step() {
  std::vector<Tensor> due = schedule_step();
  std::vector<Tensor*> all;
  for (Tensor& t : due) all.push_back(&t);
  Tensor::realize_all(all);
}

std::vector<Tensor> Optimizer::schedule_step() {
  std::vector<Tensor> params, grads;
  for (size_t i = 0; i < params_.size(); i++) {
    std::optional<Tensor> g = params_[i]->grad();
    if (!g)
      throw Error(loupe::cat("optimizer.step: parameter ", i, " of shape ", shape_str(params_[i]->shape()),
                             " has no gradient (call backward() on a loss that depends on it first)"));
    params.push_back(*params_[i]);
    grads.push_back(*g);
  }
  std::vector<Tensor> ups = updates(params, grads);
  // each parameter takes its new value in place (tinygrad's assign): every reference to it sees the
  // step, and it keeps its gradient, so without zero_grad() the next backward() adds to it
  std::vector<Tensor> due;
  for (size_t i = 0; i < params_.size(); i++) {
    params_[i]->assign(params[i].detach() - ups[i]);
    due.push_back(*params_[i]);
  }
  for (Tensor* s : state()) due.push_back(*s);
  for (Tensor* b : buffers_) due.push_back(*b);
  return due;
}

// ---- LARS / SGD ----

LARS::LARS(std::vector<Tensor*> params, double lr, double momentum, double weight_decay, bool nesterov, bool classic,
           double tcoef)
    : Optimizer(std::move(params), lr), momentum_(momentum), wd_(weight_decay), tcoef_(tcoef), nesterov_(nesterov),
      classic_(classic) {
  if (momentum < 0) throw Error(loupe::cat("optimizer: invalid momentum ", momentum));
  if (weight_decay < 0) throw Error(loupe::cat("optimizer: invalid weight_decay ", weight_decay));
  if (momentum_ != 0) b_ = new_state_like_params();
}

std::vector<Tensor> LARS::updates(const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < params.size(); i++) {
    Tensor t = params[i], g = grads[i];
    std::optional<Tensor> r;  // the trust ratio (1 when tcoef is 0)
    if (tcoef_ != 0) {
      Tensor r1 = t.detach().square().sum().sqrt(), r2 = g.square().sum().sqrt();
      Tensor ratio = Tensor(tcoef_) * r1 / (r2 + Tensor(wd_) * r1);
      r = one_if_not(r1.gt(Tensor(0.0)), one_if_not(r2.gt(Tensor(0.0)), ratio));
    }
    if (wd_ > 0) g = g + Tensor(wd_) * t.detach();
    if (classic_) g = (r ? g * *r : g) * scalar(lr_, t);
    if (momentum_ != 0) {
      b_[i].assign((Tensor(momentum_) * b_[i] + g).cast(b_[i].dtype()));  // zero on the first step: no special case
      g = nesterov_ ? g + Tensor(momentum_) * b_[i] : b_[i];
    }
    if (!classic_) g = (r ? g * *r : g) * scalar(lr_, t);
    out.push_back(g.cast(t.dtype()));
  }
  return out;
}

std::vector<Tensor*> LARS::state() {
  std::vector<Tensor*> out;
  for (Tensor& b : b_) out.push_back(&b);
  return out;
}

std::vector<std::pair<std::string, std::vector<Tensor>>> LARS::named_state() {
  if (b_.empty()) return {};
  return {{"b", b_}};
}

LARS SGD(std::vector<Tensor*> params, double lr, double momentum, double weight_decay, bool nesterov, bool classic) {
  return LARS(std::move(params), lr, momentum, weight_decay, nesterov, classic, 0.0);
}

// ---- LAMB / Adam / AdamW ----

LAMB::LAMB(std::vector<Tensor*> params, double lr, double b1, double b2, double eps, double weight_decay, bool adam)
    : Optimizer(std::move(params), lr), b1_(b1), b2_(b2), eps_(eps), wd_(weight_decay), adam_(adam),
      b1_t_(scalar_buffer(1.0)), b2_t_(scalar_buffer(1.0)) {
  if (weight_decay < 0) throw Error(loupe::cat("optimizer: invalid weight_decay ", weight_decay));
  m_ = new_state_like_params();
  v_ = new_state_like_params();
}

std::vector<Tensor> LAMB::updates(const std::vector<Tensor>& params, const std::vector<Tensor>& grads) {
  b1_t_.assign(b1_t_ * Tensor(b1_));
  b2_t_.assign(b2_t_ * Tensor(b2_));
  std::vector<Tensor> out;
  for (size_t i = 0; i < params.size(); i++) {
    const Tensor& t = params[i];
    const Tensor& g = grads[i];
    m_[i].assign((Tensor(b1_) * m_[i] + Tensor(1.0 - b1_) * g).cast(dtypes::float32));
    v_[i].assign((Tensor(b2_) * v_[i] + Tensor(1.0 - b2_) * (g * g)).cast(dtypes::float32));
    Tensor m_hat = m_[i] / (Tensor(1.0) - scalar(b1_t_, t));
    Tensor v_hat = v_[i] / (Tensor(1.0) - scalar(b2_t_, t));
    Tensor up = m_hat / (v_hat.sqrt() + Tensor(eps_)) + Tensor(wd_) * t.detach();
    if (adam_) {
      out.push_back((scalar(lr_, t) * up).cast(t.dtype()));
    } else {
      Tensor r1 = t.detach().square().sum().sqrt(), r2 = up.square().sum().sqrt();
      Tensor r = one_if_not(r1.gt(Tensor(0.0)), one_if_not(r2.gt(Tensor(0.0)), r1 / r2));
      out.push_back((scalar(lr_, t) * r * up).cast(t.dtype()));
    }
  }
  return out;
}

std::vector<Tensor*> LAMB::state() {
  std::vector<Tensor*> out{&b1_t_, &b2_t_};
  for (Tensor& m : m_) out.push_back(&m);
  for (Tensor& v : v_) out.push_back(&v);
  return out;
}

std::vector<std::pair<std::string, std::vector<Tensor>>> LAMB::named_state() {
  return {{"m", m_}, {"v", v_}, {"b1_t", {b1_t_}}, {"b2_t", {b2_t_}}};
}

LAMB Adam(std::vector<Tensor*> params, double lr, double b1, double b2, double eps) {
  return LAMB(std::move(params), lr, b1, b2, eps, 0.0, true);
}

LAMB AdamW(std::vector<Tensor*> params, double lr, double b1, double b2, double eps, double weight_decay) {
  return LAMB(std::move(params), lr, b1, b2, eps, weight_decay, true);
}

} // namespace loupe::nn
