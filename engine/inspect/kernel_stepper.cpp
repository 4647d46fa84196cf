#include "inspect/kernel_stepper.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <cstring>
#include <map>
#include <unordered_map>
#include <tuple>
#include <unordered_set>

#include "codegen/pipeline.h"
#include "inspect/kernel_rerun.h"
#include "ir/print.h"
#include "render/linear_analysis.h"
#include "runtime/interp/interp_device.h"
#include "support/error.h"
#include "support/hash.h"

namespace loupe {

namespace {

using interp::Lane;
using interp::LinearProgram;

// Pass 1: which work-item, at which iterations of the loops around the store, writes the element last.
class StoreFinder : public interp::ExecutionWatcher {
public:
  StoreFinder(const LinearProgram& p, int output, int64_t element) : p_(p), output_(output), element_(element) {}
  bool watch_item(int64_t) override { return true; }
  void executed(const interp::ExecutedStep& s, const Lane* slots) override {
    if (!s.access || s.access->buffer != output_ || s.access->gated_off || p_.uops()[static_cast<size_t>(s.uop)]->op != Ops::STORE) return;
    if (element_ < s.access->element || element_ >= s.access->element + s.lanes) return;
    found = true;
    item = s.item;
    store_uop = s.uop;
    loops.clear();
    for (int r : p_.enclosing_ranges(s.uop)) loops[r] = slots[p_.slot_of(r)].i;
  }
  bool found = false;
  int64_t item = 0;
  int store_uop = -1;
  std::map<int, int64_t> loops;  // RANGE position -> iteration

private:
  const LinearProgram& p_;
  int output_;
  int64_t element_;
};

// Pass 2: every step of that work-item (of its whole group where the items run in step) inside those
// iterations.
class Recorder : public interp::ExecutionWatcher {
public:
  Recorder(const LinearProgram& p, const StoreFinder& f, KernelStepping& out, size_t max_steps)
      : p_(p), f_(f), out_(out), max_(max_steps) {}
  bool watch_item(int64_t item) override { return item / out_.group_items == f_.item / out_.group_items; }
  void executed(const interp::ExecutedStep& s, const Lane* slots) override {
    const std::vector<int>& around = p_.enclosing_ranges(s.uop);
    for (int r : around)
      if (auto it = f_.loops.find(r); it != f_.loops.end() && slots[p_.slot_of(r)].i != it->second) return;
    // past the limit the other items of the group are cut first: the storing item's own steps (up to
    // twice the limit) keep the store and what leads to it
    if (out_.steps.size() >= max_ && (s.item != f_.item || out_.steps.size() >= 2 * max_)) {
      out_.truncated = true;
      return;
    }
    SteppedUOp st;
    st.uop = s.uop;
    st.item = s.item;
    if (s.value) st.lanes.assign(s.value, s.value + s.lanes);
    for (int r : around) st.loops.emplace_back(r, slots[p_.slot_of(r)].i);
    if (s.access) st.access = *s.access;
    out_.steps.push_back(std::move(st));
  }

private:
  const LinearProgram& p_;
  const StoreFinder& f_;
  KernelStepping& out_;
  size_t max_;
};

// The operands a WMMA's output lane `l` (at step `st`) combines, from the fragments of its wave's lanes
// (the matrix unit's layout, render/matrix_unit.h): for each k, A[r][k] and B[k][c] as (work-item,
// source position), and the source of C, which is the item's own.
struct WmmaOperands {
  std::array<std::pair<int64_t, int>, 16> a{}, b{};
  int c_source = 0;
};
WmmaOperands wmma_operands(const KernelStepping& s, const SteppedUOp& st, const UOp* wmma, int l) {
  const MatrixUnit unit = matrix_op_of_kind(wmma->arg.as_string()).value().unit;  // the interpreter checked it
  const MatrixUnitShape& t = matrix_unit_shape(unit);
  const int lane = static_cast<int>(st.item % s.group_items % t.lanes);
  const FragmentPlace out = fragment_c_place(unit, lane, l);
  WmmaOperands o;
  for (int w = 0; w < t.lanes; w++) {
    const int64_t item = st.item - lane + w;
    for (int i = 0; i < t.a; i++)
      if (FragmentPlace p = fragment_a_place(unit, w, i); p.row == out.row) o.a.at(static_cast<size_t>(p.col)) = {item, i};
    for (int i = 0; i < t.b; i++)
      if (FragmentPlace p = fragment_b_place(unit, w, i); p.col == out.col) o.b.at(static_cast<size_t>(p.row)) = {item, t.a + i};
  }
  o.c_source = t.a + t.b + l;
  return o;
}

// The work-item whose value a SHUFFLE_XOR (at step `st`) reads: the lane of its group at the arg's xor.
int64_t shuffle_partner(const KernelStepping& s, const SteppedUOp& st, const UOp* shuffle) {
  const int64_t in_group = st.item % s.group_items;
  return st.item - in_group + (in_group ^ shuffle->arg.as_tuple().at(0).as_int());
}

std::string target_of_device(const std::string& device) {
  std::string base = device.substr(0, device.find(':'));
  if (base == "CUDA" || base == "OPENCL" || base == "LLVM") return base;
  if (base == "INTERP") return interp_target_from_env();
  return "CPU";
}

} // namespace

KernelStepping step_program(const LinearProgram& program, std::vector<std::string> buffers, const StepRequest& request,
                            const std::vector<int64_t>& vars) {
  const std::vector<BufferParam>& params = program.buffers();
  if (buffers.size() != params.size())
    throw Error(cat(program.name(), " takes ", params.size(), " buffers, ", buffers.size(), " given"));
  int output = request.output;
  if (output < 0)
    for (const BufferParam& b : params)
      if (b.is_mutable) {
        output = static_cast<int>(b.index);
        break;
      }
  const BufferParam* out_param = nullptr;
  size_t out_pos = 0;
  for (size_t i = 0; i < params.size(); i++)
    if (params[i].index == output) out_param = &params[i], out_pos = i;
  if (!out_param || !out_param->is_mutable) throw Error(cat(program.name(), " writes no buffer data", output));
  DType dt = out_param->dtype.base().scalar();
  int64_t elements = static_cast<int64_t>(buffers[out_pos].size()) / std::max(1, dt.itemsize());
  if (request.element < 0 || request.element >= elements)
    throw Error(cat("element ", request.element, " is outside data", output, " of ", program.name(), " (", elements, " elements)"));
  // a grid size over the kernel's variables: at these values
  LaunchDims global = program.global();
  if (vars.size() == program.vars().size()) {
    VarValues named;
    for (size_t i = 0; i < vars.size(); i++) named[program.vars()[i].name] = vars[i];
    for (size_t d = 0; d < 3; d++)
      if (program.global_sym()[d]) global[d] = eval_int(program.global_sym()[d], named);
  }
  auto run_on_copy = [&](interp::ExecutionWatcher& w, std::vector<std::string>& bufs) {
    std::vector<void*> ptrs;
    for (std::string& b : bufs) ptrs.push_back(b.data());
    program.run(ptrs, vars, global, program.local(), &w);
  };
  StoreFinder finder(program, output, request.element);
  std::vector<std::string> first = buffers;
  run_on_copy(finder, first);
  if (!finder.found) throw Error(cat(program.name(), " never stores element ", request.element, " of data", output));
  KernelStepping s;
  s.kernel = program.name();
  s.program = program.uops();
  s.output = output;
  s.element = request.element;
  s.item = finder.item;
  s.group_items = program.runs_groups_in_step() ? program.local()[0] * program.local()[1] * program.local()[2] : 1;
  s.dtype = dt;
  Recorder rec(program, finder, s, request.max_steps);
  run_on_copy(rec, buffers);
  s.value = interp::load_element(buffers[out_pos].data(), request.element, dt);
  std::vector<std::vector<char>> slice = dependency_slice(s);
  for (size_t i = 0; i < s.steps.size(); i++) s.steps[i].depends = std::move(slice[i]);
  return s;
}

int64_t find_trace_kernel(TraceReader& reader, const std::string& name_or_id) {
  // the name it ran under or the one it was planned under
  if (std::vector<int64_t> named = reader.kernels_named(name_or_id); !named.empty()) return named.front();
  std::vector<TraceKernel> ks = reader.kernels();
  bool digits = !name_or_id.empty() && std::all_of(name_or_id.begin(), name_or_id.end(), ::isdigit);
  if (digits)
    for (const TraceKernel& k : ks)
      if (k.id == std::stoll(name_or_id)) return k.id;
  std::string names;
  for (size_t i = 0; i < ks.size() && i < 8; i++) names += (i ? ", " : "") + ks[i].name;
  throw Error(cat("no kernel '", name_or_id, "' in the trace (", ks.size(), " kernels: ", names, ks.size() > 8 ? ", ..." : "", ")"));
}

TraceKernelProgram plan_trace_kernel(TraceReader& reader, int64_t kernel_id, const StepVariant& variant) {
  TraceKernel k = reader.kernel(kernel_id);
  if (k.scheduled_ast_id < 0) throw Error(cat("the trace has no scheduled AST for ", k.name, " (recorded by an older Loupe): record it again"));
  UOpPtr ast = reader.node(k.scheduled_ast_id);
  const std::string ran_on = target_of_device(k.device);
  TraceKernelProgram out;
  out.target = variant.target.empty() ? ran_on : variant.target;
  out.variant = variant.noopt ? "noopt" : "optimized";
  out.other_target = out.target != ran_on;
  if (out.other_target) out.variant += " for " + out.target;
  InterpRenderer renderer(out.target);
  if (variant.noopt) {
    out.plan = plan_kernel(ast, renderer, true);
  } else {
    // the hand-coded heuristics see the target's caps, so they choose what they chose when it ran;
    // opts from elsewhere (BEAM) are applied as recorded (on another target, the heuristics' own)
    out.plan = plan_kernel(ast, renderer, false);
    if (out.target == ran_on && out.plan.applied_opts != k.opts) {
      std::vector<Opt> opts;
      for (const std::string& o : k.opts) opts.push_back(Opt::parse(o));
      try {
        out.plan = plan_kernel(ast, renderer, opts);
      } catch (const KernelOptError& e) {
        std::string mine, theirs;
        for (const std::string& o : out.plan.applied_opts) mine += " " + o;
        for (const std::string& o : k.opts) theirs += " " + o;
        throw Error(cat("cannot rebuild ", k.name, " with its recorded opts: ", e.what(), " (recorded:", theirs, "; the heuristics now:", mine, ")"));
      }
    }
  }
  out.spelled_as = renderer.spelled_as();
  RenderedKernel written = renderer_of_target(out.target)->render(out.plan.name, out.plan.linear);
  out.source = std::move(written.source);
  out.source_lines = std::move(written.uop_lines);
  return out;
}

KernelStepping step_trace_kernel(TraceReader& reader, int64_t kernel_id, const StepRequest& request, const StepVariant& variant,
                                 const RerunInputs* rerun) {
  std::vector<std::string> inputs = rerun ? rerun->buffers : reader.kernel_inputs(kernel_id);
  if (inputs.empty())
    throw Error(cat("the trace kept no inputs of ", reader.kernel(kernel_id).name,
                    ": its buffers were larger than TRACE_INPUTS allowed when it was recorded (default 1 MiB per kernel),"
                    " or the trace is older than input recording; re-run the program for them, or record it again with"
                    " TRACE_INPUTS=<bytes> set higher"));
  TraceKernelProgram planned = plan_trace_kernel(reader, kernel_id, variant);
  LinearProgram program(planned.plan.name, planned.plan.linear, planned.spelled_as);
  // symbolic shapes: the values asked for, else those of the first recorded run (the inputs are its)
  std::vector<int64_t> vars;
  if (!program.vars().empty()) {
    VarValues recorded;
    for (const TraceEvent& e : reader.profile())
      if (e.kind == "kernel" && e.kernel_id == kernel_id && !e.var_vals.empty()) {
        for (const auto& [name, value] : e.var_vals) recorded[name] = value;
        break;
      }
    for (const VarParam& v : program.vars()) {
      auto asked = request.vars.find(v.name);
      auto ran = recorded.find(v.name);
      if (asked != request.vars.end()) vars.push_back(asked->second);
      else if (ran != recorded.end()) vars.push_back(ran->second);
      else throw Error(cat(planned.plan.name, " takes the variable ", v.name, " in [", v.min, ", ", v.max,
                           "]; the trace recorded no value for it: give one"));
      if (vars.back() < v.min || vars.back() > v.max)
        throw Error(cat(planned.plan.name, ": variable ", v.name, " = ", vars.back(), " is outside [", v.min, ", ", v.max, "]"));
    }
  }
  KernelStepping s = step_program(program, std::move(inputs), request, vars);
  s.variant = std::move(planned.variant);
  s.noopt = variant.noopt;
  s.other_target = planned.other_target;
  s.target = std::move(planned.target);
  s.source = std::move(planned.source);
  s.source_lines = std::move(planned.source_lines);
  if (rerun) s.note = rerun->note;
  return s;
}

// ---- first divergence ----

namespace {

// What a value computes, lane by lane: a hash over the loaded elements and constants it combines, with
// sums, products and maxima as multisets so that association and order do not matter.
struct Fp {
  uint64_t h = 0;          // canonical hash
  Ops ac = Ops::NOOP;      // ADD / MUL / MAX: the multiset's op
  uint64_t sum = 0;        // the multiset (sum of element hashes)
  bool data = false;       // depends on a loaded element
  bool partial = false;    // an accumulator's running value (not comparable until it leaves the loop)
  bool seed = false;       // an accumulator's initial value
  int terms = 0;           // ADD / MUL: elements in the multiset
  bool reordered = false;  // computed from a sum or product of 3 or more terms: another order may round differently
};

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}
uint64_t comb(uint64_t a, uint64_t b) { return mix(a * 0x9E3779B97F4A7C15ULL + b + 0x632BE59BD9B4E019ULL); }

bool is_identity(const UOp* u, Ops op) {
  if (u->op != Ops::CONST) return false;
  double v = u->arg.is_float() ? u->arg.as_float() : u->arg.is_int() ? double(u->arg.as_int()) : double(u->arg.as_bool());
  return (op == Ops::ADD && v == 0) || (op == Ops::MUL && v == 1) || (op == Ops::MAX && std::isinf(v) && v < 0);
}

struct Fingerprints {
  std::vector<std::vector<Fp>> per_step;  // lanes of each step
};

// Fingerprints every step of a stepping in order. The current value of each (work-item, UOp) is kept;
// memory is shared, so a value stored to local memory by one item is what another item's load of it
// computes.
class Fingerprinter {
public:
  explicit Fingerprinter(const KernelStepping& s) : s_(s), n_uops_(static_cast<int64_t>(s.program.size())) {
    for (size_t i = 0; i < s.program.size(); i++) pos_.emplace(s.program[i].get(), static_cast<int>(i));
  }

