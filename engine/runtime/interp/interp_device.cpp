#include "runtime/interp/interp_device.h"

#include <chrono>
#include <cstdlib>
#include <unordered_map>

#include "ir/print.h"
#include "render/amd_renderer.h"
#include "render/c_renderer.h"
#include "render/cuda_renderer.h"
#include "render/llvm_renderer.h"
#include "render/opencl_renderer.h"
#include "support/error.h"

namespace loupe {

namespace {

RendererCaps caps_of_target(const std::string& target) { return renderer_of_target(target)->caps(); }

class InterpProgram : public Program {
public:
  InterpProgram(RenderedKernel k, const RendererCaps& spelled_as)
      : Program(k), linear_(k.name, *k.program, spelled_as) {}

  double run(const std::vector<void*>& bufs, const std::vector<int64_t>& vars, const LaunchDims& global, const LaunchDims& local,
             bool /*wait*/) override {
    check_args(bufs.size(), vars);
    auto t0 = std::chrono::steady_clock::now();
    linear_.run(bufs, vars, global, local);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

private:
  interp::LinearProgram linear_;
};

std::string source_text(const UOp* s, const std::unordered_map<const UOp*, int>& pos) {
  if (auto it = pos.find(s); it != pos.end()) return std::to_string(it->second);
  return uop_label(*s, 24);  // a constant spelled where it is used
}

} // namespace

std::unique_ptr<Renderer> renderer_of_target(const std::string& target) {
  if (target == "CPU") return std::make_unique<CRenderer>();
  if (target == "LLVM") return std::make_unique<LlvmRenderer>();
  if (target == "CUDA") {
    auto r = std::make_unique<CUDARenderer>();
    r->set_compute_capability(8, 0);  // tensor cores: the WMMA kernels the interpreter emulates
    return r;
  }
  if (target == "OPENCL") return std::make_unique<OpenCLRenderer>();
  if (std::optional<AmdArch> amd = amd_arch_of_target(target)) return std::make_unique<AMDRenderer>(*amd);
  throw Error(cat("INTERP_TARGET must be CPU, LLVM, CUDA, OPENCL, AMD (= AMD:gfx1100) or AMD:gfx942, not '", target, "'"));
}

InterpRenderer::InterpRenderer(const std::string& target) : target_(target), target_caps_(caps_of_target(target)) {
  caps_ = target_caps_;
  caps_.device = "INTERP";
  caps_.splits_outer_loop = false;  // one call runs the whole kernel
}

RenderedKernel InterpRenderer::render(const std::string& name, const UOpList& uops) const {
  if (!is_c_identifier(name)) throw InternalError(cat("kernel name '", name, "' is not an identifier"));
  interp::LinearProgram decoded(name, uops, target_caps_);  // checks the list, finds the parameters
  RenderedKernel k;
  k.name = name;
  k.device = "INTERP";
  k.source = cat("// ", name, ": linearized UOps run by the interpreter (", target_, " target)\n", program_listing(uops));
  k.buffers = decoded.buffers();
  k.vars = decoded.vars();
  k.global = decoded.global();
  k.global_sym = decoded.global_sym();
  k.local = decoded.local();
  k.program = std::make_shared<const UOpList>(uops);
  k.uop_lines.resize(uops.size());
  for (size_t i = 0; i < uops.size(); i++) k.uop_lines[i] = static_cast<int>(i) + 2;  // under the title line
  return k;
}

InterpDevice::InterpDevice(const std::string& target) : Device("INTERP"), renderer_(target) {}

std::shared_ptr<Program> InterpDevice::compile(const RenderedKernel& kernel) {
  if (!kernel.program) throw Error(cat("INTERP runs kernels rendered by its own renderer; ", kernel.name, " (", kernel.device, ") has no program"));
  return std::make_shared<InterpProgram>(kernel, renderer_.spelled_as());
}

std::string program_listing(const UOpList& uops) {
  std::unordered_map<const UOp*, int> pos;
  for (size_t i = 0; i < uops.size(); i++) pos.emplace(uops[i].get(), static_cast<int>(i));
  std::string out;
  for (size_t i = 0; i < uops.size(); i++) {
    const UOp* u = uops[i].get();
    std::string srcs;
    for (const UOpPtr& s : u->src) srcs += (srcs.empty() ? "" : ", ") + source_text(s.get(), pos);
    std::string line = cat(i < 10 ? "   " : i < 100 ? "  " : i < 1000 ? " " : "", i, " ", uop_label(*u, 48));
    if (!srcs.empty()) line += "  (" + srcs + ")";
    out += line + "\n";
  }
  return out;
}

std::string interp_target_from_env() {
  const char* t = std::getenv("INTERP_TARGET");
  return t && *t ? std::string(t) : "CPU";
}

std::unique_ptr<Device> make_interp_device(const std::string& canonical) {
  (void)canonical;
  return std::make_unique<InterpDevice>(interp_target_from_env());
}

} // namespace loupe
