#include "render/linear_analysis.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace loupe {

const UOp* buffer_of(const UOp* u) {
  while (u && u->op != Ops::DEFINE_GLOBAL && u->op != Ops::DEFINE_LOCAL) u = u->src.empty() ? nullptr : u->src[0].get();
  return u;
}

const UOp* accumulator_of(const UOp* u) {
  while (u->op == Ops::ASSIGN) u = u->src.at(0).get();
  return u;
}

const UOp* c_spelled_node(const UOp* u, int lane, const FlatPtrSet<const UOp*>& inlined) {
  if (u->op == Ops::GEP) {
    const auto& t = u->arg.as_tuple();
    int k = static_cast<int>((lane < 0 ? t.at(0) : t.at(static_cast<size_t>(lane))).as_int());
    return u->src[0]->dtype.count == 1 ? c_spelled_node(u->src[0].get(), -1, inlined) : c_spelled_node(u->src[0].get(), k, inlined);
  }
  if (u->op == Ops::VECTORIZE && lane >= 0 && inlined.contains(u)) return c_spelled_node(u->src.at(static_cast<size_t>(lane)).get(), -1, inlined);
  return u;
}

bool is_value_op(Ops op) { return is_alu(op) || op == Ops::CAST || op == Ops::BITCAST || op == Ops::VECTORIZE; }

const UOp* splittable_outer_loop(const UOpList& uops) {
  const UOp* range = nullptr;
  size_t first = 0;
  for (; first < uops.size(); first++) {
    Ops op = uops[first]->op;
    if (op == Ops::RANGE) {
      range = uops[first].get();
      break;
    }
    bool harmless = op == Ops::CONST || op == Ops::VCONST || op == Ops::DEFINE_GLOBAL || op == Ops::DEFINE_VAR ||
                    op == Ops::NAME || is_value_op(op) || op == Ops::GEP || op == Ops::NOOP;
    if (!harmless) return nullptr;
  }
  // (an end over the kernel's variables is evaluated at each launch: the outermost loop's end can
  // only be computed from them)
  if (!range || range->src.empty()) return nullptr;
  size_t end = uops.size();
  while (end > 0 && uops[end - 1]->op == Ops::SINK) end--;
  if (end == 0 || uops[end - 1]->op != Ops::ENDRANGE || uops[end - 1]->src[0].get() != range) return nullptr;
  FlatPtrSet<const UOp*> on_range(uops.size());  // the listed nodes computed from the loop's index (list order is topological)
  on_range.insert(range);
  for (size_t i = first; i < end; i++) {
    const UOp* u = uops[i].get();
    if (u->op == Ops::DEFINE_LOCAL || u->op == Ops::BARRIER || u->op == Ops::SPECIAL) return nullptr;
    if (u->op == Ops::DEFINE_ACC)
      for (const UOpPtr& s : u->src)
        if (s.get() == range) return nullptr;
    if (u->op == Ops::STORE && !on_range.contains(u->src[0].get())) return nullptr;
    for (const UOpPtr& s : u->src)
      if (on_range.contains(s.get())) {
        on_range.insert(u);
        break;
      }
  }
  return range;
}

FlatPtrSet<const UOp*> inlined_values(const UOpList& uops, const std::function<bool(const UOp*)>& read_lane_by_lane) {
  struct Use {
    int pos = -1;           // in the list (-1: a constant read but not listed)
    int children = 0;       // uses by listed nodes
    int consumer_pos = 0;   // position of the last use
    bool must_name = false;
    int nesting = 0;        // parentheses an inlined expression opens inside itself (0: named)
    std::vector<const UOp*> acc_reads;  // accumulators an inlined expression reads
  };
  size_t nodes = uops.size();
  for (const UOpPtr& u : uops) nodes += u->src.size();
  FlatPtrMap<const UOp*, Use> use(nodes);
  for (size_t i = 0; i < uops.size(); i++) use[uops[i].get()].pos = static_cast<int>(i);
  FlatPtrMap<const UOp*, std::vector<int>> assigns;
  for (const UOpPtr& up : uops) {
    const UOp* u = up.get();
    int pos = use[u].pos;
    for (const UOpPtr& s : u->src) {
      Use& su = use[s.get()];
      su.children++;
      su.consumer_pos = pos;
    }
    if (u->op == Ops::ASSIGN) assigns[u->src[0].get()].push_back(pos);
    // a vector value read lane by lane needs a name, unless its lanes can be spelled directly
    if (read_lane_by_lane(u))
      for (const UOpPtr& s : u->src)
        if (s->dtype.count > 1 && s->op != Ops::CONST && s->op != Ops::VCONST && s->op != Ops::VECTORIZE && s->op != Ops::GEP)
          use[s.get()].must_name = true;
    if (u->dtype.count > 1 && u->dtype.scalar().is_bool() && !u->dtype.is_ptr) use[u].must_name = true;
  }
  FlatPtrSet<const UOp*> inlined(uops.size());
  for (const UOpPtr& up : uops) {
    const UOp* u = up.get();
    std::vector<const UOp*> reads;
    int nesting = 0;
    for (const UOpPtr& s : u->src) {
      if (s->op == Ops::DEFINE_ACC) reads.push_back(s.get());
      else if (inlined.contains(s.get())) {
        reads.insert(reads.end(), use[s.get()].acc_reads.begin(), use[s.get()].acc_reads.end());
        nesting = std::max(nesting, use[s.get()].nesting + 1);
      }
    }
    Use& uu = use[u];
    bool always = u->op == Ops::CONST || u->op == Ops::VCONST || u->op == Ops::GEP || u->op == Ops::INDEX || u->op == Ops::NOOP;
    // a long chain of single-use values would nest past what a C compiler parses (clang stops at 256
    // brackets): such a value is named instead, which restarts the nesting
    bool candidate = is_value_op(u->op) && uu.children == 1 && !uu.must_name && nesting < kMaxInlineNesting;
    if (candidate)
      for (const UOp* acc : reads)
        if (const std::vector<int>* ps = assigns.find(acc))
          for (int p : *ps)
            if (p > uu.pos && p < uu.consumer_pos) candidate = false;
    if (always || candidate) {
      inlined.insert(u);
      uu.nesting = nesting;
      uu.acc_reads = std::move(reads);
    }
  }
  return inlined;
}

std::vector<int> uop_source_lines(const UOpList& uops, const std::vector<int>& body_line, int body_start, int signature_line) {
  std::unordered_map<const UOp*, size_t> pos;
  pos.reserve(uops.size());
  for (size_t i = 0; i < uops.size(); i++) pos.emplace(uops[i].get(), i);
  std::vector<int> lines(uops.size(), 0);
  // Backwards, so that every consumer's line is final before its sources ask for it.
  std::vector<int> first_consumer(uops.size(), 0);
  for (size_t i = uops.size(); i-- > 0;) {
    const UOp* u = uops[i].get();
    if (u->op == Ops::DEFINE_GLOBAL || u->op == Ops::DEFINE_VAR) lines[i] = signature_line;
    else if (i < body_line.size() && body_line[i] >= 0) lines[i] = body_start + body_line[i];
    else lines[i] = first_consumer[i];
    if (lines[i] == 0) continue;
    for (const UOpPtr& s : u->src)
      if (auto it = pos.find(s.get()); it != pos.end()) {
        int& c = first_consumer[it->second];
        if (c == 0 || lines[i] < c) c = lines[i];
      }
  }
  return lines;
}

} // namespace loupe
