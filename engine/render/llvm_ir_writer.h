// The LLVM IR writer behind LlvmRenderer (render/llvm_renderer.h), internal to the renderer: one
// kernel's linearized UOps written as the text of one LLVM function. llvm_renderer.cpp writes the
// statements (parameters, loops, accumulators, loads, stores); llvm_ir_values.cpp the values (lanes,
// conversions, scalar and vector ALU ops, the fused multiply-adds clang would form from the C text).
#pragma once
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/print.h"
#include "render/llvm_renderer.h"
#include "render/renderer.h"
#include "support/error.h"
#include "support/flat_ptr_map.h"

namespace loupe::llvm_ir {

DType resolve(DType d);  // weakint -> int64, weakfloat -> float32
std::string scalar_type(DType s);
std::string constant_text(const Arg& value, DType t);
inline bool is_bf16(DType t) { return t.scalar_type == Scalar::BFloat16; }
inline bool is_signed_int(DType t) { return t.is_int() && !t.is_unsigned(); }

// A helper function for an operation whose plain instruction has the wrong semantics (integer division
// by 0 or of MIN by -1, floor division and modulo, NaN-ignoring max, bfloat16 rounding). Internal and
// always inlined; the bodies mirror the C helpers of cstyle_text.cpp.
struct LlvmHelper {
  std::string name, code;
  std::vector<std::string> declares;
};

LlvmHelper llvm_helper(const std::string& kind, DType t);

// A value operand: its LLVM text, its resolved dtype, the node it came from, and its constant if any.
struct Val {
  std::string text;
  DType type;
  const UOp* node = nullptr;
  const Arg* cval = nullptr;
  int lane = -1;  // which lane of node (vector operands read lane by lane)
};

class IrWriter {
public:
  IrWriter(const RendererCaps& caps, const UOpList& uops) : caps_(caps), uops_(uops) {}
  RenderedKernel run(const std::string& name);

private:
  const RendererCaps& caps_;
  const UOpList& uops_;
  std::unordered_map<const UOp*, std::string> names_;   // SSA value (or pointer) of a rendered node
  std::unordered_map<const UOp*, std::string> slots_;   // DEFINE_ACC -> its alloca
  std::unordered_map<const UOp*, bool> mutable_;
  std::unordered_map<const UOp*, int> loop_id_, if_id_;
  std::vector<std::string> allocas_, body_, params_;
  std::map<std::string, std::string> helpers_;           // name -> definition
  std::set<std::string> declares_;
  std::string block_ = "entry";
  int tmp_ = 0, label_ = 0;
  const UOp* split_range_ = nullptr;
  FlatPtrSet<const UOp*> c_inlined_;  // values the C renderer spells inside their consumer
  RenderedKernel out_;

  [[noreturn]] void fail(const UOp* u, const std::string& why) const {
    raise_internal(__FILE__, __LINE__, cat("render LLVM: ", why, " at ", uop_label(*u)));
  }
  std::string fresh() { return "%v" + std::to_string(tmp_++); }
  std::string emit(const std::string& rhs) {
    std::string n = fresh();
    body_.push_back("  " + n + " = " + rhs);
    return n;
  }
  void line(const std::string& s) { body_.push_back("  " + s); }
  void label(const std::string& l) {
    body_.push_back(l + ":");
    block_ = l;
  }
  std::string helper(const std::string& kind, DType t) {
    LlvmHelper h = llvm_helper(kind, t);
    helpers_.emplace(h.name, h.code);
    for (const std::string& d : h.declares) declares_.insert(d);
    return h.name;
  }
  std::string intrinsic(const std::string& fn, DType t) {
    std::string T = llvm_type(t), tag = std::string(t.count > 1 ? "v" + std::to_string(t.count) : "") + (t.scalar_type == Scalar::Float32 ? "f32" : "f64");
    declares_.insert("declare " + T + " @llvm." + fn + "." + tag + "(" + T + (fn == "copysign" ? ", " + T : fn == "fmuladd" ? ", " + T + ", " + T : "") + ")");
    return "@llvm." + fn + "." + tag;
  }

  void find_c_inlining();
  const UOp* spelled(const UOp* u, int lane) const;
  std::string fmuladd(DType m, std::string a, const std::string& b, std::string c, bool sub = false, int product_side = 0);
  std::string contracted(const std::vector<Val>& xs, bool sub, DType m);
  Val value(const UOp* u);
  Val lane(const UOp* u, int i);
  std::string convert(const std::string& x, DType have, DType want);
  std::string conv(const Val& v, DType want) {
    if (v.type == want) return v.text;
    if (v.cval) return constant_text(*v.cval, want);
    return convert(v.text, v.type, want);
  }
  std::string build_vector(DType vt, const std::vector<std::string>& lanes);
  std::string splat(const std::string& x, DType vt);
  std::string vector_alu(const UOp* u);
  std::string scalar_alu(const UOp* u, Ops op, DType res, const std::vector<Val>& xs);
  std::string value_op(const UOp* u);
  void render_one(const UOp* u);
  void render_parameter(const UOp* u);
  void render_control(const UOp* u);
  void render_accumulator(const UOp* u);
  void render_load(const UOp* u);
  void render_store(const UOp* u);
};

} // namespace loupe::llvm_ir
