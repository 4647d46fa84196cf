// Optimizers with tinygrad's update formulas (nn/optim.py): SGD is LARS without the trust ratio, Adam and
// AdamW are LAMB without it. Optimizer state (momentum, moments) is kept in float32 as tinygrad does.
//
//   nn::Linear l(4, 2);
//   auto opt = nn::Adam({&l.weight, &*l.bias}, 0.01);
//   loss.backward(); opt.step(); opt.zero_grad();
//
// step() realizes the new parameters and state in one schedule and assigns them to the parameter
// tensors (through the pointers given; every reference to a parameter sees the new value), which keep
// their .grad until zero_grad().
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace loupe::nn {

class Optimizer {
public:
  Optimizer(std::vector<Tensor*> params, double lr);
  virtual ~Optimizer() = default;
  void zero_grad();  // drops every parameter's .grad
  void step();       // needs a .grad on every parameter
  // tinygrad's schedule_step: every parameter is assigned its new value lazily and the tensors a step
  // realizes are returned (the parameters, the optimizer's state, the buffers); step() realizes them.
  std::vector<Tensor> schedule_step();
  // Tensors that are not optimized but realized with each step (tinygrad's buffers: running statistics).
  void set_buffers(std::vector<Tensor*> buffers) { buffers_ = std::move(buffers); }
  void set_lr(double lr);
  double get_lr();
  const Tensor& lr() const { return lr_; }  // the learning rate as the step reads it (float32, shape (1,))
  // The state a checkpoint holds, by tinygrad's attribute names ("b"; "m", "v", "b1_t", "b2_t"), lists one
  // tensor per parameter. They are the optimizer's own tensors: assigning one sets its state.
  virtual std::vector<std::pair<std::string, std::vector<Tensor>>> named_state() = 0;
  const std::vector<Tensor*>& params() const { return params_; }

protected:
  // The update to subtract from each parameter; also moves the optimizer's state tensors (lazily).
  virtual std::vector<Tensor> updates(const std::vector<Tensor>& params, const std::vector<Tensor>& grads) = 0;
  // The state tensors to realize with the step.
  virtual std::vector<Tensor*> state() = 0;
  std::vector<Tensor> new_state_like_params() const;  // float32 zeros, one per parameter

  std::vector<Tensor*> params_, buffers_;
  Tensor lr_;  // a float32 buffer of shape (1,) as tinygrad's, so changing it does not recompile the step
};

// LARS (and SGD): trust ratio tcoef*|w|/(|g| + wd*|w|), weight decay added to the gradient before the
// momentum, learning rate applied before the momentum (classic) or after it. (tinygrad's Muon variant,
// with post-momentum decay and Newton-Schulz, is not included.)
class LARS : public Optimizer {
public:
  LARS(std::vector<Tensor*> params, double lr = 0.001, double momentum = 0.9, double weight_decay = 1e-4,
       bool nesterov = false, bool classic = true, double tcoef = 0.001);

protected:
  std::vector<Tensor> updates(const std::vector<Tensor>& params, const std::vector<Tensor>& grads) override;
  std::vector<Tensor*> state() override;
  std::vector<std::pair<std::string, std::vector<Tensor>>> named_state() override;

private:
  double momentum_, wd_, tcoef_;
  bool nesterov_, classic_;
  std::vector<Tensor> b_;  // momentum buffers
};

// LAMB (and Adam/AdamW with adam=true: trust ratio 1).
class LAMB : public Optimizer {
public:
  LAMB(std::vector<Tensor*> params, double lr = 0.001, double b1 = 0.9, double b2 = 0.999, double eps = 1e-6,
       double weight_decay = 0.0, bool adam = false);

protected:
  std::vector<Tensor> updates(const std::vector<Tensor>& params, const std::vector<Tensor>& grads) override;
  std::vector<Tensor*> state() override;
  std::vector<std::pair<std::string, std::vector<Tensor>>> named_state() override;

private:
  double b1_, b2_, eps_, wd_;
  bool adam_;
  Tensor b1_t_, b2_t_;  // b1^t and b2^t, float32 of shape (1,)
  std::vector<Tensor> m_, v_;
};

LARS SGD(std::vector<Tensor*> params, double lr = 0.001, double momentum = 0.0, double weight_decay = 0.0,
         bool nesterov = false, bool classic = false);
LAMB Adam(std::vector<Tensor*> params, double lr = 0.001, double b1 = 0.9, double b2 = 0.999, double eps = 1e-8);
LAMB AdamW(std::vector<Tensor*> params, double lr = 0.001, double b1 = 0.9, double b2 = 0.999, double eps = 1e-8,
           double weight_decay = 0.01);

} // namespace loupe::nn
