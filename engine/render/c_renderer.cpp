#include "render/c_renderer.h"

#include <algorithm>

#include "support/error.h"
#include "support/host_cpu.h"

namespace loupe {

OpSet c_native_ops() {
  OpSet ops = OpSet::group(kALU);
  OpSet out;
  ops.for_each([&](Ops op) {
    if (op != Ops::EXP2 && op != Ops::LOG2 && op != Ops::SIN && op != Ops::POW && op != Ops::THREEFRY) out.add(op);
  });
  return out;
}

namespace {
RendererCaps c_caps() {
  RendererCaps c;
  c.device = "CPU";
  c.has_local = false;
  c.has_shared = false;
  c.supports_float4 = true;
  c.code_for_op = c_native_ops();
  c.splits_outer_loop = true;
  c.vector_bytes = host_cpu().vector_bytes;
  // compares give masks, selects blend under them; casts and bitcasts between element types of one width
  c.vector_ops = {Ops::ADD, Ops::SUB, Ops::MUL, Ops::FDIV, Ops::NEG, Ops::MULACC, Ops::RECIP, Ops::CMPLT, Ops::CMPNE,
                  Ops::WHERE, Ops::CAST, Ops::BITCAST, Ops::SHL, Ops::SHR, Ops::AND, Ops::OR, Ops::XOR};
  // the CPU device compiles for host_cpu() (-march=native): AVX-512VL gives the AVX2 code 32 registers
  c.vector_registers = host_cpu().vector_registers;
  return c;
}

CLanguage c_language() {
  CLanguage l;
  l.buffer_suffix = " restrict";
  l.const_buffers = true;
  l.helper_prefix = "static inline";
  l.gep_brackets = true;
  return l;
}
} // namespace

CRenderer::CRenderer() : CStyleRenderer(c_caps(), c_language()) {}

std::string CRenderer::math_call(const std::string& fn, DType s, const std::string& x) const {
  return "__builtin_" + fn + (s.scalar_type == Scalar::Float64 ? "" : "f") + "(" + x + ")";
}

std::string CRenderer::infinity(DType s) const {
  return s.scalar_type == Scalar::Float64 ? "__builtin_inf()" : "__builtin_inff()";
}

std::string CRenderer::nan(DType s) const {
  return s.scalar_type == Scalar::Float64 ? "__builtin_nan(\"\")" : "__builtin_nanf(\"\")";
}

std::vector<std::string> CRenderer::type_preamble(const std::vector<DType>& used) const {
  std::vector<std::string> lines;
  auto uses = [&](Scalar s) {
    return std::any_of(used.begin(), used.end(), [&](DType d) { return d.scalar_type == s; });
  };
  if (uses(Scalar::Float16)) {
    // clang before 15 has no _Float16 on x86; its __fp16 is a storage type whose arithmetic happens in
    // float, which is what the kernels do anyway (every half result is rounded back explicitly).
    lines.push_back("#if defined(__clang__) && __clang_major__ < 15");
    lines.push_back("typedef __fp16 half;");
    lines.push_back("#else");
    lines.push_back("typedef _Float16 half;");
    lines.push_back("#endif");
  }
  if (uses(Scalar::BFloat16)) lines.push_back("typedef unsigned short bf16;  /* bfloat16 bits */");
  for (DType d : used) {
    if (d.count == 1 || d.is_ptr || d.scalar().is_bool()) continue;
    LOUPE_ASSERT((d.count & (d.count - 1)) == 0, "C vector types need a power-of-two width, got ", d.name());
    int item = d.scalar().itemsize();
    // Aligned only to the element: a float4 access may start at any float (buffer views, odd offsets).
    // vector_size comes first: GCC applies the attributes in order, and an aligned() written before
    // vector_size lowers the element's alignment, not the vector's (its loads then fault off 32 bytes).
    lines.push_back("typedef " + scalar_name(d.scalar()) + " " + type_name(d) + " __attribute__((vector_size(" +
                    std::to_string(item * d.count) + "),aligned(" + std::to_string(item) + ")));");
  }
  return lines;
}

} // namespace loupe