  Fingerprints run() {
    Fingerprints out;
    for (size_t i = 0; i < s_.steps.size(); i++) {
      const SteppedUOp& st = s_.steps[i];
      const UOp* u = s_.program[static_cast<size_t>(st.uop)].get();
      item_key_ = st.item * n_uops_;
      int n = std::max<int>(1, static_cast<int>(st.lanes.size()));
      std::vector<Fp> lanes(static_cast<size_t>(n));
      for (int l = 0; l < n; l++) lanes[static_cast<size_t>(l)] = lane_fp(i, st, u, l);
      cur_[item_key_ + st.uop] = lanes;
      if (u->op == Ops::ASSIGN)
        if (auto p = pos_.find(accumulator_of(u)); p != pos_.end()) cur_[item_key_ + p->second] = lanes;
      out.per_step.push_back(std::move(lanes));
    }
    return out;
  }

private:
  static Fp const_fp(const UOp* c, int lane) {
    const Arg& a = c->op == Ops::VCONST ? c->arg.as_tuple().at(static_cast<size_t>(lane)) : c->arg;
    return Fp{comb(0xC0, std::hash<std::string>()(a.str()))};
  }

  static Fp finalized(Fp f) {
    f.partial = false;
    f.seed = false;
    return f;
  }

  // A source's current value at a lane, for the item being fingerprinted.
  Fp src_fp(const UOp* u, int lane) const {
    u = accumulator_of(u);
    if (u->op == Ops::CONST || u->op == Ops::VCONST) return const_fp(u, u->dtype.count > 1 ? lane : 0);
    auto p = pos_.find(u);
    if (p == pos_.end()) return Fp{comb(0xDEAD, reinterpret_cast<uintptr_t>(u))};
    auto c = cur_.find(item_key_ + p->second);
    if (c == cur_.end() || c->second.empty()) return Fp{comb(0xF00, static_cast<uint64_t>(p->second))};
    return c->second[c->second.size() > 1 ? static_cast<size_t>(lane) : 0];
  }

