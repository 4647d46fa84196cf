// Modules and state dicts: listing a module's tensors by name, loading them back, and the training flag.
#include <set>
#include <utility>

#include "nn/module.h"
#include "support/error.h"
#include "support/options.h"

namespace loupe::nn {

// The flag lives in the options, so that Tensor::dropout (below nn) sees it too.
bool training() { return options().training; }
TrainingScope::TrainingScope(bool on) : previous_(std::exchange(options().training, on)) {}
TrainingScope::~TrainingScope() { options().training = previous_; }

std::vector<NamedTensor> Module::named_tensors(const std::string& prefix) {
  std::vector<NamedTensor> out;
  collect(prefix, out);
  std::set<std::string> seen;
  for (const NamedTensor& t : out)
    if (!seen.insert(t.name).second) throw Error(loupe::cat("module lists the tensor name '", t.name, "' twice"));
  return out;
}

StateDict get_state_dict(Module& m, const std::string& prefix) {
  StateDict out;
  for (const NamedTensor& t : m.named_tensors(prefix)) out.emplace_back(t.name, *t.tensor);
  return out;
}

std::vector<Tensor*> get_parameters(Module& m) {
  std::vector<Tensor*> out;
  for (const NamedTensor& t : m.named_tensors())
    if (t.trainable) out.push_back(t.tensor);
  return out;
}

std::vector<Tensor*> get_buffers(Module& m) {
  std::vector<Tensor*> out;
  for (const NamedTensor& t : m.named_tensors())
    if (!t.trainable) out.push_back(t.tensor);
  return out;
}

const Tensor& state_dict_at(const StateDict& state, const std::string& name) {
  for (const auto& [k, v] : state)
    if (k == name) return v;
  std::string keys;
  for (const auto& kv : state) keys += (keys.empty() ? "" : ", ") + kv.first;
  throw Error(loupe::cat("state dict has no tensor named '", name, "' (it has: ", keys.empty() ? "nothing" : keys, ")"));
}

std::vector<std::string> load_state_dict(Module& m, const StateDict& state, bool strict) {
  std::vector<NamedTensor> mine = m.named_tensors();
  std::vector<std::pair<Tensor*, Tensor>> plan;  // checked first, so a bad dict changes nothing
  std::vector<std::string> loaded;
  for (const NamedTensor& t : mine) {
    const Tensor* src = nullptr;
    for (const auto& [k, v] : state)
      if (k == t.name) src = &v;
    if (!src) {
      if (strict) (void)state_dict_at(state, t.name);  // throws, naming what the dict has
      continue;
    }
    if (src->shape() != t.tensor->shape())
      throw Error(loupe::cat("load_state_dict: '", t.name, "' has shape ", shape_str(src->shape()), " in the state dict but ",
                             shape_str(t.tensor->shape()), " in the model"));
    if (dtypes::strong(src->dtype()) != dtypes::strong(t.tensor->dtype()))
      throw Error(loupe::cat("load_state_dict: '", t.name, "' has dtype ", src->dtype().short_name(),
                             " in the state dict but ", t.tensor->dtype().short_name(), " in the model"));
    plan.emplace_back(t.tensor, src->cast(dtypes::strong(src->dtype())));
    loaded.push_back(t.name);
  }
  std::vector<Tensor*> to_realize;
  for (auto& [dst, value] : plan) to_realize.push_back(&value);
  if (!to_realize.empty()) Tensor::realize_all(to_realize);
  for (auto& [dst, value] : plan) dst->assign(value);
  return loaded;
}

} // namespace loupe::nn
