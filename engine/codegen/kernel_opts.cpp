// Kernel optimizations: applying one Opt (checks, then a shift of one axis into the right place for
// every tracker). The hand-coded heuristics that choose them are in heuristics.cpp.
#include <algorithm>
#include <numeric>

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
  case OptOp::STAGE: return "STAGE";
  }
  return "?";
}

std::string Opt::str() const {
  return cat("Opt(op=OptOps.", opt_op_name(op), ", axis=", axis, ", arg=", arg, ")");
}

Opt Opt::parse(const std::string& text) {
  auto field = [&](const std::string& key) -> std::string {
    size_t at = text.find(key);
    if (at == std::string::npos) throw Error(cat("not an opt: '", text, "' (no ", key, ")"));
    at += key.size();
    size_t end = text.find_first_of(",)", at);
    return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
  };
  std::string name = field("op=OptOps.");
  Opt o{OptOp::UPCAST};
  bool known = false;
  for (OptOp op : kAllOptOps)
    if (name == opt_op_name(op)) o.op = op, known = true;
  if (!known) throw Error(cat("not an opt: '", text, "' (unknown op ", name, ")"));
  try {
    o.axis = std::stoll(field("axis="));
    o.arg = std::stoll(field("arg="));
  } catch (const std::logic_error&) {
    throw Error(cat("not an opt: '", text, "' (axis and arg must be integers)"));
  }
  return o;
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

// The amount an opt splits off its axis (0: the whole axis), checked against the axis's extent.
int64_t Kernel::checked_amount(const Opt& opt, size_t axis, const std::vector<int64_t>& fs) const {
  if (opt.op == OptOp::SWAP) {
    check(opt.axis < opt.arg && opt.arg < static_cast<int64_t>(global_dims()), opt, "SWAP needs two global axes");
    return opt.arg;
  }
  if (opt.op == OptOp::NOLOCALS) return opt.arg;
  // a symbolic extent has no amount that divides it for every value of its variables (tinygrad refuses
  // these the same way); its loop stays a loop
  check(!axis_is_symbolic(axis), opt, cat("axis ", axis, " has the symbolic extent ", sym_full_shape()[axis].str()));
  int64_t amt = opt.arg != 0 ? opt.arg : fs[axis];
  check(amt != 1, opt, "an amount of 1 is meaningless");
  check(amt > 0 && fs[axis] > 0, opt, "an empty axis cannot be split");
  if (opt.op != OptOp::PADTO) check(fs[axis] % amt == 0, opt, cat("axis of size ", fs[axis], " is not divisible by ", amt));
  return amt;
}

// A GROUP's accumulators, with the upcasts and the locals already there, must fit in shared memory.
void Kernel::check_group_fits(const Opt& opt, int64_t amt, const std::vector<int64_t>& fs) const {
  int64_t acc_sz = 4, upcast_sz = 1, local_sz = 1;
  std::vector<int64_t> os = output_shape();
  for (size_t i = first_upcast(); i < fs.size(); i++)
    if (fs[i] == os[i]) upcast_sz *= fs[i];
  for (size_t i = first_reduce() - local_dims_; i < first_reduce() + group_for_reduces_; i++) local_sz *= fs[i];
  check(amt * acc_sz * upcast_sz * local_sz <= target_.shared_max, opt, "exceeds the shared memory size");
}

void Kernel::apply_unroll(const Opt& opt, size_t axis, int64_t amt, const std::vector<int64_t>& fs) {
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
  // A whole K axis unrolled after TC leaves a reduce axis of size 1 just after the warp's lanes, where
  // simplify_ones would count it as a local one and demote a lane to a global axis: drop it here.
  // (Other kernels keep tinygrad's counting: their plans, timed as they are, stay the same.)
  if (tc_ && fs[axis] == amt) {
    std::vector<int64_t> perm;
    for (size_t i = 0; i < shape_len(); i++)
      if (i != axis) perm.push_back(static_cast<int64_t>(i));
    perm.push_back(static_cast<int64_t>(axis));
    reshape_and_permute(nullptr, &perm);  // to the end, among the upcasts, where simplify_ones drops it
    upcasted_++;
  }
}

void Kernel::apply_padto(const Opt& opt, size_t axis, int64_t amt, const std::vector<int64_t>& fs) {
  check(vars().empty(), opt, "does not work with symbolic shapes");
  check(axis < first_upcast(), opt, "cannot pad an upcast axis");
  int64_t padded = (fs[axis] + amt - 1) / amt * amt;
  check(padded - fs[axis] < fs[axis] * 4, opt, "pads more than 4x");
  if (axis >= first_reduce()) {
    for (const UOp* r : reduceops_) check(r->arg.as_tuple()[0].as_op() == Ops::ADD, opt, "can only pad an ADD reduce");
    for (const UOp* u : ast_->toposort()) check(!op_in(u->op, kUnsafePad), opt, "an op that is not zero at zero");
  }
  // An output axis's padded elements feed only padded outputs, whose stores are masked off: a load
  // whose new elements still read inside its buffer keeps reading there unmasked (a matmul's packed
  // panels padded with zeros to the tile's width, or an operand broadcast along the axis), so the
  // tile's inner loop carries no condition. (Not past a nested reduce, whose own trackers read along
  // other axes.)
  const bool output_axis = axis < first_reduce() && !has_nested_;
  for (size_t i = 0; i < sts_.size(); i++) {
    ShapeTracker& st = sts_[i];
    if (st.shape()[axis] == 1) continue;
    if (output_axis && i < bufs_.size() && bufs_[i]->op == Ops::LOAD && !bufs_[i]->src.empty()) {
      if (auto grown = st.extended(axis, padded, bufs_[i]->src[0]->dtype.ptr_size)) {
        st = *grown;
        continue;
      }
    }
    Ranges p(st.ndim(), Range{0, 0});
    p[axis] = Range{0, padded - fs[axis]};
    st = st.pad(p);
  }
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
  if (opt.op == OptOp::STAGE) {
    apply_stage(opt);
    applied_opts_.push_back(opt);
    return;
  }
  if (tc_) {  // the warp's lanes and the mma's own axes stay where the lowerer expects them
    check(((opt.op == OptOp::UPCAST || opt.op == OptOp::LOCAL) && static_cast<size_t>(opt.axis) < global_dims()) ||
              opt.op == OptOp::UNROLL,
          opt, "after TC only UPCAST and LOCAL of global axes and UNROLL of the K steps apply");
    check(opt.op != OptOp::LOCAL || local_dims_ < 4, opt, "a TC kernel has at most two more local axes (warps)");
  }
  size_t axis = real_axis(opt);
  std::vector<int64_t> fs = full_shape();
  check(axis < fs.size(), opt, cat("invalid axis for a kernel of ", fs.size(), " axes"));
  const int64_t amt = checked_amount(opt, axis, fs);
  if (has_reduce() && (opt.op == OptOp::GROUP || opt.op == OptOp::GROUPTOP)) check_group_fits(opt, amt, fs);
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
  case OptOp::UNROLL: apply_unroll(opt, axis, amt, fs); break;
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
  case OptOp::PADTO: apply_padto(opt, axis, amt, fs); break;
  case OptOp::TC:
  case OptOp::STAGE: break;
  }
  simplify_ones();
  if (staging_.any()) check_staging(opt);  // a bigger tile may no longer fit
  applied_opts_.push_back(opt);
}

void Kernel::apply_opts(const std::vector<Opt>& opts) {
  for (const Opt& o : opts) apply_opt(o);
}

size_t Kernel::tracker_of(const UOp* node) const {
  auto it = std::find_if(bufs_.begin(), bufs_.end(), [&](const UOpPtr& b) { return b.get() == node; });
  LOUPE_ASSERT(it != bufs_.end(), "a ", op_name(node->op), " without a tracker");
  return static_cast<size_t>(it - bufs_.begin());
}

std::optional<int64_t> Kernel::stride_of(size_t buf, size_t axis) const {
  auto rs = sts_[buf].real_strides();
  if (axis >= rs.size() || !rs[axis] || !rs[axis]->is_int()) return std::nullopt;
  return rs[axis]->as_int();
}

} // namespace loupe