  // A source's value as another item holds it (a warp op reads across items).
  Fp src_fp_of_item(const UOp* u, int64_t item) {
    const int64_t own = item_key_;
    item_key_ = item * n_uops_;
    Fp f = src_fp(u, 0);
    item_key_ = own;
    return f;
  }

  // What lane l of step i computes.
  Fp lane_fp(size_t i, const SteppedUOp& st, const UOp* u, int l) {
    switch (u->op) {
    case Ops::LOAD: {
      const interp::MemoryAccess& a = *st.access;
      if (a.gated_off) return src_fp(u->src[1].get(), l);
      auto m = mem_.find({a.buffer, a.element + l});
      return m != mem_.end() ? m->second
                             : Fp{comb(comb(0x1D, static_cast<uint64_t>(a.buffer)), static_cast<uint64_t>(a.element + l)), Ops::NOOP, 0, true};
    }
    case Ops::STORE: {
      Fp f = finalized(src_fp(u->src[1].get(), l));
      if (st.access && !st.access->gated_off) mem_[{st.access->buffer, st.access->element + l}] = f;
      return f;
    }
    case Ops::DEFINE_ACC: return Fp{comb(0xACC, static_cast<uint64_t>(st.uop)), Ops::NOOP, 0, false, true, true};
    case Ops::ASSIGN: return src_fp(u->src[1].get(), l);
    case Ops::GEP: return src_fp(u->src[0].get(), static_cast<int>(u->arg.as_tuple().at(static_cast<size_t>(l)).as_int()));
    case Ops::VECTORIZE: {
      int k = l;
      for (const UOpPtr& x : u->src) {
        if (k < x->dtype.count) return src_fp(x.get(), k);
        k -= x->dtype.count;
      }
      return Fp{};
    }
    case Ops::NOOP: return src_fp(u->src[0].get(), l);
    case Ops::WMMA: return wmma_fp(st, u, l);
    case Ops::SHUFFLE_XOR: return src_fp_of_item(u->src[0].get(), shuffle_partner(s_, st, u));  // another lane's value, as it holds it
    case Ops::CAST:  // a float widened holds the same value: what it computes is unchanged
      if (u->dtype.scalar().is_float() && u->src[0]->dtype.scalar().is_float() &&
          u->dtype.scalar().itemsize() > u->src[0]->dtype.scalar().itemsize())
        return src_fp(u->src[0].get(), l);
      return computed_fp(i, st, u, l);
    default: return computed_fp(i, st, u, l);
    }
  }

