// nn modules (tinygrad's nn names and default initializations) and the state-dict helpers.
//
// A module owns its tensors as members; `collect` lists them with their state-dict names, so
// optimizers and load_state_dict can update a member in place (Tensor::assign). A composite model lists
// its children:
//
//   struct Net : nn::Module {
//     nn::Linear l1{4, 8}, l2{8, 2};
//     void collect(const std::string& p, std::vector<nn::NamedTensor>& out) override {
//       l1.collect(p + "l1.", out);
//       l2.collect(p + "l2.", out);
//     }
//   };
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace loupe::nn {

struct NamedTensor {
  std::string name;
  Tensor* tensor;  // points into the module; valid while the module lives and is not moved
  bool trainable;  // false for buffers such as BatchNorm's running statistics
};

class Module {
public:
  virtual ~Module() = default;
  // Appends this module's tensors, named prefix + attribute name, in tinygrad's state-dict order.
  virtual void collect(const std::string& prefix, std::vector<NamedTensor>& out) = 0;
  std::vector<NamedTensor> named_tensors(const std::string& prefix = "");
};

// Training mode (tinygrad's TRAINING, Options::training; TRAINING=1 in the environment): BatchNorm uses
// batch statistics and updates its running statistics, and dropout applies, only while it is on.
// Off by default, as in tinygrad.
bool training();
class TrainingScope {
public:
  explicit TrainingScope(bool on = true);
  ~TrainingScope();
  TrainingScope(const TrainingScope&) = delete;
  TrainingScope& operator=(const TrainingScope&) = delete;

private:
  bool previous_;
};

// Ordered like tinygrad's dict: the order tensors were collected in.
using StateDict = std::vector<std::pair<std::string, Tensor>>;

StateDict get_state_dict(Module& m, const std::string& prefix = "");
std::vector<Tensor*> get_parameters(Module& m);  // the trainable tensors
std::vector<Tensor*> get_buffers(Module& m);     // the others (running statistics)
// Sets every tensor of the model from the dict (realized). Shapes and dtypes must match; with strict, a
// model tensor missing from the dict is an error, otherwise it keeps its value. Returns the names loaded.
std::vector<std::string> load_state_dict(Module& m, const StateDict& state, bool strict = true);
// The tensor named `name` in a dict, or an Error listing what is there.
const Tensor& state_dict_at(const StateDict& state, const std::string& name);

} // namespace loupe::nn
