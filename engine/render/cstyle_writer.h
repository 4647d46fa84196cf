// The C-style renderer's writer (render/cstyle.h), shared by its two halves: cstyle_values.cpp spells
// values (operands, conversions, ALU expressions), cstyle.cpp emits the statements. Internal to render/.
#pragma once
#include <array>
#include <deque>
#include <initializer_list>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/print.h"
#include "render/cstyle.h"
#include "support/error.h"
#include "support/flat_ptr_map.h"

namespace loupe::cstyle {

// An associative op whose left operand, when the same op, is written without its parentheses.
bool strips_left(Ops op);

// One operand of an ALU op: its text, its C type, and the constant behind it (re-spelled in another type
// instead of cast).
struct Operand {
  // its text: a rendered node's own (not copied) or a lane spelled for it
  const std::string& text() const { return shown ? *shown : spelled; }
  const std::string* shown = nullptr;
  std::string spelled;
  DType type;
  const UOp* node = nullptr;
  const Arg* cval = nullptr;
  bool inlined = false;
};

class KernelWriter {
public:
  KernelWriter(const CStyleRenderer& r, const UOpList& uops) : R(r), L(r.lang()), uops_(uops) {}
  RenderedKernel run(const std::string& name);

private:
  const CStyleRenderer& R;
  const CLanguage& L;
  const UOpList& uops_;
  // What the writer knows of each node it meets (the listed ones and the constants they read).
  struct NodeInfo {
    bool inlined = false;    // its text is an expression written where it is used
    bool is_mutable = false; // a buffer some STORE writes
    bool has_text = false;
    bool grouped = false;    // its inlined text is one parenthesized group (known without a scan)
    std::string text;
  };
  FlatPtrMap<const UOp*, NodeInfo*> info_;
  std::deque<NodeInfo> infos_;  // stable addresses as it grows
  NodeInfo& info(const UOp* u) {
    auto [slot, added] = info_.try_emplace(u);
    if (added) *slot = &infos_.emplace_back();
    return **slot;
  }
  bool inlined(const UOp* u) { return info(u).inlined; }
  void set_text(const UOp* u, std::string t) {
    NodeInfo& i = info(u);
    i.text = std::move(t);
    i.has_text = true;
  }
  std::vector<std::pair<std::string, int>> counters_;  // per name prefix (a handful)
  std::vector<std::pair<DType, std::string>> type_names_;  // C names of the types declared so far
  std::vector<std::string> body_;
  int depth_ = 1;
  std::vector<std::string> helper_order_;
  std::unordered_map<std::string, std::string> helpers_;
  std::vector<DType> used_types_;
  const UOp* split_range_ = nullptr;
  int64_t shared_next_ = 0;  // with dynamic shared memory: the next DEFINE_LOCAL's offset in it
  std::set<int64_t> open_axes_;
  RenderedKernel out_;

  [[noreturn]] void fail(const UOp* u, const std::string& why) const {
    raise_internal(__FILE__, __LINE__, cat("render ", R.caps().device, ": ", why, " at ", uop_label(*u)));
  }
  DType rtype(const UOp* u) const { return c_resolve(u->dtype, u->vmin(), u->vmax()); }
  void use_type(DType t) {
    t = t.base();
    if (std::find(used_types_.begin(), used_types_.end(), t) == used_types_.end()) used_types_.push_back(t);
  }
  std::string call(const std::string& kind, DType t, const std::string& args, DType to = {}) {
    CHelper h = R.helper(kind, t, to);
    if (!helpers_.count(h.name)) {
      helpers_[h.name] = h.code;
      helper_order_.push_back(h.name);
    }
    return h.name + "(" + args + ")";
  }
  // A line of the body at the current depth, joined from its pieces in one allocation.
  void emit(std::initializer_list<std::string_view> parts) {
    size_t n = 2 * static_cast<size_t>(depth_);
    for (std::string_view p : parts) n += p.size();
    std::string& out = body_.emplace_back();
    out.reserve(n);
    out.append(2 * static_cast<size_t>(depth_), ' ');
    for (std::string_view p : parts) out.append(p);
  }
  void emit(const std::string& line) { emit({std::string_view(line)}); }
  std::string fresh(const std::string& prefix) {
    auto it = std::find_if(counters_.begin(), counters_.end(), [&](const auto& c) { return c.first == prefix; });
    if (it == counters_.end()) it = counters_.insert(counters_.end(), {prefix, 0});
    return prefix + std::to_string(it->second++);
  }
  const std::string& type_name(DType t) {
    for (const auto& [dt, name] : type_names_)
      if (dt == t) return name;
    return type_names_.emplace_back(t, R.type_name(t)).second;
  }

  void analyze();
  const std::string& text(const UOp* u);
  Operand operand(const UOp* u, int lane = -1);
  std::string lane(const UOp* u, int i);
  std::string convert(const std::string& x, DType have, DType want);
  std::string conv(const Operand& o, DType want) {
    if (o.type == want) return o.text();
    if (o.cval) return c_constant(R, *o.cval, want);
    return convert(o.text(), o.type, want);
  }
  std::string vec_literal(DType vt, const std::vector<std::string>& lanes);
  std::string constant(const UOp* u);
  // An ALU op's operands (at most three), built in place: one per node rendered.
  struct Operands {
    std::array<Operand, 3> items;
    size_t count = 0;
    std::span<const Operand> view() const { return {items.data(), count}; }
  };
  Operands operands(const UOp* u, int lane);  // lane -1: whole values
  std::string scalar_alu(const UOp* u, Ops op, DType res, std::span<const Operand> xs);
  std::string explicit_fma(Ops op, DType m, std::span<const Operand> xs);
  std::string value_expr(const UOp* u);
  const CVectorSpelling V{R.caps()};
  bool vector_operator(const UOp* u) const { return V.vector_operator(u); }
  bool is_mask(const UOp* u) const { return V.is_mask(u); }
  static DType mask_type(const UOp* u) { return CVectorSpelling::mask_type(u); }
  bool vector_conversion(const UOp* u) const { return V.vector_conversion(u); }
  std::string vector_alu(const UOp* u);
  std::string index_expr(const UOp* u);
  void declare(const UOp* u, const std::string& prefix, const std::string& expr);
  void render_one(const UOp* u);
  void render_definition(const UOp* u);
  void render_control(const UOp* u);
  void render_memory(const UOp* u);
  void render_value(const UOp* u);
};

} // namespace loupe::cstyle