  // C + the 16 products of row r of A and column c of B, as the sum they are.
  Fp wmma_fp(const SteppedUOp& st, const UOp* u, int l) {
    Fp f;
    const WmmaOperands ops = wmma_operands(s_, st, u, l);
    auto operand = [&](std::pair<int64_t, int> at) {  // of another item of the warp
      return src_fp_of_item(u->src[static_cast<size_t>(at.second)].get(), at.first);
    };
    for (size_t k = 0; k < 16; k++) {
      const uint64_t product = mix(operand(ops.a[k]).h) + mix(operand(ops.b[k]).h);  // a MUL of the two, as the ALU case hashes it
      f.sum += mix(comb(comb(0xAC, static_cast<uint64_t>(Ops::MUL)), product));
    }
    const Fp c = src_fp(u->src[static_cast<size_t>(ops.c_source)].get(), 0);
    f.ac = Ops::ADD;
    f.partial = c.partial;
    f.data = true;
    if (!c.seed) f.sum += c.ac == Ops::ADD ? c.sum : mix(c.h);
    f.h = comb(comb(0xAC, static_cast<uint64_t>(Ops::ADD)), f.sum);
    return f;
  }

  // An ALU op (sums, products and maxima as multisets), a conversion, or index math.
  Fp computed_fp(size_t i, const SteppedUOp& st, const UOp* u, int l) const {
    Fp f;
    if (u->op == Ops::ADD || u->op == Ops::MUL || u->op == Ops::MAX) {
      f.ac = u->op;
      for (const UOpPtr& x : u->src) {
        if (is_identity(x.get(), u->op)) continue;
        Fp o = src_fp(x.get(), l);
        f.data = f.data || o.data;
        f.partial = f.partial || o.partial;
        f.reordered = f.reordered || o.reordered;
        if (o.seed) continue;
        f.sum += o.ac == u->op ? o.sum : mix(o.h);
        f.terms += o.ac == u->op ? o.terms : 1;
      }
      f.h = comb(comb(0xAC, static_cast<uint64_t>(u->op)), f.sum);
      f.reordered = f.reordered || (u->op != Ops::MAX && f.terms >= 3);  // (a max is exact in any order)
    } else if (is_alu(u->op) || u->op == Ops::CAST || u->op == Ops::BITCAST) {
      std::vector<uint64_t> hs;
      for (const UOpPtr& x : u->src) {
        Fp o = src_fp(x.get(), l);
        f.data = f.data || o.data;
        f.reordered = f.reordered || o.reordered;
        hs.push_back(o.h);
      }
      if (op_in(u->op, kCommutative)) std::sort(hs.begin(), hs.end());
      f.h = comb(static_cast<uint64_t>(u->op), u->dtype.scalar().itemsize());
      for (uint64_t h : hs) f.h = comb(f.h, h);
    } else {  // index math, launch ids, loop counters: compared through the loads they address
      f = Fp{comb(comb(0x1DE, static_cast<uint64_t>(st.uop)), i)};
    }
    return f;
  }

