// The LLVM IR renderer of the LLVM device: a linearized kernel (render/README.md) becomes one textual
// LLVM 15 function (opaque pointers). Loops are basic blocks with a phi for the counter, accumulators
// are entry-block allocas (mem2reg turns them into phis at O2), integer division and the floor ops go
// through small internal helper functions with the exact semantics of the C renderer, and half/bfloat16
// arithmetic happens in float with every result rounded back. Like the C renderer it has no
// exp2/log2/sin (they arrive as polynomials) and takes [start, end) of its outermost parallel loop.
// This is text only: no LLVM headers are needed to render.
#pragma once
#include "render/renderer.h"

namespace loupe {

class LlvmRenderer : public Renderer {
public:
  LlvmRenderer();
  const RendererCaps& caps() const override { return caps_; }
  RenderedKernel render(const std::string& name, const UOpList& uops) const override;

private:
  RendererCaps caps_;
};

// The LLVM type of a value of dtype `dt` in registers ("float", "<4 x float>", "i1", "ptr"); weakint is
// i64 and weakfloat float. Bool is i1 in registers and i8 in memory; bfloat16 is its i16 bits.
std::string llvm_type(DType dt);

// The entry point the LLVM device calls, `void @<entry>(ptr bufs, ptr vars, i64 start, i64 end)`, which
// loads each buffer pointer and variable (int64 slots) and calls the kernel (same convention as the CPU
// device's C shim).
std::string llvm_entry_shim(const RenderedKernel& kernel, const std::string& entry_name);

} // namespace loupe
