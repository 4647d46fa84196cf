// The benchmark workloads of DESIGN.md §9, by their fixed names. Preparing a workload realizes its
// inputs (deterministic data computed on the device) and returns a builder of its lazy outputs; every
// timed run builds, schedules and runs them afresh, so only the workload's own kernels are timed.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace loupe::bench {

using OutputBuilder = std::function<std::vector<Tensor>()>;

struct Workload {
  std::string name;
  std::string description;
  std::function<OutputBuilder()> prepare;  // realizes the inputs (on Options::device)
  bool gpu_sized = false;  // too big for a CPU run by default (seconds per NOOPT call): GPUs, or --only
};

// Every workload, in the order of DESIGN.md §9, then the GPU-sized ones.
const std::vector<Workload>& workloads();
const Workload* find_workload(const std::string& name);

// Deterministic float32 data of a shape, realized on the default device: values in [-scale, scale),
// varied by `salt` (a cheap integer hash of the element index: no host copy of big arrays).
Tensor bench_data(const Shape& shape, int64_t salt, double scale = 1.0);

} // namespace loupe::bench