  const KernelStepping& s_;
  const int64_t n_uops_;
  std::unordered_map<const UOp*, int> pos_;
  std::unordered_map<int64_t, std::vector<Fp>> cur_;
  int64_t item_key_ = 0;  // item * n_uops of the step being fingerprinted
  std::map<std::pair<int, int64_t>, Fp> mem_;
};

Fingerprints fingerprint(const KernelStepping& s) { return Fingerprinter(s).run(); }

bool comparable(const UOp* u, const Fp& f) {
  return f.data && !f.partial && u->op != Ops::DEFINE_ACC && u->op != Ops::ASSIGN && !u->dtype.is_ptr;
}

} // namespace

Divergence first_divergence(const KernelStepping& a, const KernelStepping& b) {
  Fingerprints fa = fingerprint(a), fb = fingerprint(b);
  auto sliced = [](const KernelStepping& s, size_t i, size_t l) {
    const std::vector<char>& v = s.steps[i].depends;
    return l < v.size() && v[l];
  };
  auto loads_of = [&](const KernelStepping& s) {
    std::unordered_set<uint64_t> set;
    for (size_t i = 0; i < s.steps.size(); i++) {
      const SteppedUOp& st = s.steps[i];
      if (st.access && st.access->buffer >= 0 && !st.access->gated_off && s.program[static_cast<size_t>(st.uop)]->op == Ops::LOAD)
        for (size_t l = 0; l < std::max<size_t>(1, st.lanes.size()); l++)
          if (sliced(s, i, l)) set.insert(comb(static_cast<uint64_t>(st.access->buffer), static_cast<uint64_t>(st.access->element) + l));
    }
    return set;
  };
  std::unordered_set<uint64_t> la = loads_of(a), lb = loads_of(b);
  Divergence d;
  auto first_load_missing = [&](const KernelStepping& s, const std::unordered_set<uint64_t>& other, bool is_a) {
    for (size_t i = 0; i < s.steps.size(); i++) {
      const SteppedUOp& st = s.steps[i];
      if (!st.access || st.access->buffer < 0 || st.access->gated_off || s.program[static_cast<size_t>(st.uop)]->op != Ops::LOAD) continue;
      for (size_t l = 0; l < std::max<size_t>(1, st.lanes.size()); l++)
        if (sliced(s, i, l) && !other.contains(comb(static_cast<uint64_t>(st.access->buffer), static_cast<uint64_t>(st.access->element) + l))) {
          d.kind = Divergence::Kind::address;
          (is_a ? d.step_a : d.step_b) = i;
          d.lane = static_cast<int>(l);
          d.explanation = cat(is_a ? a.variant : b.variant, " reads data", st.access->buffer, "[", st.access->element + static_cast<int64_t>(l),
                              "], which ", is_a ? b.variant : a.variant, " never reads for this element: an indexing difference");
          return true;
        }
    }
    return false;
  };
  if (first_load_missing(a, lb, true) || first_load_missing(b, la, false)) return d;
  // every data value of b (running sums included: a's whole sum may be b's last running one)
  std::unordered_map<uint64_t, std::pair<size_t, int>> in_b;
  for (size_t i = 0; i < b.steps.size(); i++)
    for (size_t l = 0; l < fb.per_step[i].size() && l < b.steps[i].lanes.size(); l++)
      if (sliced(b, i, l) && fb.per_step[i][l].data) in_b.emplace(fb.per_step[i][l].h, std::make_pair(i, static_cast<int>(l)));
  // a part of a sum (or product, or max) that only feeds a bigger one is not a value of its own
  std::vector<char> absorbed(a.program.size(), 1);
  std::unordered_map<const UOp*, size_t> apos;
  for (size_t i = 0; i < a.program.size(); i++) apos.emplace(a.program[i].get(), i);
  for (const UOpPtr& c : a.program)
    for (const UOpPtr& x : c->src)
      if (auto p = apos.find(x.get()); p != apos.end() && c->op != x->op && c->op != Ops::ASSIGN) absorbed[p->second] = 0;
  size_t first_unmatched = SIZE_MAX;
  int unmatched_lane = 0;
  for (size_t i = 0; i < a.steps.size(); i++) {
    const UOp* u = a.program[static_cast<size_t>(a.steps[i].uop)].get();
    for (size_t l = 0; l < fa.per_step[i].size() && l < a.steps[i].lanes.size(); l++) {
      const Fp& f = fa.per_step[i][l];
      if (!sliced(a, i, l) || !comparable(u, f)) continue;
      auto it = in_b.find(f.h);
      if (it == in_b.end()) {
        bool own_value = f.ac == Ops::NOOP || !absorbed[static_cast<size_t>(a.steps[i].uop)];
        if (own_value && first_unmatched == SIZE_MAX) first_unmatched = i, unmatched_lane = static_cast<int>(l);
        continue;
      }
      const SteppedUOp& sb = b.steps[it->second.first];
      DType t = u->dtype.scalar();
      // a sum or product of the same elements in another order may round differently, and so may what
      // is computed from it
      if (f.ac != Ops::NOOP || f.reordered) continue;
      if (!interp::same_bits(a.steps[i].lanes[l], sb.lanes[static_cast<size_t>(it->second.second)], t)) {
        d.kind = Divergence::Kind::value;
        d.step_a = i;
        d.step_b = it->second.first;
        d.lane = static_cast<int>(l);
        d.explanation = cat("the same computation gives ", interp::format_lane(a.steps[i].lanes[l], t), " in ", a.variant, " and ",
                            interp::format_lane(sb.lanes[static_cast<size_t>(it->second.second)], t), " in ", b.variant,
                            " (rounding: a fused multiply-add or a different dtype on the way)");
        return d;
      }
    }
  }
  if (interp::same_bits(a.value, b.value, a.dtype)) {
    d.explanation = cat("no divergence: both compute ", interp::format_lane(a.value, a.dtype), " from the same elements");
    return d;
  }
  if (first_unmatched != SIZE_MAX) {
    d.kind = Divergence::Kind::computation;
    d.step_a = first_unmatched;
    d.lane = unmatched_lane;
    d.explanation = cat("the results differ (", interp::format_lane(a.value, a.dtype), " vs ", interp::format_lane(b.value, b.dtype),
                        "); this is the first value of ", a.variant, " that ", b.variant, " never computes from the same elements");
    return d;
  }
  d.kind = Divergence::Kind::result;
  d.explanation = cat("the results differ (", interp::format_lane(a.value, a.dtype), " vs ", interp::format_lane(b.value, b.dtype),
                      ") but every value matches: the same elements summed in a different order (float rounding)");
  return d;
}

