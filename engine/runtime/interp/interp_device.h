// The INTERP device: kernels run by the interpreter (linear_program.h) with no compiler at all. Its
// "source" is the numbered listing of the linearized UOps. It plans kernels for a target whose caps
// it borrows (INTERP_TARGET: CPU, the default, so its kernels are the CPU's and must give the same
// bits; LLVM, the LLVM backend's (no vectors); CUDA, with sm_80 tensor cores, so GPU-style kernels with local memory, barriers and WMMA
// run here too; OPENCL). Slow by design: the reference the compiled backends are checked against.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "runtime/device.h"
#include "runtime/interp/linear_program.h"

namespace loupe {

// Renders nothing to compile: the listing for people, the program kept in RenderedKernel::program.
class InterpRenderer : public Renderer {
public:
  // target: as renderer_of_target takes it.
  explicit InterpRenderer(const std::string& target = "CPU");
  const RendererCaps& caps() const override { return caps_; }
  RenderedKernel render(const std::string& name, const UOpList& uops) const override;
  const std::string& target() const { return target_; }
  // The caps of the target's own renderer: whose C text the interpreter's rounding reproduces.
  const RendererCaps& spelled_as() const { return target_caps_; }

private:
  std::string target_;
  RendererCaps caps_, target_caps_;
};

class InterpDevice : public Device {
public:
  explicit InterpDevice(const std::string& target = "CPU");
  const Renderer& renderer() const override { return renderer_; }
  Allocator& allocator() override { return allocator_; }
  // Decodes the kernel's program (linear in its length: no cache needed).
  std::shared_ptr<Program> compile(const RenderedKernel& kernel) override;

private:
  InterpRenderer renderer_;
  HostAllocator allocator_;
};

// The renderer whose kernels the interpreter plans and rounds like: "CPU" (C), "LLVM" (LLVM IR), "CUDA"
// (sm_80), "OPENCL", "AMD" / "AMD:gfx1100" (RDNA3) or "AMD:gfx942" (CDNA3); loupe::Error for anything else.
std::unique_ptr<Renderer> renderer_of_target(const std::string& target);

// INTERP_TARGET, else "CPU": the target the INTERP device plans for.
std::string interp_target_from_env();

// One line per listed UOp, numbered from 0 as ExecutedStep::uop counts: "  12 LOAD float  (11)".
std::string program_listing(const UOpList& uops);

std::unique_ptr<Device> make_interp_device(const std::string& canonical);

} // namespace loupe
