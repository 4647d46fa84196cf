// The C-style renderer: one walk over the linearized kernel that names values, inlines single-use
// expressions and emits C-like statements. Each dialect (C, OpenCL, CUDA, Metal) subclasses it and
// fills in a CLanguage plus a few hooks.
#pragma once
#include <string>
#include <vector>

#include "render/cstyle_text.h"
#include "render/linear_analysis.h"
#include "render/renderer.h"

namespace loupe {

// The spelling choices of one C dialect.
struct CLanguage {
  std::string kernel_prefix;          // before "void": "__kernel ", "extern \"C\" __global__ "
  std::string buffer_prefix;          // before the element type of a buffer parameter: "__global "
  std::string buffer_suffix;          // after the '*': " restrict"
  bool const_buffers = true;          // read-only buffers are `const T*`
  std::string arg_int_prefix = "const int";
  std::string arg_long_prefix = "const long long";
  std::string smem_prefix;            // before a DEFINE_LOCAL declaration: "__shared__ "
  // Over this many bytes of DEFINE_LOCALs a work-group's shared memory is one array the launch sizes,
  // declared `dynamic_smem loupe_smem[]`, each DEFINE_LOCAL a pointer into it (CUDA: a block's static
  // __shared__ stops at 48 KB); 0: every DEFINE_LOCAL is an array of its own.
  int64_t static_shared_max = 0;
  std::string dynamic_smem;           // "extern __shared__ __align__(16) unsigned char"
  std::string barrier;                // BARRIER statement; empty = nothing to emit
  std::string helper_prefix = "static inline";  // before helper functions
  // How a vector literal is spelled: "(float4){a,b}" (C, Metal), "(float4)(a,b)" (OpenCL) or
  // "make_float4(a,b)" (CUDA, whose vector types are structs with constructor functions).
  enum class VectorLiteral { Braces, Parens, MakeFunction };
  VectorLiteral vector_literal = VectorLiteral::Braces;
  bool gep_brackets = true;           // x[1] (true) or x.y (false)
  // Spell clang's -ffp-contract=on explicitly: a float ADD/SUB with an inlined MUL operand becomes
  // fma(). For compilers that would otherwise contract across statements (NVRTC, run with
  // --fmad=false), so every backend rounds like the CPU's C code.
  bool explicit_fma = false;
};

// How a C dialect with these caps spells vector values: which vector ops are C operators on whole
// vectors and which go lane by lane. The writer and the interpreter (runtime/interp) share it: the
// interpreter must know which products the C text writes inside a sum, where the compiler contracts.
struct CVectorSpelling {
  const RendererCaps& caps;
  bool vector_operator(const UOp* u) const;
  bool vector_conversion(const UOp* u) const;
  bool is_mask(const UOp* u) const;
  bool read_lane_by_lane(const UOp* u) const;
  static DType compared(const UOp* cmp);
  static DType mask_type(const UOp* u);
};

// The values a C-style renderer with these caps writes inline into their consumer.
FlatPtrSet<const UOp*> c_inlined_values(const UOpList& uops, const RendererCaps& caps);

class CStyleRenderer : public Renderer {
public:
  CStyleRenderer(RendererCaps caps, CLanguage lang) : caps_(std::move(caps)), lang_(std::move(lang)) {}
  const RendererCaps& caps() const override { return caps_; }
  RenderedKernel render(const std::string& name, const UOpList& uops) const override;
  const CLanguage& lang() const { return lang_; }

  // The C name of a concrete scalar dtype (weak dtypes are resolved before this is asked).
  virtual std::string scalar_name(DType scalar) const;
  // Vector and pointer names built on scalar_name: float4, float*, const float*.
  std::string type_name(DType dt) const;
  // A vector's name (dt.count > 1): the scalar's with spaces as underscores and the count (unsigned_int4).
  virtual std::string vector_name(DType dt) const;
  // Launch-id expression of a SPECIAL ("gidx0", "lidx1", "idx0"); CPU kernels have none.
  virtual std::string special_expr(const std::string& name) const;
  // A math builtin on float/double operands: fn = "sqrt", "floor", "trunc", "fmod", "exp2" ...
  virtual std::string math_call(const std::string& fn, DType scalar, const std::string& x) const;
  // Infinity and NaN of float (32) or double (64).
  virtual std::string infinity(DType scalar) const;
  virtual std::string nan(DType scalar) const;
  // Source lines that must precede the kernel when `types` are used (typedefs for half, vectors).
  virtual std::vector<std::string> type_preamble(const std::vector<DType>& used_types) const;
  // A bit cast spelled inline instead of through a helper function, or "" to use the helper. The C
  // default does this for half, which clang's __fp16 forbids as a parameter or return type.
  virtual std::string inline_bitcast(DType from, DType to, const std::string& x) const;
  // A helper function (see c_helper); dialects without __builtin_memcpy and friends override this.
  virtual CHelper helper(const std::string& kind, DType t, DType to = {}) const { return c_helper(*this, kind, t, to); }
  // ASYNC_COPY of `bytes` from global `src` to shared `dst` (pointer expressions; a `gate`, when not
  // empty, skips the copy but still counts it for the waits), and what a barrier over such copies waits
  // with first: every copy this thread issued but the last `pending` ones; "" where the dialect has no
  // asynchronous copies.
  virtual std::string async_copy(const std::string& /*dst*/, const std::string& /*src*/, int64_t /*bytes*/,
                                 const std::string& /*gate*/) const {
    return "";
  }
  virtual std::string async_copy_wait(int64_t /*pending*/) const { return ""; }
  // LOAD_MATRIX: declares array `name` of `count` * 2 values of type `type`, this lane's share of
  // `count` 8x8 matrices whose rows the warp's lanes address (this lane: `row`); "" where unsupported.
  virtual std::string load_matrix(const std::string& /*name*/, const std::string& /*type*/, const std::string& /*row*/, int64_t /*count*/,
                                  bool /*transposed*/) const {
    return "";
  }
  // SHUFFLE_XOR: `value` as the lane whose id differs by `lane_xor` holds it, the first `lanes` lanes of
  // the warp taking part; "" where unsupported.
  virtual std::string warp_shuffle_xor(const std::string& /*value*/, int64_t /*lane_xor*/, int64_t /*lanes*/) const { return ""; }

protected:
  RendererCaps caps_;
  CLanguage lang_;
};

} // namespace loupe