std::vector<std::vector<char>> dependency_slice(const KernelStepping& s) {
  std::unordered_map<const UOp*, int> pos;
  for (size_t i = 0; i < s.program.size(); i++) pos.emplace(s.program[i].get(), static_cast<int>(i));
  using Ref = std::pair<int64_t, int>;  // (step, lane)
  std::map<std::tuple<int64_t, int, int>, Ref> def;  // (work-item, uop position, lane) -> the step that last wrote it
  std::map<std::pair<int, int64_t>, Ref> mem_def;    // (buffer, element) -> the STORE that last wrote it
  std::vector<std::vector<std::vector<Ref>>> deps(s.steps.size());
  int64_t item = 0;  // of the step being read
  std::function<void(const UOp*, int, std::vector<Ref>&)> def_of = [&](const UOp* src, int lane, std::vector<Ref>& out) {
    // an address is not a step of its own: its index is
    if (src->op == Ops::INDEX) return def_of(src->src.at(1).get(), 0, out);
    if (src->op == Ops::CAST && src->dtype.is_ptr) return def_of(src->src.at(0).get(), 0, out);
    src = accumulator_of(src);
    if (src->op == Ops::CONST || src->op == Ops::VCONST) return;
    auto p = pos.find(src);
    if (p == pos.end()) return;
    auto d = def.find({item, p->second, src->dtype.count > 1 ? lane : 0});
    if (d != def.end()) out.push_back(d->second);
  };
  int64_t store_step = -1;
  int store_lane = 0;
  for (size_t i = 0; i < s.steps.size(); i++) {
    const SteppedUOp& st = s.steps[i];
    const UOp* u = s.program[static_cast<size_t>(st.uop)].get();
    item = st.item;
    int n = std::max<int>(1, static_cast<int>(st.lanes.size()));
    deps[i].resize(static_cast<size_t>(n));
    for (int l = 0; l < n; l++) {
      std::vector<Ref>& d = deps[i][static_cast<size_t>(l)];
      switch (u->op) {
      case Ops::GEP: def_of(u->src[0].get(), static_cast<int>(u->arg.as_tuple().at(static_cast<size_t>(l)).as_int()), d); break;
      case Ops::VECTORIZE: {
        int k = l;
        for (const UOpPtr& x : u->src) {
          if (k < x->dtype.count) {
            def_of(x.get(), k, d);
            break;
          }
          k -= x->dtype.count;
        }
        break;
      }
      case Ops::LOAD:
        def_of(u->src[0].get(), 0, d);
        if (u->src.size() >= 3) def_of(u->src[2].get(), 0, d);
        if (st.access && st.access->gated_off) def_of(u->src[1].get(), l, d);
        else if (st.access)
          if (auto m = mem_def.find({st.access->buffer, st.access->element + l}); m != mem_def.end()) d.push_back(m->second);
        break;
      case Ops::STORE:
        def_of(u->src[0].get(), 0, d);
        def_of(u->src[1].get(), l, d);
        if (u->src.size() >= 3) def_of(u->src[2].get(), 0, d);
        break;
      case Ops::WMMA: {  // D[r][c]: row r of A and column c of B, from the fragments of the wave's lanes
        const WmmaOperands ops = wmma_operands(s, st, u, l);
        for (const auto* side : {&ops.a, &ops.b})
          for (const auto& [at_item, at_src] : *side) {
            item = at_item;
            def_of(u->src[static_cast<size_t>(at_src)].get(), 0, d);
          }
        item = st.item;
        def_of(u->src[static_cast<size_t>(ops.c_source)].get(), 0, d);
        break;
      }
      case Ops::SHUFFLE_XOR:
        item = shuffle_partner(s, st, u);
        def_of(u->src[0].get(), 0, d);
        item = st.item;
        break;
      default:
        for (const UOpPtr& x : u->src) def_of(x.get(), l, d);
      }
    }
    for (int l = 0; l < n; l++) def[{st.item, st.uop, l}] = Ref(static_cast<int64_t>(i), l);
    if (u->op == Ops::ASSIGN)
      if (auto p = pos.find(accumulator_of(u)); p != pos.end())
        for (int l = 0; l < n; l++) def[{st.item, p->second, l}] = Ref(static_cast<int64_t>(i), l);
    if (u->op == Ops::STORE && st.access && !st.access->gated_off) {
      for (int l = 0; l < n; l++) mem_def[{st.access->buffer, st.access->element + l}] = Ref(static_cast<int64_t>(i), l);
      if (st.access->buffer == s.output && st.item == s.item && s.element >= st.access->element && s.element < st.access->element + n) {
        store_step = static_cast<int64_t>(i);
        store_lane = static_cast<int>(s.element - st.access->element);
      }
    }
  }
  std::vector<std::vector<char>> in(s.steps.size());
  for (size_t i = 0; i < s.steps.size(); i++) in[i].assign(deps[i].size(), 0);
  if (store_step < 0) return in;
  std::vector<Ref> work{{store_step, store_lane}};
  while (!work.empty()) {
    auto [i, l] = work.back();
    work.pop_back();
    char& mark = in[static_cast<size_t>(i)][static_cast<size_t>(l)];
    if (mark) continue;
    mark = 1;
    for (const Ref& r : deps[static_cast<size_t>(i)][static_cast<size_t>(l)]) work.push_back(r);
  }
  return in;
}

