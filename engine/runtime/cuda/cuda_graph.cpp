#include "runtime/cuda/cuda_graph.h"

#include "runtime/cuda/cuda_device.h"
#include "support/error.h"

namespace loupe {

using namespace cuda;

namespace {
CUdeviceptr device_ptr(void* handle) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(handle)); }
} // namespace

CUDAGraph::CUDAGraph(const Driver& drv, const GraphApi& api, CUcontext ctx, const std::vector<GraphLaunch>& launches)
    : drv_(drv), api_(api), ctx_(ctx) {
  check(drv_.CtxSetCurrent(ctx_), "cuCtxSetCurrent");
  check(api_.GraphCreate(&graph_, 0), "cuGraphCreate");
  try {
    CUgraphNode previous = nullptr;
    for (const GraphLaunch& l : launches) {
      auto* prg = dynamic_cast<CUDAProgram*>(l.program.get());
      if (!prg) throw Error(cat("CUDA graph: kernel ", l.program ? l.program->kernel().name : std::string("(none)"), " is not a CUDA program"));
      if (!prg->kernel().vars.empty()) throw Error(cat("CUDA graph: kernel ", prg->kernel().name, " takes variables"));
      if (l.bufs.size() != prg->kernel().buffers.size())
        throw Error(cat("CUDA graph: kernel ", prg->kernel().name, " takes ", prg->kernel().buffers.size(), " buffers, got ", l.bufs.size()));
      for (int d = 0; d < 3; d++)
        if (l.global[d] <= 0 || l.local[d] <= 0) throw Error(cat("CUDA graph: kernel ", prg->kernel().name, " has an empty launch"));
      auto n = std::make_unique<Node>();
      n->program = l.program;
      for (void* b : l.bufs) n->ptrs.push_back(device_ptr(b));
      for (CUdeviceptr& p : n->ptrs) n->args.push_back(&p);
      n->params = {prg->function(),
                   unsigned(l.global[0]), unsigned(l.global[1]), unsigned(l.global[2]),
                   unsigned(l.local[0]), unsigned(l.local[1]), unsigned(l.local[2]),
                   unsigned(prg->kernel().dynamic_shared_bytes), n->args.data(), nullptr};
      check(api_.GraphAddKernelNode(&n->node, graph_, previous ? &previous : nullptr, previous ? 1 : 0, &n->params),
            cat("cuGraphAddKernelNode (", prg->kernel().name, ")"));
      previous = n->node;
      nodes_.push_back(std::move(n));
    }
    check(api_.GraphInstantiateWithFlags(&exec_, graph_, 0), "cuGraphInstantiateWithFlags");
    check(drv_.EventCreate(&start_, 0), "cuEventCreate");
    check(drv_.EventCreate(&end_, 0), "cuEventCreate");
  } catch (...) {
    if (start_) drv_.EventDestroy(start_);
    if (exec_) api_.GraphExecDestroy(exec_);
    api_.GraphDestroy(graph_);
    throw;
  }
}

CUDAGraph::~CUDAGraph() {
  drv_.CtxSetCurrent(ctx_);
  drv_.EventDestroy(start_);
  drv_.EventDestroy(end_);
  api_.GraphExecDestroy(exec_);
  api_.GraphDestroy(graph_);
}

void CUDAGraph::set_buffers(size_t i, const std::vector<void*>& bufs) {
  Node& n = *nodes_.at(i);
  if (bufs.size() != n.ptrs.size())
    throw Error(cat("CUDA graph: kernel ", n.program->kernel().name, " takes ", n.ptrs.size(), " buffers, got ", bufs.size()));
  for (size_t k = 0; k < bufs.size(); k++) {
    CUdeviceptr p = device_ptr(bufs[k]);
    if (n.ptrs[k] != p) {
      n.ptrs[k] = p;
      n.changed = true;
    }
  }
}

double CUDAGraph::run() {
  check(drv_.CtxSetCurrent(ctx_), "cuCtxSetCurrent");
  for (const std::unique_ptr<Node>& n : nodes_) {
    if (!n->changed) continue;
    check(api_.GraphExecKernelNodeSetParams(exec_, n->node, &n->params),
          cat("cuGraphExecKernelNodeSetParams (", n->program->kernel().name, ")"));
    n->changed = false;
  }
  check(drv_.EventRecord(start_, nullptr), "cuEventRecord");
  check(api_.GraphLaunch(exec_, nullptr), cat("cuGraphLaunch (", nodes_.size(), " kernels)"));
  check(drv_.EventRecord(end_, nullptr), "cuEventRecord");
  check(drv_.EventSynchronize(end_), cat("running a CUDA graph of ", nodes_.size(), " kernels"));
  float ms = 0;
  check(drv_.EventElapsedTime(&ms, start_, end_), "cuEventElapsedTime");
  return ms * 1e-3;
}

} // namespace loupe
