// Kernel optimizations: applying one Opt (checks, then a shift of one axis into the right place for
// every tracker), and tinygrad's hand-coded heuristics.
#include <algorithm>
#include <numeric>
#include <set>

#include "codegen/kernel.h"

namespace loupe {

const char* opt_op_name(OptOp op) {
  switch (op) {
  case OptOp::UPCAST: return "UPCAST";
  case OptOp::UNROLL: return "UNROLL";
  case OptOp::LOCAL: return "LOCAL";
  case OptOp::GROUP: return "GROUP";
  case OptOp::GROUPTOP: return "GROUPTOP";
  case OptOp::NOLOCALS: return "NOLOCALS";
  case OptOp::PADTO: return "PADTO";
  case OptOp::SWAP: return "SWAP";
  case OptOp::TC: return "TC";
  }
  return "?";
}

std::string Opt::str() const {
  return cat("Opt(op=OptOps.", opt_op_name(op), ", axis=", axis, ", arg=", arg, ")");
}

namespace {
void check(bool cond, const Opt& opt, const std::string& why) {
  if (!cond) throw KernelOptError(cat(opt.str(), ": ", why));
}
} // namespace

size_t Kernel::real_axis(const Opt& opt) const {
  if (opt.op == OptOp::UNROLL) return first_reduce() + opt.axis;
  if (opt.op == OptOp::GROUP || opt.op == OptOp::GROUPTOP) return first_reduce() + group_for_reduces_ + opt.axis;
  return static_cast<size_t>(opt.axis);
}

// Split `axis` into (size/amount, amount) (or (amount, size/amount) when top) and move the `amount`
// part to `insert_before` (default: the end).
void Kernel::shift_to(size_t axis, int64_t amount, bool top, std::optional<size_t> insert_before) {
  size_t ins = insert_before.value_or(shape_len());
  size_t move_axis = top ? axis : axis + 1;
  if (move_axis < ins) ins += 1;
  std::vector<int64_t> perm;
  for (size_t i = 0; i < ins; i++)
    if (i != move_axis) perm.push_back(static_cast<int64_t>(i));
  perm.push_back(static_cast<int64_t>(move_axis));
  for (size_t i = ins; i < shape_len() + 1; i++)
    if (i != move_axis) perm.push_back(static_cast<int64_t>(i));
  reshape_and_permute(
      [&](const sints& s) {
        sints out(s.begin(), s.begin() + axis);
        int64_t n = s[axis].as_int();
        if (n > 1) {
          if (top) out.insert(out.end(), {sint(amount), sint(n / amount)});
          else out.insert(out.end(), {sint(n / amount), sint(amount)});
        } else {
          out.insert(out.end(), {sint(1), sint(1)});
        }
        out.insert(out.end(), s.begin() + axis + 1, s.end());
        return out;
      },
      &perm);
}

void Kernel::apply_opt(const Opt& opt) {
  if (dont_use_locals_)
    check(opt.op != OptOp::LOCAL && opt.op != OptOp::GROUP && opt.op != OptOp::GROUPTOP, opt, "not using locals");
  if (opt.op == OptOp::TC) {
    apply_tensor_core(opt);
    applied_opts_.push_back(opt);
    simplify_ones();
    return;
  }
  if (tc_) {  // the warp's lanes and the mma's own axes stay where the lowerer expects them
    check((opt.op == OptOp::UPCAST || opt.op == OptOp::LOCAL) && static_cast<size_t>(opt.axis) < global_dims(), opt,
          "after TC only UPCAST and LOCAL of global axes apply");
    check(opt.op != OptOp::LOCAL || local_dims_ < 3, opt, "a TC kernel has at most one more local axis");
  }
  size_t axis = real_axis(opt);
  std::vector<int64_t> fs = full_shape();
  check(axis < fs.size(), opt, cat("invalid axis for a kernel of ", fs.size(), " axes"));
  int64_t amt = opt.arg;
  if (opt.op == OptOp::SWAP) {
    check(opt.axis < opt.arg && opt.arg < static_cast<int64_t>(global_dims()), opt, "SWAP needs two global axes");
  } else if (opt.op != OptOp::NOLOCALS) {
    amt = opt.arg != 0 ? opt.arg : fs[axis];
    check(amt != 1, opt, "an amount of 1 is meaningless");
    check(amt > 0 && fs[axis] > 0, opt, "an empty axis cannot be split");
    if (opt.op != OptOp::PADTO) check(fs[axis] % amt == 0, opt, cat("axis of size ", fs[axis], " is not divisible by ", amt));
  }
  if (has_reduce() && (opt.op == OptOp::GROUP || opt.op == OptOp::GROUPTOP)) {
    int64_t acc_sz = 4, upcast_sz = 1, local_sz = 1;
    std::vector<int64_t> os = output_shape();
    for (size_t i = first_upcast(); i < fs.size(); i++)
      if (fs[i] == os[i]) upcast_sz *= fs[i];
    for (size_t i = first_reduce() - local_dims_; i < first_reduce() + group_for_reduces_; i++) local_sz *= fs[i];
    check(amt * acc_sz * upcast_sz * local_sz <= target_.shared_max, opt, "exceeds the shared memory size");
  }
  switch (opt.op) {
  case OptOp::LOCAL:
    check(target_.has_local, opt, "the target has no local threads");
    check(axis < global_dims(), opt, "LOCAL is for global axes");
    shift_to(axis, amt, false, first_reduce());
    local_dims_++;
    break;
  case OptOp::GROUP:
  case OptOp::GROUPTOP:
    check(target_.has_local && target_.has_shared, opt, "the target has no local threads or shared memory");
    check(first_reduce() + group_for_reduces_ <= axis && axis < first_upcast(), opt, "GROUP is for reduce axes");
    check(reduceops_.size() == 1, opt, "cannot group parallel reduces");
    shift_to(axis, amt, opt.op == OptOp::GROUPTOP, first_reduce() + group_for_reduces_);
    group_for_reduces_++;
    break;
  case OptOp::UNROLL:
    check(axis < first_upcast(), opt, "the axis is already upcast");
    check(axis >= first_reduce(), opt, "UNROLL is for reduce axes");
    check(amt <= 32, opt, "do not unroll more than 32");
    // unrolled copies of the reduce body would each need their own copy of the nested loop
    for (size_t b = 0; b < bufs_.size(); b++)
      if (is_nested_reduce(bufs_[b].get())) {
        std::optional<int64_t> st = stride_of(b, axis);
        check(st && *st == 0, opt, "a nested reduce is read along this axis");
      }
    if (fs[axis] == amt && axis < first_reduce() + group_for_reduces_) group_for_reduces_--;
    shift_to(axis, amt, false, std::nullopt);
    upcasted_++;
    break;
  case OptOp::UPCAST:
    check(axis < first_reduce(), opt, "UPCAST is for output axes");
    check(amt <= 16, opt, "do not upcast more than 16");
    shift_to(axis, amt, false, std::nullopt);
    upcasted_++;
    break;
  case OptOp::NOLOCALS:
    check(target_.has_local && !dont_use_locals_, opt, "the target has no locals to turn off");
    check(local_dims_ == 0 && group_for_reduces_ == 0, opt, "locals are already in use");
    dont_use_locals_ = true;
    break;
  case OptOp::SWAP: {
    std::vector<int64_t> perm(shape_len());
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[axis], perm[opt.arg]);
    reshape_and_permute(nullptr, &perm);
    break;
  }
  case OptOp::PADTO: {
    check(axis < first_upcast(), opt, "cannot pad an upcast axis");
    int64_t padded = (fs[axis] + amt - 1) / amt * amt;
    check(padded - fs[axis] < fs[axis] * 4, opt, "pads more than 4x");
    if (axis >= first_reduce()) {
      for (const UOp* r : reduceops_) check(r->arg.as_tuple()[0].as_op() == Ops::ADD, opt, "can only pad an ADD reduce");
      for (const UOp* u : ast_->toposort()) check(!op_in(u->op, kUnsafePad), opt, "an op that is not zero at zero");
    }
    for (ShapeTracker& st : sts_) {
      if (st.shape()[axis].as_int() == 1) continue;
      Ranges p(st.ndim(), Range{0, 0});
      p[axis] = Range{0, padded - fs[axis]};
      st = st.pad(p);
    }
    break;
  }
  case OptOp::TC: break;
  }
  applied_opts_.push_back(opt);
  simplify_ones();
}