std::string describe_step(const KernelStepping& s, const SteppedUOp& st) {
  const UOp* u = s.program[static_cast<size_t>(st.uop)].get();
  DType t = u->op == Ops::STORE ? u->src[1]->dtype.scalar() : u->dtype.scalar();
  std::string line = cat(st.uop < 10 ? "   " : st.uop < 100 ? "  " : st.uop < 1000 ? " " : "", st.uop, " ", op_name(u->op));
  if (st.access) {
    const interp::MemoryAccess& a = *st.access;
    std::string where = a.buffer >= 0 ? cat("data", a.buffer) : cat("temp", -1 - a.buffer);
    line += cat(" ", where, "[", a.element, st.lanes.size() > 1 ? cat("..", a.element + static_cast<int64_t>(st.lanes.size()) - 1) : "", "]");
    if (a.gated_off) line += u->op == Ops::LOAD ? " gated off: alternative" : " gated off: not stored";
  }
  if (!st.lanes.empty() && u->op != Ops::RANGE) {
    std::string vals;
    for (size_t l = 0; l < st.lanes.size() && l < 8; l++) vals += (l ? ", " : "") + interp::format_lane(st.lanes[l], t);
    if (st.lanes.size() > 8) vals += ", ...";
    line += st.lanes.size() > 1 ? cat(" = (", vals, ")") : cat(" = ", vals);
  } else if (u->op == Ops::RANGE && !st.lanes.empty()) {
    line += cat(" ridx", u->arg.is_int() ? u->arg.as_int() : 0, " < ", u->src[0]->op == Ops::CONST ? std::to_string(u->src[0]->arg.as_int()) : "?");
  }
  if (u->op == Ops::SHUFFLE_XOR) line += cat(" from work-item ", shuffle_partner(s, st, u));  // whose register it read
  if (!st.loops.empty()) {
    std::string it;
    for (auto& [r, v] : st.loops) {
      const UOp* ru = s.program[static_cast<size_t>(r)].get();
      it += cat(it.empty() ? "" : ", ", "ridx", ru->arg.is_int() ? ru->arg.as_int() : r, "=", v);
    }
    line += "   [" + it + "]";
  }
  if (st.item != s.item) line += cat("   (work-item ", st.item, ")");
  return line;
}

