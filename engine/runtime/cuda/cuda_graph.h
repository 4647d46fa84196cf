// A TinyJit step's kernels as one CUDA graph (tinygrad's CUDAGraph): built once, each kernel a node that
// depends on the one before (the captured order; buffers the memory planner shares are then never
// read and written at once), launched with cuGraphLaunch and timed with one pair of events. A replay's
// new buffers patch the nodes' parameters in the instantiated graph (cuGraphExecKernelNodeSetParams).
#pragma once
#include <memory>
#include <vector>

#include "runtime/cuda/cuda_api.h"
#include "runtime/launch_graph.h"

namespace loupe {

class CUDAGraph : public LaunchGraph {
public:
  // Every launch's program must be a CUDAProgram of `ctx`. Throws loupe::Error naming the failing call.
  CUDAGraph(const cuda::Driver& drv, const cuda::GraphApi& api, cuda::CUcontext ctx, const std::vector<GraphLaunch>& launches);
  ~CUDAGraph() override;
  CUDAGraph(const CUDAGraph&) = delete;
  CUDAGraph& operator=(const CUDAGraph&) = delete;

  size_t size() const override { return nodes_.size(); }
  void set_buffers(size_t i, const std::vector<void*>& bufs) override;
  double run() override;

private:
  struct Node {
    std::shared_ptr<Program> program;  // keeps the module loaded
    cuda::CUgraphNode node = nullptr;
    cuda::KernelNodeParams params{};
    std::vector<cuda::CUdeviceptr> ptrs;  // the parameter values; params.kernelParams points at each
    std::vector<void*> args;
    bool changed = false;  // patched into the instantiated graph at the next run
  };
  const cuda::Driver& drv_;
  const cuda::GraphApi& api_;
  cuda::CUcontext ctx_;
  std::vector<std::unique_ptr<Node>> nodes_;
  cuda::CUgraph graph_ = nullptr;
  cuda::CUgraphExec exec_ = nullptr;
  cuda::CUevent start_ = nullptr, end_ = nullptr;
};

} // namespace loupe