void Kernel::apply_opts(const std::vector<Opt>& opts) {
  for (const Opt& o : opts) apply_opt(o);
}

std::optional<int64_t> Kernel::stride_of(size_t buf, size_t axis) const {
  auto rs = sts_[buf].real_strides();
  if (axis >= rs.size() || !rs[axis] || !rs[axis]->is_int()) return std::nullopt;
  return rs[axis]->as_int();
}

void Kernel::hand_coded_optimizations() {
  std::vector<int64_t> fs = full_shape();
  for (int64_t s : fs)
    if (s == 0) return;  // an empty kernel has nothing to optimize
  size_t nbufs = bufs_.size();
  auto try_opt = [&](const Opt& o) {
    try {
      apply_opt(o);
      return true;
    } catch (const KernelOptError&) {
      return false;
    }
  };
  if (tensor_core_heuristics()) return;
  // GPU: a reduce with few outputs splits its reduce across a work-group (GROUPTOP through shared memory)
  if (target_.has_local && target_.has_shared && has_reduce() && first_reduce() <= 2 && first_reduce() + 1 <= shape_len()) {
    int64_t outputs = 1;
    for (size_t a = 0; a < first_reduce(); a++) outputs *= fs[a];
    if (outputs <= 2048) {
      for (int64_t sz : outputs <= 32 ? std::vector<int64_t>{256, 16} : std::vector<int64_t>{16}) {
        bool divides = true;
        for (const ShapeTracker& st : sts_) {
          int64_t n = st.shape()[first_reduce()].as_int();
          divides = divides && (n % sz == 0 || n == 1);
        }
        if (divides && try_opt({OptOp::GROUPTOP, 0, sz})) break;
      }
    }
    if (group_for_reduces_ > 0) return;  // grouped: nothing more (tinygrad's order)
  }
  // upcast small masked axes fully (a padded conv's edges)
  int64_t upcast_product = 1;
  for (size_t a = 0; a < first_reduce(); a++) {
    fs = full_shape();
    if (fs[a] > 7 || fs[a] < 2) continue;
    bool masked = false;
    for (size_t b = 0; b < nbufs; b++) masked = masked || sts_[b].axis_is_masked(a);
    if (masked && upcast_product * fs[a] <= 49 && try_opt({OptOp::UPCAST, static_cast<int64_t>(a), 0})) {
      upcast_product *= fs[a];
      break;
    }
  }
  // register blocking: upcast output axes where some buffer is broadcast (matmul tiles)
  auto global_elems = [&] {
    std::vector<int64_t> s = full_shape();
    int64_t n = 1;
    for (size_t i = 0; i < first_reduce(); i++) n *= s[i];
    return n;
  };
  // As tinygrad: each axis at most once, and only for a buffer that is broadcast along it and not yet
  // along an upcast axis (so matmul gets a square register tile, not one long row).
  std::set<size_t> upcast_axes;
  auto broadcast_upcast = [&](size_t b) {
    for (size_t u = first_upcast(); u < shape_len(); u++) {
      auto st = stride_of(b, u);
      if (st && *st == 0) return true;
    }
    return false;
  };
  while (global_elems() >= 1024) {
    std::vector<int64_t> s = full_shape();
    struct Choice {
      int64_t nonzero, stride_sum;
      size_t axis;
      int64_t amt;
    };
    // tinygrad takes the smaller amount on a tie; the CPU's 4x16 tile below needs 4 (a 4x3 tile of a
    // (128x768) @ (768x2304) ran at 14 GFLOPS, the 4x16 tile at 90)
    auto rank = [&](const Choice& c) { return std::make_tuple(c.nonzero, c.stride_sum, c.axis, target_.has_local ? c.amt : -c.amt); };
    std::optional<Choice> best;
    for (size_t a = 0; a < first_reduce(); a++) {
      for (int64_t amt : {3, 4}) {
        if (upcast_axes.count(a) || s[a] % amt != 0 || s[a] == amt) continue;
        bool broadcast_somewhere = false;
        int64_t nonzero = 0, stride_sum = 0;
        for (size_t b = 0; b < nbufs; b++) {
          auto st = stride_of(b, a);
          // loads only (as tinygrad's buffers): a constant or a nested reduce read broadcast is computed
          // once outside the loop, there is no reuse to tile for
          if (st && *st == 0 && !broadcast_upcast(b) && bufs_[b]->op == Ops::LOAD) broadcast_somewhere = true;
          if (!st || *st != 0) nonzero++;
          stride_sum += st ? std::abs(*st) : 0;
        }
        if (!broadcast_somewhere) continue;
        Choice c{nonzero, stride_sum, a, amt};
        if (!best || rank(c) < rank(*best)) best = c;
      }
    }
    if (!best || !try_opt({OptOp::UPCAST, static_cast<int64_t>(best->axis), best->amt})) break;
    upcast_axes.insert(best->axis);
    upcast_product *= best->amt;
  }
  // CPU: a reduce kernel whose output axis is too small for 3 or 4 to divide (a classifier's 10 classes)
  // and has a loaded operand broadcast along it upcasts that axis whole, so the operand is loaded once
  // for all of it instead of once per output
  if (!target_.has_local && has_reduce() && upcast_axes.empty()) {
    std::vector<int64_t> s = full_shape();
    for (size_t a = 0; a < first_reduce(); a++) {
      if (s[a] < 5 || s[a] > 16 || s[a] % 4 == 0 || s[a] % 3 == 0) continue;
      bool broadcast = false;
      for (size_t b = 0; b < nbufs; b++) {
        auto st = stride_of(b, a);
        broadcast = broadcast || (st && *st == 0 && bufs_[b]->op == Ops::LOAD);
      }
      if (broadcast && try_opt({OptOp::UPCAST, static_cast<int64_t>(a), 0})) {
        upcast_product *= s[a];
        break;
      }
    }
  }
  // CPU (no work-groups; clang vectorizes the upcast lanes into AVX registers): a 4x4 tile leaves the
  // FMA units idle, so a two-axis tile grows along its contiguous output axis to 4x16, and its reduce is
  // still unrolled by 4. BEAM=2 picks exactly this for matmul_1024 (4.7x the 4x4 tile's GFLOPS).
  bool cpu_tile = false;
  if (!target_.has_local && has_reduce() && upcast_axes.size() == 2 && upcast_product == 16) {
    std::optional<std::pair<int64_t, size_t>> contiguous;  // (output stride, axis)
    for (size_t a : upcast_axes) {
      auto st = stride_of(0, a);
      if (st && *st > 0 && (!contiguous || *st < contiguous->first)) contiguous = std::make_pair(*st, a);
    }
    std::vector<int64_t> s = full_shape();
    // by 4 (a 4x16 tile), else by 2 (an output row of 56 = 14 * 4 in a conv: 4x8)
    int64_t grow = 0;
    for (int64_t amt : {4, 2})
      if (!grow && contiguous && s[contiguous->second] % amt == 0 && s[contiguous->second] > amt &&
          try_opt({OptOp::UPCAST, static_cast<int64_t>(contiguous->second), amt}))
        grow = amt;
    if (grow) {
      upcast_product *= grow;
      cpu_tile = true;
      // With 32 vector registers the tile doubles its rows to 8x16: 16 accumulators, and each column
      // panel of the broadcast operand is read half as often (matmul_1024: 108 -> 174 GFLOPS)
      for (size_t a : upcast_axes)
        if (a != contiguous->second && target_.vector_registers >= 32 && s[a] % 2 == 0 &&
            try_opt({OptOp::UPCAST, static_cast<int64_t>(a), 2}))
          upcast_product *= 2;
    }
  }
  // CPU: a reduce that walks down the columns of a loaded input (its output axis contiguous in the
  // input, its reduce striding across rows: a column sum) uses one float of each cache line it reads per
  // output; with the output axis upcast by 64 (8 vector accumulators) every row step reads 4 whole lines
  // (colsum_4096: 72.8 -> 4.4 ms, the opts BEAM=2 picks)
  bool column_walk = false;
  if (!target_.has_local && has_reduce() && upcast_axes.empty() && upcasted_ == 0 && first_reduce() > 0) {
    size_t a = first_reduce() - 1;
    for (size_t b = 0; b < nbufs; b++) {
      auto out = stride_of(b, a), across = stride_of(b, first_reduce());
      column_walk = column_walk || (bufs_[b]->op == Ops::LOAD && out && *out == 1 && across && std::abs(*across) > 1);
    }
    for (int64_t amt : {16, 4}) {
      std::vector<int64_t> s = full_shape();
      if (column_walk && s[a] % amt == 0 && s[a] > amt && try_opt({OptOp::UPCAST, static_cast<int64_t>(a), amt})) upcast_product *= amt;
    }
  }
  // unroll the reduce
  if (has_reduce() && first_reduce() < first_upcast()) {
    std::vector<int64_t> s = full_shape();
    size_t last_reduce = first_upcast() - 1;
    int64_t last = s[last_reduce];
    if (upcast_product < 64 || cpu_tile || column_walk) {
      if (last <= 32 && last > 1) {
        try_opt({OptOp::UNROLL, static_cast<int64_t>(last_reduce - first_reduce()), 0});
      } else if (last % 4 == 0) {
        try_opt({OptOp::UNROLL, static_cast<int64_t>(last_reduce - first_reduce()), 4});
      }
    }
  }
  // nothing upcast yet and the last output axis divides by 4: upcast 4 (vector loads and stores). Not
  // for a CPU kernel without a reduce: clang vectorizes its plain loop to the machine's full width
  // (AVX-512 here), which four scalar lanes only get in the way of (a softmax ran 0.53x NOOPT).
  if (upcasted_ == 0 && first_reduce() > 0 && (target_.has_local || has_reduce())) {
    std::vector<int64_t> s = full_shape();
    size_t a = first_reduce() - 1;
    if (s[a] % 4 == 0 && s[a] > 4) try_opt({OptOp::UPCAST, static_cast<int64_t>(a), 4});
  }
  // A CPU kernel without a reduce of its own whose nested reduce is read along every output axis runs
  // that reduce once per output element (a weight gradient summing over the batch). Upcasting an axis
  // by 4 computes the part of it that does not depend on the axis (the softmax backward) once for 4
  // outputs. A nested reduce some axis does not read (a softmax's row max) already runs once outside
  // that axis's loop: nothing to share, so nothing is upcast.
  if (!target_.has_local && upcasted_ == 0 && !has_reduce() && has_nested_reduce()) {
    std::vector<int64_t> s = full_shape();
    auto read_along = [&](size_t b, size_t a) {
      std::optional<int64_t> st = stride_of(b, a);
      return !st || *st != 0;
    };
    bool per_element = false;
    for (size_t b = 0; b < nbufs; b++) {
      if (!is_nested_reduce(bufs_[b].get())) continue;
      bool every_axis = true;
      for (size_t a = 0; a < first_reduce(); a++) every_axis = every_axis && (s[a] == 1 || read_along(b, a));
      per_element = per_element || every_axis;
    }
    for (size_t a = first_reduce(); per_element && a-- > 0;)
      if (s[a] % 4 == 0 && s[a] > 4 && try_opt({OptOp::UPCAST, static_cast<int64_t>(a), 4})) break;
  }
  if (target_.has_local) apply_local_heuristic();
}