std::string format_stepping(const KernelStepping& s, size_t max_lines, bool relevant_only) {
  std::string out = cat(s.kernel, " (", s.variant.empty() ? "program" : s.variant, ", interpreted for ", s.target.empty() ? "CPU" : s.target,
                        "): data", s.output, "[", s.element, "] = ", interp::format_lane(s.value, s.dtype), ", stored by work-item ",
                        s.item, "; ", s.steps.size(), " steps", s.truncated ? " (truncated)" : "", "\n");
  if (!s.note.empty()) out += cat("  inputs: ", s.note, "\n");
  size_t shown = 0, left = 0;
  for (size_t i = 0; i < s.steps.size(); i++) {
    if (relevant_only && !s.steps[i].relevant()) continue;
    if (shown == max_lines) {
      left++;
      continue;
    }
    out += cat("  #", i, s.steps[i].relevant() ? " * " : "   ", describe_step(s, s.steps[i]), "\n");
    shown++;
  }
  if (left) out += cat("  ... ", left, " more steps\n");
  return out;
}

const char* divergence_kind_name(Divergence::Kind kind) {
  static const char* names[] = {"none", "address", "value", "computation", "result"};
  return names[static_cast<int>(kind)];
}

std::string format_divergence(const Divergence& d, const KernelStepping& a, const KernelStepping& b) {
  std::string out = cat("first divergence (", divergence_kind_name(d.kind), "): ", d.explanation, "\n");
  if (d.step_a != SIZE_MAX) out += cat("  ", a.variant, " #", d.step_a, " ", describe_step(a, a.steps[d.step_a]), "\n");
  if (d.step_b != SIZE_MAX) out += cat("  ", b.variant, " #", d.step_b, " ", describe_step(b, b.steps[d.step_b]), "\n");
  return out;
}

} // namespace loupe
