#include "codegen/kernel.h"

#include <cctype>
#include <cstdio>
#include <map>
#include <mutex>
#include <numeric>

#include "rewrite/graph_rewrite.h"
#include "support/error.h"

namespace loupe {

const char* axis_kind_name(AxisKind k) {
  switch (k) {
  case AxisKind::Global: return "global";
  case AxisKind::Local: return "local";
  case AxisKind::GroupReduce: return "group";
  case AxisKind::Reduce: return "reduce";
  case AxisKind::Upcast: return "upcast";
  case AxisKind::Unroll: return "unroll";
  }
  return "?";
}

std::optional<AxisKind> axis_kind_from_name(std::string_view name) {
  for (AxisKind k : {AxisKind::Global, AxisKind::Local, AxisKind::GroupReduce, AxisKind::Reduce, AxisKind::Upcast, AxisKind::Unroll})
    if (name == axis_kind_name(k)) return k;
  return std::nullopt;
}

const char* axis_kind_colour(AxisKind k) {
  switch (k) {
  case AxisKind::Global: return "blue";
  case AxisKind::Local: return "cyan";
  case AxisKind::GroupReduce: return "green";
  case AxisKind::Reduce: return "red";
  case AxisKind::Upcast: return "yellow";
  case AxisKind::Unroll: return "magenta";
  }
  return "white";
}

bool is_nested_reduce(const UOp* u) { return u->op == Ops::REDUCE_AXIS && u->src.size() == 2; }

std::vector<const UOp*> kernel_scope_toposort(const UOpPtr& root) {
  // a nested reduce's value (src 0) is in another index space
  return root->toposort([](const UOp* node, size_t i) { return i != 0 || !is_nested_reduce(node); });
}

namespace {
bool carries_view(const UOp* u) {
  if (is_nested_reduce(u)) return true;
  return (u->op == Ops::LOAD || u->op == Ops::STORE || u->op == Ops::IOTA || u->op == Ops::VALID || u->op == Ops::CONST) &&
         std::any_of(u->src.begin(), u->src.end(), [](const UOpPtr& s) { return s->op == Ops::VIEW; });
}
const UOpPtr& view_src(const UOp* u) {
  if (is_nested_reduce(u)) return u->src[1];
  for (const UOpPtr& s : u->src)
    if (s->op == Ops::VIEW) return s;
  LOUPE_ASSERT(false, "no view on ", op_name(u->op));
  return u->src[0];
}
} // namespace

Kernel::Kernel(UOpPtr ast, KernelTarget target) : ast_(std::move(ast)), target_(target) {
  LOUPE_ASSERT(ast_->op == Ops::SINK, "a kernel AST is a SINK");
  std::vector<const UOp*> order = kernel_scope_toposort(ast_);
  // STORE first (it defines the output shape), then the other buffer ops in a stable order
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    if (carries_view(*it)) bufs_.push_back((*it)->ptr());
  std::stable_partition(bufs_.begin(), bufs_.end(), [](const UOpPtr& u) { return u->op == Ops::STORE; });
  for (const UOp* u : order) {
    if (is_nested_reduce(u)) has_nested_ = true;
    else if (u->op == Ops::REDUCE_AXIS) reduceops_.push_back(u);
  }
  for (const UOpPtr& b : bufs_) sts_.push_back(*view_src(b.get())->arg.object<ShapeTracker>());
  // the reduce's output and input shapes mark which axes it reduces
  for (const UOp* r : reduceops_) {
    // the input shape: any view below the reduce has it (every leaf carries a view)
    sints full;
    for (const UOp* x : kernel_scope_toposort(r->src[0]))
      if (x->op == Ops::VIEW) {
        full = x->arg.object<ShapeTracker>()->shape();
        break;
      }
    LOUPE_ASSERT(!full.empty() || sts_[0].ndim() == 0, "reduce without a view below it");
    sints out = full;
    for (const Arg& a : r->arg.as_tuple()[1].as_tuple()) out[a.as_int()] = 1;
    sts_.push_back(ShapeTracker::from_shape(out));
    sts_.push_back(ShapeTracker::from_shape(full));
  }
  // move the reduce axes to the end
  const sints &fs = sym_full_shape(), &os = sym_output_shape();
  std::vector<int64_t> perm;
  for (size_t i = 0; i < fs.size(); i++)
    if (fs[i] == os[i]) perm.push_back(static_cast<int64_t>(i));
  for (size_t i = 0; i < fs.size(); i++)
    if (!(fs[i] == os[i])) perm.push_back(static_cast<int64_t>(i));
  reshape_and_permute(nullptr, &perm);
  simplify_ones();
  simplify_merge_adjacent();
}

const sints& Kernel::sym_full_shape() const {
  // the iteration space: the (first) reduce's input, else the output
  return (reduceops_.empty() ? sts_[0] : sts_[bufs_.size() + 1]).shape();
}

std::vector<int64_t> Kernel::full_shape() const {
  std::vector<int64_t> out;
  for (const sint& s : sym_full_shape()) out.push_back(s.vmax());
  return out;
}

std::vector<int64_t> Kernel::output_shape() const {
  std::vector<int64_t> out;
  for (const sint& s : sym_output_shape()) out.push_back(s.vmax());
  return out;
}

UOpList Kernel::vars() const {
  UOpList out;
  for (const ShapeTracker& st : sts_)
    for (const UOpPtr& v : st.vars())
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  std::sort(out.begin(), out.end(), [](const UOpPtr& a, const UOpPtr& b) { return a->var_name() < b->var_name(); });
  return out;
}

size_t Kernel::first_reduce() const {
  const sints &fs = sym_full_shape(), &os = sym_output_shape();
  for (size_t i = 0; i < first_upcast() && i < fs.size(); i++)
    if (!(fs[i] == os[i])) return i;
  return first_upcast();
}

std::vector<AxisKind> Kernel::axis_kinds() const {
  std::vector<AxisKind> kinds;
  size_t fr = first_reduce(), fu = first_upcast();
  const sints &fs = sym_full_shape(), &os = sym_output_shape();
  for (size_t i = 0; i < shape_len(); i++) {
    if (i < fr - local_dims_) kinds.push_back(AxisKind::Global);
    else if (i < fr) kinds.push_back(AxisKind::Local);
    else if (i < fr + group_for_reduces_) kinds.push_back(AxisKind::GroupReduce);
    else if (i < fu) kinds.push_back(AxisKind::Reduce);
    else kinds.push_back(!(fs[i] == os[i]) ? AxisKind::Unroll : AxisKind::Upcast);
  }
  return kinds;
}

void Kernel::reshape_and_permute(const std::function<sints(const sints&)>& new_shape,
                                 const std::vector<int64_t>* permute) {
  for (ShapeTracker& st : sts_) {
    if (new_shape) st = st.reshape(new_shape(st.shape()));
    if (permute) st = st.permute(*permute);
  }
}

void Kernel::simplify_ones() {
  if (shape_len() == 0) return;
  const sints fs = sym_full_shape();
  std::vector<bool> ones(fs.size());
  bool any = false;
  for (size_t i = 0; i < fs.size(); i++) any = any || (ones[i] = fs[i] == 1);
  if (!any) return;
  size_t fu = first_upcast(), fr = first_reduce();
  for (size_t i = fu; i < fs.size(); i++) upcasted_ -= ones[i];
  size_t local_ones = 0;
  for (size_t i = fr - local_dims_; i < fr; i++) local_ones += ones[i];
  local_dims_ -= local_ones;
  reshape_and_permute(
      [&](const sints& s) {
        sints out;
        for (size_t i = 0; i < s.size(); i++)
          if (!ones[i]) out.push_back(s[i]);
        return out;
      },
      nullptr);
}

void Kernel::simplify_merge_adjacent() {
  if (shape_len() == 0) return;
  size_t fr = first_reduce();
  std::vector<sints> shapes;
  std::vector<std::vector<std::optional<sint>>> strides;
  for (const ShapeTracker& st : sts_) {
    shapes.push_back(st.shape());
    strides.push_back(st.real_strides());
  }
  // groups[k] = axes merged into new axis k. Axis i joins the one before it when, in every tracker, the
  // stride before is this axis's size times its stride (or both broadcast); with symbolic sizes the
  // products are compared as simplified expressions (structurally, as tinygrad compares them).
  std::vector<std::vector<size_t>> groups{{0}};
  std::vector<std::optional<sint>> last(sts_.size());
  for (size_t j = 0; j < sts_.size(); j++) last[j] = strides[j][0];
  for (size_t i = 1; i < shape_len(); i++) {
    bool mergeable = i != fr;
    std::vector<std::optional<sint>> merged(sts_.size());
    for (size_t j = 0; j < sts_.size() && mergeable; j++) {
      const auto& st = strides[j][i];
      if (!st || !last[j]) {
        mergeable = false;
        break;
      }
      const sint& l = *last[j];
      if (!(*st == 0) && l == shapes[j][i] * *st) merged[j] = *st;
      else if (*st == 0 && l == 0) merged[j] = sint(0);
      else mergeable = false;
    }
    if (mergeable) {
      groups.back().push_back(i);
      last = merged;
    } else {
      groups.push_back({i});
      for (size_t j = 0; j < sts_.size(); j++) last[j] = strides[j][i];
    }
  }
  if (groups.size() == shape_len()) return;
  reshape_and_permute(
      [&](const sints& s) {
        sints out;
        for (const auto& g : groups) {
          sint p = 1;
          for (size_t a : g) p = p * s[a];
          out.push_back(p);
        }
        return out;
      },
      nullptr);
}

std::string Kernel::base_name() const {
  std::string n = has_reduce() || has_nested_ ? "r" : "E";
  for (const sint& s : sym_full_shape()) {
    n += "_";
    if (s.is_int()) {
      n += std::to_string(s.as_int());
      continue;
    }
    // a C identifier: other characters as two hex digits (tinygrad's to_function_name)
    for (char c : s.str()) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') n += c;
      else {
        char hex[3];
        std::snprintf(hex, sizeof hex, "%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
        n += hex;
      }
    }
  }
  return n;
}

std::string Kernel::name() const {
  static std::mutex mutex;
  static std::map<std::string, std::vector<Hash128>> seen;
  std::string base = base_name();
  std::lock_guard lock(mutex);
  auto& keys = seen[base];
  for (size_t i = 0; i < keys.size(); i++)
    if (keys[i] == ast_->key()) return i == 0 ? base : base + "n" + std::to_string(i);
  keys.push_back(ast_->key());
  return keys.size() == 1 ? base : base + "n" + std::to_string(keys.size() - 1);
}

UOpPtr Kernel::optimized_ast() const {
  std::unordered_map<const UOp*, UOpPtr> done;
  std::unordered_map<const UOp*, size_t> buf_index, reduce_index;
  for (size_t i = 0; i < bufs_.size(); i++) buf_index[bufs_[i].get()] = i;
  for (size_t r = 0; r < reduceops_.size(); r++) reduce_index[reduceops_[r]] = r;
  for (const UOp* u : kernel_scope_toposort(ast_)) {
    UOpList src;
    for (size_t i = 0; i < u->src.size(); i++)  // a nested reduce's value keeps its own index space
      src.push_back(i == 0 && is_nested_reduce(u) ? u->src[0] : done.at(u->src[i].get()));
    if (auto b = buf_index.find(u); b != buf_index.end())
      for (UOpPtr& s : src)
        if (s->op == Ops::VIEW) s = sts_[b->second].to_uop();
    Arg arg = u->arg;
    if (auto r = reduce_index.find(u); r != reduce_index.end()) {
      // reduce axes: where the reduce's output and input trackers differ
      const sints &out = sts_[bufs_.size() + 2 * r->second].shape(), &in = sts_[bufs_.size() + 2 * r->second + 1].shape();
      std::vector<int64_t> axes;
      for (size_t i = 0; i < out.size(); i++)
        if (!(out[i] == in[i])) axes.push_back(static_cast<int64_t>(i));
      arg = Arg(Arg::Tuple{u->arg.as_tuple()[0], Arg::ints(axes)});
    }
    if (u->op == Ops::SINK)
      arg = Arg(Arg::Tuple{Arg(name()), Arg(int64_t(local_dims_)), Arg(int64_t(upcasted_)), Arg(dont_use_locals_)});
    done[u] = UOp::make(u->op, u->dtype, std::move(src), std::move(arg));
    done[u]->set_metadata_once(u->metadata());  // the same op of the user's program (ir/metadata.h)
  }
  return done.at(ast_.get());
}

} // namespace loupe