// GPU work-groups (tinygrad's): rank the global axes, broadcast ones (stride 0 in some buffer) first, then
// later axes first; give each the first of 32 (axis 0 only), 16, 8, 4, 3, 2 that divides it while the
// group stays <= 128 threads; apply up to three, in axis order.
void Kernel::apply_local_heuristic() {
  std::vector<int64_t> fs = full_shape();
  std::vector<std::pair<bool, size_t>> ranking;
  for (size_t a = 0; a < first_reduce(); a++) {
    bool broadcast = false;
    for (size_t b = 0; b < sts_.size(); b++) {
      auto st = stride_of(b, a);
      broadcast = broadcast || (st && *st == 0);
    }
    ranking.push_back({broadcast, a});
  }
  std::sort(ranking.begin(), ranking.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first > y.first : x.second > y.second;
  });
  std::vector<std::pair<size_t, int64_t>> to_local;
  for (const auto& [broadcast, axis] : ranking) {
    int64_t group = 1;
    for (const auto& [a, sz] : to_local) group *= sz;
    std::vector<int64_t> sizes = axis == 0 ? std::vector<int64_t>{32, 16, 8, 4, 3, 2} : std::vector<int64_t>{16, 8, 4, 3, 2};
    for (int64_t sz : sizes)
      if (fs[axis] % sz == 0 && group * sz <= 128) {
        to_local.push_back({axis, sz});
        break;
      }
  }
  if (to_local.size() > 3) to_local.resize(3);
  std::sort(to_local.begin(), to_local.end());
  size_t deleted = 0;  // a LOCAL of a whole axis removes it (simplify_ones)
  for (auto [axis, sz] : to_local) {
    size_t a = axis - deleted;
    bool whole = full_shape()[a] == sz;
    try {
      apply_opt({OptOp::LOCAL, static_cast<int64_t>(a), sz});
      if (whole) deleted++;
    } catch (const KernelOptError&) {
    }
  }
}

} // namespace loupe
