#include "runtime/interp/linear_program.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <cstring>
#include <unordered_map>

#include "ir/print.h"
#include "ir/shared_memory_ops.h"
#include "render/cstyle.h"
#include "support/error.h"

namespace loupe::interp {

namespace {

// A product fused into the sum at one lane: which operand it is and where its factors live.
struct Fuse {
  int side = -1;  // -1: nothing fused
  int a = -1, b = -1;
};

} // namespace

struct LinearProgram::Instr {
  Ops op = Ops::NOOP;
  DType out, in;  // scalar dtypes: the value's, the operands' (ALU, CAST)
  int uop = 0;
  int dst = -1, lanes = 0;
  std::array<int, 3> src{-1, -1, -1};
  std::array<int, 3> stride{0, 0, 0};  // 1: the source is a vector read lane by lane, 0: a scalar broadcast
  std::vector<int> gather;  // VECTORIZE, GEP: the slot of each lane; WMMA: the A, B and C fragment slots
  MatrixUnit unit = MatrixUnit::none;  // WMMA: whose layout
  std::vector<Fuse> fuse;   // ADD/SUB of float32/64: per lane
  int jump = -1;            // RANGE: past its ENDRANGE; ENDRANGE: its RANGE's body; IF: past its ENDIF
  int counter = -1;         // ENDRANGE: its RANGE's slot
  // memory: the buffer, its element type and size, the value (STORE) and the gate
  int buffer = 0;
  int param = -1;           // a global buffer's position among the arguments
  DType mem;
  int64_t limit = -1;
  int value = -1, gate = -1;  // a LOAD's alternative is src[1]
  int from_buffer = 0, from_param = -1;  // ASYNC_COPY: the global buffer it copies from (the above: to)
  int64_t from_limit = -1;
  bool transposed = false;  // LOAD_MATRIX: its matrices read transposed (lanes / 2 of them)
  int64_t lane_xor = 0, warp_lanes = 0;  // SHUFFLE_XOR: the lane it reads (by xor), the lanes taking part
  int64_t special_dim = 0;
  char special_kind = 0;    // 'g', 'l', 'i'
};

struct LinearProgram::Item {
  std::vector<Lane> slots;
  std::array<int64_t, 3> lid{0, 0, 0};
  int64_t index = 0;
  bool watched = false;
};

struct LinearProgram::Group {
  std::array<int64_t, 3> gid{0, 0, 0};
  const std::vector<void*>* bufs = nullptr;
  const std::vector<int64_t>* vars = nullptr;
  std::vector<std::vector<unsigned char>> locals;
  std::vector<Item> items;
};

LinearProgram::~LinearProgram() = default;
LinearProgram::LinearProgram(LinearProgram&&) noexcept = default;

// Decodes the UOp list into the program's instructions, once. Each step below is one part of the
// decoding; the state they share (where each value lives, the loops and IFs still open) is kept here
// for the length of the constructor.
struct LinearProgram::Decoder {
  LinearProgram& p;
  const FlatPtrSet<const UOp*> inlined;  // what the C renderer writes inline: where products fuse
  CVectorSpelling spelling;
  std::unordered_map<const UOp*, int> pos;          // listed uop -> its position
  std::unordered_map<const UOp*, int> const_slot;   // constants spelled where used, not listed
  std::unordered_map<const UOp*, int> local_number;  // DEFINE_LOCAL -> its local temp number
  std::vector<int> open_ranges, open_ifs;
  int next = 0;  // the first free slot

  Decoder(LinearProgram& program, const RendererCaps& spelled_as)
      : p(program), inlined(c_inlined_values(program.uops_, spelled_as)), spelling{spelled_as} {
    for (size_t i = 0; i < p.uops_.size(); i++) pos.emplace(p.uops_[i].get(), static_cast<int>(i));
  }

  [[noreturn]] void fail(const UOp* u, const std::string& why) const {
    throw Error(cat("interpreting ", p.name_, ": ", uop_label(*u), ": ", why));
  }

  // A constant's lanes get their own slots, filled before the program runs.
  int fill_constant(const UOp* u) {
    int base = next;
    next += u->dtype.count;
    p.initial_slots_.resize(static_cast<size_t>(next));
    for (int l = 0; l < u->dtype.count; l++)
      p.initial_slots_[static_cast<size_t>(base + l)] =
          lane_of_arg(u->op == Ops::VCONST ? u->arg.as_tuple().at(static_cast<size_t>(l)) : u->arg, u->dtype.scalar());
    return base;
  }

  // The first slot of a source: a listed uop's, or an unlisted constant's (given slots when first used).
  int slot(const UOp* s) {
    if (auto it = pos.find(s); it != pos.end()) return p.slot_[static_cast<size_t>(it->second)];
    if (s->op != Ops::CONST && s->op != Ops::VCONST) fail(s, "used but not in the linearized list");
    auto it = const_slot.find(s);
    if (it != const_slot.end()) return it->second;
    int base = fill_constant(s);
    const_slot[s] = base;
    return base;
  }

  void assign_slots();
  void list_buffers();
  void decode(size_t i);
  void decode_sources(const UOp* u, Instr& in);
  void decode_end_range(size_t i, const UOp* u, Instr& in);
  void decode_special(const UOp* u, Instr& in);
  void decode_memory(const UOp* u, Instr& in);
  void resolve_address(const UOp* u, const UOp* address, Instr& in, int& buffer, int& param, int64_t& limit) const;
  void decode_fused_products(const UOp* u, Instr& in);
  void check_all_closed() const;
};

// Slots: one lane per vector lane, accumulators shared with the ASSIGNs that name them.
void LinearProgram::Decoder::assign_slots() {
  const UOpList& uops = p.uops_;
  p.slot_.assign(uops.size(), -1);
  p.lanes_.assign(uops.size(), 0);
  for (size_t i = 0; i < uops.size(); i++) {
    const UOp* u = uops[i].get();
    if (u->op == Ops::ASSIGN) {
      auto it = pos.find(accumulator_of(u));
      if (it == pos.end() || accumulator_of(u)->op != Ops::DEFINE_ACC) fail(u, "ASSIGN to something that is not a listed DEFINE_ACC");
      p.slot_[i] = p.slot_[static_cast<size_t>(it->second)];
      p.lanes_[i] = p.lanes_[static_cast<size_t>(it->second)];
      continue;
    }
    int n = 0;
    if (u->dtype.is_ptr || u->op == Ops::RANGE) n = 1;
    else if (!u->dtype.is_void() && u->op != Ops::STORE && u->op != Ops::SINK) n = u->dtype.count;
    if (u->op == Ops::CONST || u->op == Ops::VCONST) {
      p.slot_[i] = fill_constant(u);
      p.lanes_[i] = n;
      continue;
    }
    p.slot_[i] = next;
    p.lanes_[i] = n;
    next += n;
  }
  p.initial_slots_.resize(static_cast<size_t>(next));
}

// The global buffers in parameter order (written or only read), the local temps numbered in list order.
void LinearProgram::Decoder::list_buffers() {
  std::vector<const UOp*> globals;
  for (const UOpPtr& u : p.uops_)
    if (u->op == Ops::DEFINE_GLOBAL) globals.push_back(u.get());
  std::sort(globals.begin(), globals.end(), [](const UOp* a, const UOp* b) { return a->arg.as_int() < b->arg.as_int(); });
  FlatPtrSet<const UOp*> written;
  for (const UOpPtr& u : p.uops_)
    if (u->op == Ops::STORE)
      if (const UOp* b = buffer_of(u->src.at(0).get())) written.insert(b);
  for (const UOp* g : globals) p.buffers_.push_back({g->arg.as_int(), g->dtype, written.contains(g)});
  for (const UOpPtr& u : p.uops_)
    if (u->op == Ops::DEFINE_LOCAL) {
      local_number[u.get()] = static_cast<int>(p.local_sizes_.size());
      p.local_sizes_.push_back(u->dtype.ptr_size);
      p.local_dtypes_.push_back(u->dtype.base().scalar());
    }
}

// The value operands (up to three): a vector source is read lane by lane, a scalar broadcast.
void LinearProgram::Decoder::decode_sources(const UOp* u, Instr& in) {
  if (u->op == Ops::WMMA) return;  // its 16 fragment values are gathered instead
  for (size_t k = 0; k < u->src.size() && k < 3; k++) {
    const UOp* s = u->src[k].get();
    if (s->dtype.is_void() && !s->dtype.is_ptr) continue;  // a barrier's or a STORE's ordering sources
    if (s->op == Ops::DEFINE_GLOBAL || s->op == Ops::DEFINE_LOCAL || s->op == Ops::RANGE || s->op == Ops::IF) {
      if (s->op == Ops::RANGE) in.src[k] = slot(s);
      continue;
    }
    in.src[k] = slot(s);
    in.stride[k] = s->dtype.count > 1 && !s->dtype.is_ptr ? 1 : 0;
  }
}

// An ENDRANGE jumps back into its RANGE's body and counts in its slot; the RANGE jumps past it.
void LinearProgram::Decoder::decode_end_range(size_t i, const UOp* u, Instr& in) {
  if (open_ranges.empty() || p.uops_[static_cast<size_t>(open_ranges.back())].get() != u->src.at(0).get())
    fail(u, "ENDRANGE without its RANGE open");
  Instr& r = p.code_[static_cast<size_t>(open_ranges.back())];
  in.jump = open_ranges.back() + 1;
  in.counter = r.dst;
  in.src[0] = r.src[0];
  r.jump = static_cast<int>(i) + 1;
  open_ranges.pop_back();
}

// A launch id: which kind (group, local, global), which axis, and the launch size it implies.
void LinearProgram::Decoder::decode_special(const UOp* u, Instr& in) {
  std::string n = u->var_name();
  in.special_kind = n[0] == 'g' ? 'g' : n[0] == 'l' ? 'l' : 'i';
  in.special_dim = n.back() - '0';
  if (in.special_dim < 0 || in.special_dim > 2 || u->src.empty()) fail(u, "a launch id needs its size");
  const UOp* size = u->src[0].get();
  const size_t dim = static_cast<size_t>(in.special_dim);
  if (size->op != Ops::CONST) {  // a grid size over the kernel's variables, evaluated at launch
    if (in.special_kind == 'l') fail(u, "a work-group size must be a constant");
    p.global_[dim] = static_cast<int64_t>(size->vmax());
    p.global_sym_[dim] = size->ptr();
  } else if (in.special_kind == 'l') {
    p.local_[dim] = size->arg.as_int();
  } else {
    p.global_[dim] = size->arg.as_int();
  }
}

// The buffer an address points into: its number (globals >= 0, local temps < 0), argument and size.
void LinearProgram::Decoder::resolve_address(const UOp* u, const UOp* address, Instr& in, int& buffer, int& param,
                                             int64_t& limit) const {
  const UOp* idx = address->op == Ops::CAST ? address->src.at(0).get() : address;
  if (idx->op != Ops::INDEX) fail(u, "the address must be an INDEX (or a vector CAST of one)");
  const UOp* buf = idx->src.at(0).get();
  in.mem = buf->dtype.base().scalar();
  limit = buf->dtype.ptr_size;
  if (buf->op == Ops::DEFINE_LOCAL) {
    buffer = -1 - local_number.at(buf);
    return;
  }
  buffer = static_cast<int>(buf->arg.as_int());
  for (size_t k = 0; k < p.buffers_.size(); k++)
    if (p.buffers_[k].index == buffer) param = static_cast<int>(k);
}

// LOAD, STORE, ASYNC_COPY, LOAD_MATRIX: the buffers they touch, how many lanes, the value and the gate.
void LinearProgram::Decoder::decode_memory(const UOp* u, Instr& in) {
  const UOp* address = u->src.at(0).get();
  resolve_address(u, address, in, in.buffer, in.param, in.limit);
  in.src[0] = slot(address);
  if (u->op == Ops::ASYNC_COPY)
    if (const UOp* gate = async_copy_gate(u)) in.gate = slot(gate);
  if (u->op == Ops::LOAD_MATRIX) {
    const Arg::Tuple& a = u->arg.as_tuple();
    if (in.buffer >= 0 || a.size() != 2 || a[0].as_int() * 2 != u->dtype.count)
      fail(u, "LOAD_MATRIX reads (count, transposed) matrices of two values a lane from a local temp");
    in.lanes = u->dtype.count;
    in.transposed = a[1].as_bool();
    p.needs_sync_ = true;
  } else if (u->op == Ops::ASYNC_COPY) {
    resolve_address(u, u->src.at(1).get(), in, in.from_buffer, in.from_param, in.from_limit);
    if (in.buffer >= 0 || in.from_buffer < 0) fail(u, "ASYNC_COPY copies from a global buffer to a local temp");
    in.lanes = static_cast<int>(u->arg.as_int());
  } else if (u->op == Ops::LOAD) {
    in.lanes = u->dtype.count;
    if (u->src.size() >= 3) in.gate = slot(u->src[2].get());
  } else {
    const UOp* v = u->src.at(1).get();
    in.value = slot(v);
    in.lanes = v->dtype.count;
    if (u->src.size() >= 3 && u->src[2]->dtype.is_bool()) in.gate = slot(u->src[2].get());
  }
}

// A float32/64 ADD or SUB with a product written inside it: the C compiler contracts the two into one
// fused multiply-add, so the interpreter rounds once too, lane by lane where the C code is per lane.
void LinearProgram::Decoder::decode_fused_products(const UOp* u, Instr& in) {
  in.in = (u->op == Ops::WHERE ? u->src.at(1) : u->src.at(0))->dtype.scalar();
  DType m = concrete(in.out);
  bool contractible =
      (u->op == Ops::ADD || u->op == Ops::SUB) && (m == dtypes::float32 || m == dtypes::float64) && concrete(in.in) == m;
  if (!contractible) return;
  const int n = u->dtype.count;
  const bool whole = n > 1 && spelling.vector_operator(u);
  bool any = false;
  std::vector<Fuse> fuse(static_cast<size_t>(n));
  for (int l = 0; l < n; l++) {
    for (int side = 0; side < 2 && fuse[static_cast<size_t>(l)].side < 0; side++) {
      const UOp* s = u->src[static_cast<size_t>(side)].get();
      // the operand's text at this lane: the whole value (a C vector operator), else its lane
      const UOp* x = whole ? s : c_spelled_node(s, n == 1 || s->dtype.count == 1 ? -1 : l, inlined);
      bool fits = x->op == Ops::MUL && inlined.contains(x) && concrete(x->dtype.scalar()) == m &&
                  (whole ? x->dtype.count == n : x->dtype.count == 1);
      if (!fits) continue;
      int lane = x->dtype.count > 1 ? l : 0;
      auto factor = [&](const UOp* f) { return slot(f) + (f->dtype.count > 1 ? lane : 0); };
      fuse[static_cast<size_t>(l)] = Fuse{side, factor(x->src[0].get()), factor(x->src[1].get())};
      any = true;
    }
  }
  if (any) in.fuse = std::move(fuse);
}

// Listed uop i as an instruction: its slots and operands, then what its op needs of its own.
void LinearProgram::Decoder::decode(size_t i) {
  const UOp* u = p.uops_[i].get();
  Instr& in = p.code_[i];
  p.enclosing_[i] = open_ranges;
  in.op = u->op;
  in.uop = static_cast<int>(i);
  in.out = u->dtype.scalar();
  in.dst = p.slot_[i];
  in.lanes = p.lanes_[i];
  decode_sources(u, in);
  switch (u->op) {
  case Ops::RANGE:
    in.src[0] = slot(u->src.at(0).get());
    open_ranges.push_back(static_cast<int>(i));  // after enclosing_[i]: a loop does not enclose itself
    break;
  case Ops::ENDRANGE: decode_end_range(i, u, in); break;
  case Ops::IF: open_ifs.push_back(static_cast<int>(i)); break;
  case Ops::ENDIF:
    if (open_ifs.empty()) fail(u, "ENDIF without an IF");
    p.code_[static_cast<size_t>(open_ifs.back())].jump = static_cast<int>(i) + 1;
    open_ifs.pop_back();
    break;
  case Ops::SPECIAL: decode_special(u, in); break;
  case Ops::DEFINE_VAR: {
    const auto& t = u->arg.as_tuple();
    in.special_dim = static_cast<int64_t>(p.vars_.size());
    p.vars_.push_back({t.at(0).as_string(), t.at(1).as_int(), t.at(2).as_int()});
    break;
  }
  case Ops::LOAD:
  case Ops::STORE:
  case Ops::ASYNC_COPY:
  case Ops::LOAD_MATRIX: decode_memory(u, in); break;
  case Ops::INDEX:
    if (u->src.at(1)->dtype.count != 1) fail(u, "a vector of addresses (gather) is not part of the linearized contract");
    in.src[0] = slot(u->src[1].get());
    in.src[1] = -1;
    break;
  case Ops::CAST:
    if (u->dtype.is_ptr) {  // a vector view of an address: the same element index
      in.op = Ops::INDEX;
      break;
    }
    [[fallthrough]];
  case Ops::BITCAST:
    in.in = u->src.at(0)->dtype.scalar();
    if (!u->dtype.is_ptr && u->src[0]->dtype.count != u->dtype.count && !(u->src[0]->dtype.count == 1))
      fail(u, "a conversion between vectors of different widths");
    break;
  case Ops::VECTORIZE:
    for (const UOpPtr& s : u->src)
      for (int l = 0; l < s->dtype.count; l++) in.gather.push_back(slot(s.get()) + l);
    if (static_cast<int>(in.gather.size()) != in.lanes) fail(u, "VECTORIZE lanes do not add up");
    break;
  case Ops::GEP: {
    const UOp* s = u->src.at(0).get();
    for (const Arg& a : u->arg.as_tuple()) in.gather.push_back(slot(s) + (s->dtype.count > 1 ? static_cast<int>(a.as_int()) : 0));
    break;
  }
  case Ops::WMMA: {
    std::optional<MatrixOpKind> kind = u->arg.is_string() ? matrix_op_of_kind(u->arg.as_string()) : std::nullopt;
    if (!kind) fail(u, "WMMA's arg names no matrix unit");
    const MatrixUnitShape& t = matrix_unit_shape(kind->unit);
    if (u->src.size() != static_cast<size_t>(t.a + t.b + t.c) || u->dtype.count != t.c)
      fail(u, cat("a ", matrix_unit_name(kind->unit), " WMMA takes ", t.a, " A, ", t.b, " B and ", t.c, " C values and gives ", t.c));
    in.unit = kind->unit;
    for (const UOpPtr& s : u->src) in.gather.push_back(slot(s.get()));
    p.needs_sync_ = true;
    break;
  }
  case Ops::BARRIER: p.needs_sync_ = true; break;
  case Ops::SHUFFLE_XOR: {
    const Arg::Tuple& a = u->arg.as_tuple();
    if (u->dtype.count != 1 || a.size() != 2) fail(u, "SHUFFLE_XOR reads one value of another lane: arg (xor, lanes)");
    in.lane_xor = a[0].as_int();
    in.warp_lanes = a[1].as_int();
    if (in.lane_xor <= 0 || in.lane_xor >= in.warp_lanes || in.warp_lanes > 32) fail(u, "SHUFFLE_XOR's lane is outside its warp");
    p.needs_sync_ = true;
    break;
  }
  default: break;
  }
  if (is_alu(u->op)) decode_fused_products(u, in);
}

void LinearProgram::Decoder::check_all_closed() const {
  if (!open_ranges.empty()) fail(p.uops_[static_cast<size_t>(open_ranges.back())].get(), "RANGE never closed");
  if (!open_ifs.empty()) fail(p.uops_[static_cast<size_t>(open_ifs.back())].get(), "IF never closed");
}

LinearProgram::LinearProgram(std::string name, const UOpList& uops, const RendererCaps& spelled_as)
    : name_(std::move(name)), uops_(uops) {
  Decoder d(*this, spelled_as);
  d.assign_slots();
  d.list_buffers();
  code_.resize(uops_.size());
  enclosing_.resize(uops_.size());
  for (size_t i = 0; i < uops_.size(); i++) d.decode(i);
  d.check_all_closed();
}

int LinearProgram::slot_of(int i) const { return slot_.at(static_cast<size_t>(i)); }
int LinearProgram::lanes_of(int i) const { return lanes_.at(static_cast<size_t>(i)); }

const std::vector<int>& LinearProgram::enclosing_ranges(int i) const { return enclosing_.at(static_cast<size_t>(i)); }

namespace {

using Instr = LinearProgram::Instr;

// Operand k at lane l: its own lane of a vector, the one value of a broadcast scalar.
inline Lane operand(const Instr& in, const Lane* s, int k, int l) {
  return s[in.src[static_cast<size_t>(k)] + l * in.stride[static_cast<size_t>(k)]];
}

// An ALU op over its lanes, rounding as the C code does: a lane with a fused product is one fused
// multiply-add, a narrowing result is converted after the op.
inline void run_alu(const Instr& in, Lane* s) {
  const bool cmp = op_in(in.op, kComparison);
  const DType res = cmp ? dtypes::bool_ : in.in;
  const bool narrowing = !cmp && in.op != Ops::WHERE && concrete(in.out) != concrete(in.in);
  for (int l = 0; l < in.lanes; l++) {
    if (!in.fuse.empty() && in.fuse[static_cast<size_t>(l)].side >= 0) {
      const Fuse& f = in.fuse[static_cast<size_t>(l)];
      Lane a = s[f.a], b = s[f.b], c = operand(in, s, 1 - f.side, l);
      if (in.op == Ops::SUB) {
        if (f.side == 0) c.f = -c.f;
        else a.f = -a.f;
      }
      s[in.dst + l] = fused_multiply_add(in.out, a, b, c);
      continue;
    }
    Lane r = alu(in.op, res, in.in, operand(in, s, 0, l), in.src[1] >= 0 ? operand(in, s, 1, l) : Lane{},
                 in.src[2] >= 0 ? operand(in, s, 2, l) : Lane{});
    s[in.dst + l] = narrowing ? convert(r, in.in, in.out) : r;
  }
}

// "interpreting NAME: UOP (position PC)": where a run-time error happened.
std::string running_at(const LinearProgram& p, int pc) {
  return cat("interpreting ", p.name(), ": ", uop_label(*p.uops()[static_cast<size_t>(pc)]), " (position ", pc, ")");
}

// A LOAD or STORE, bounds-checked: a gated-off LOAD gives its alternative, a gated-off STORE writes nothing.
void run_load_store(const LinearProgram& p, const Instr& in, Lane* s, int pc, const LinearProgram::Item& it, LinearProgram::Group& g,
                    MemoryAccess& access) {
  access = MemoryAccess{in.buffer, s[in.src[0]].i, in.gate >= 0 && s[in.gate].i == 0};
  if (access.gated_off) {
    if (in.op == Ops::LOAD)
      for (int l = 0; l < in.lanes; l++) s[in.dst + l] = operand(in, s, 1, l);  // src[1] is the alternative
    return;
  }
  if (access.element < 0 || (in.limit >= 0 && access.element + in.lanes > in.limit))
    throw Error(cat(running_at(p, pc), " ", in.op == Ops::LOAD ? "reads" : "writes", " element ", access.element,
                    in.lanes > 1 ? cat("..", access.element + in.lanes - 1) : std::string(), " of ",
                    in.buffer >= 0 ? cat("data", in.buffer) : cat("local temp ", -1 - in.buffer), ", which has ", in.limit,
                    " elements (work-item ", it.index, ")"));
  void* base = in.buffer >= 0 ? (*g.bufs)[static_cast<size_t>(in.param)] : g.locals[static_cast<size_t>(-1 - in.buffer)].data();
  if (in.op == Ops::LOAD)
    for (int l = 0; l < in.lanes; l++) s[in.dst + l] = load_element(base, access.element + l, in.mem);
  else
    for (int l = 0; l < in.lanes; l++) store_element(base, access.element + l, in.mem, s[in.value + (in.lanes > 1 ? l : 0)]);
}

// An ASYNC_COPY done at once: the barrier that waits for it comes before any read.
void run_async_copy(const LinearProgram& p, const Instr& in, Lane* s, int pc, const LinearProgram::Item& it, LinearProgram::Group& g,
                    MemoryAccess& access) {
  access = MemoryAccess{in.buffer, s[in.src[0]].i, in.gate >= 0 && s[in.gate].i == 0};
  if (access.gated_off) return;
  int64_t from = s[in.src[1]].i;
  if (from < 0 || from + in.lanes > in.from_limit || access.element < 0 || access.element + in.lanes > in.limit)
    throw Error(cat(running_at(p, pc), " copies elements ", from, "..", from + in.lanes - 1, " of data", in.from_buffer, " (",
                    in.from_limit, " elements) to ", access.element, "..", access.element + in.lanes - 1, " of local temp ",
                    -1 - in.buffer, " (", in.limit, " elements) (work-item ", it.index, ")"));
  const void* src = (*g.bufs)[static_cast<size_t>(in.from_param)];
  void* dst = g.locals[static_cast<size_t>(-1 - in.buffer)].data();
  for (int l = 0; l < in.lanes; l++) store_element(dst, access.element + l, in.mem, load_element(src, from + l, in.mem));
}

} // namespace

int LinearProgram::exec(Item& it, Group& g, int pc, ExecutionWatcher* w) const {
  Lane* s = it.slots.data();
  const int end = static_cast<int>(code_.size());
  MemoryAccess access;
  while (pc < end) {
    const Instr& in = code_[static_cast<size_t>(pc)];
    const MemoryAccess* touched = nullptr;
    int next = pc + 1;
    bool report = true;
    switch (in.op) {
    case Ops::CONST:
    case Ops::VCONST:
    case Ops::DEFINE_GLOBAL:
    case Ops::DEFINE_LOCAL:
    case Ops::NAME:
    case Ops::SINK:
    case Ops::ENDIF: report = false; break;
    case Ops::BARRIER:
    case Ops::WMMA:
    case Ops::SHUFFLE_XOR:
    case Ops::LOAD_MATRIX: return pc;
    case Ops::DEFINE_VAR: s[in.dst].i = (*g.vars)[static_cast<size_t>(in.special_dim)]; break;
    case Ops::SPECIAL: {
      size_t d = static_cast<size_t>(in.special_dim);
      s[in.dst].i = in.special_kind == 'g' ? g.gid[d] : in.special_kind == 'l' ? it.lid[d] : g.gid[d] * local_[d] + it.lid[d];
      break;
    }
    case Ops::RANGE:
      s[in.dst].i = 0;
      if (s[in.src[0]].i <= 0) next = in.jump;
      break;
    case Ops::ENDRANGE:
      if (++s[in.counter].i < s[in.src[0]].i) next = in.jump;
      report = false;
      break;
    case Ops::IF:
      if (s[in.src[0]].i == 0) next = in.jump;
      break;
    case Ops::DEFINE_ACC:
    case Ops::NOOP:
      for (int l = 0; l < in.lanes; l++) s[in.dst + l] = operand(in, s, 0, l);
      break;
    case Ops::ASSIGN:
      for (int l = 0; l < in.lanes; l++) s[in.dst + l] = operand(in, s, 1, l);
      break;
    case Ops::INDEX:  // and a vector CAST of one: an address is its element index, the buffer is known from the code
      s[in.dst] = s[in.src[0]];
      report = false;
      break;
    case Ops::CAST:
      for (int l = 0; l < in.lanes; l++) s[in.dst + l] = convert(operand(in, s, 0, l), in.in, in.out);
      break;
    case Ops::BITCAST:
      for (int l = 0; l < in.lanes; l++) s[in.dst + l] = bitcast(operand(in, s, 0, l), in.in, in.out);
      break;
    case Ops::VECTORIZE:
    case Ops::GEP:
      for (int l = 0; l < in.lanes; l++) s[in.dst + l] = s[in.gather[static_cast<size_t>(l)]];
      break;
    case Ops::LOAD:
    case Ops::STORE:
      run_load_store(*this, in, s, pc, it, g, access);
      touched = &access;
      break;
    case Ops::ASYNC_COPY:
      run_async_copy(*this, in, s, pc, it, g, access);
      touched = &access;
      break;
    default:
      if (!is_alu(in.op)) throw Error(cat("interpreting ", name_, ": ", uop_label(*uops_[static_cast<size_t>(pc)]), " cannot be executed"));
      run_alu(in, s);
      break;
    }
    if (report && it.watched)
      w->executed(ExecutedStep{pc, it.index, in.lanes > 0 && in.op != Ops::STORE ? s + in.dst : (in.op == Ops::STORE ? s + in.value : nullptr),
                               in.lanes, touched},
                  s);
    pc = next;
  }
  return -1;
}

// The matrix unit's multiply-accumulate for each warp (wave) of the group: every lane gives its fragments
// of A, B and C (render/matrix_unit.h) and gets its elements of D. The products are exact in float; each
// sum is rounded once. Where the unit repeats A and B in two half-waves (RDNA3 WMMA), both halves must
// hold the same values, as the hardware requires.
void LinearProgram::warp_mma(Group& g, int pc) const {
  const Instr& in = code_[static_cast<size_t>(pc)];
  const MatrixUnitShape& t = matrix_unit_shape(in.unit);
  const size_t n = g.items.size(), lanes = static_cast<size_t>(t.lanes);
  if (n % lanes != 0)
    throw Error(cat("interpreting ", name_, ": WMMA needs whole waves of ", lanes, " work-items, the work-group has ", n));
  std::vector<double> A(static_cast<size_t>(t.m * t.k)), B(static_cast<size_t>(t.k * t.n)), C(static_cast<size_t>(t.m * t.n));
  std::vector<char> given(A.size() + B.size());
  auto put = [&](std::vector<double>& m, size_t at, size_t given_at, double v, int lane) {
    if (given[given_at] && m[at] != v && !(std::isnan(m[at]) && std::isnan(v)))
      throw Error(cat("interpreting ", name_, ": ", uop_label(*uops_[static_cast<size_t>(pc)]), " (position ", pc, "): lane ", lane,
                      " gives ", v, " for an element another lane of its wave gave as ", m[at], "; ", matrix_unit_name(in.unit),
                      " needs both copies equal"));
    m[at] = v;
    given[given_at] = 1;
  };
  for (size_t w0 = 0; w0 < n; w0 += lanes) {
    std::fill(given.begin(), given.end(), 0);
    for (int l = 0; l < t.lanes; l++) {
      const Lane* s = g.items[w0 + static_cast<size_t>(l)].slots.data();
      auto value = [&](int src) { return s[in.gather[static_cast<size_t>(src)]].f; };
      for (int i = 0; i < t.a; i++) {
        const FragmentPlace p = fragment_a_place(in.unit, l, i);
        const size_t at = static_cast<size_t>(p.row * t.k + p.col);
        put(A, at, at, value(i), l);
      }
      for (int i = 0; i < t.b; i++) {
        const FragmentPlace p = fragment_b_place(in.unit, l, i);
        const size_t at = static_cast<size_t>(p.row * t.n + p.col);
        put(B, at, A.size() + at, value(t.a + i), l);
      }
      for (int i = 0; i < t.c; i++) {
        const FragmentPlace p = fragment_c_place(in.unit, l, i);
        C[static_cast<size_t>(p.row * t.n + p.col)] = value(t.a + t.b + i);
      }
    }
    for (int l = 0; l < t.lanes; l++) {
      Lane* s = g.items[w0 + static_cast<size_t>(l)].slots.data();
      for (int i = 0; i < t.c; i++) {
        const FragmentPlace p = fragment_c_place(in.unit, l, i);
        double acc = C[static_cast<size_t>(p.row * t.n + p.col)];
        for (int k = 0; k < t.k; k++) acc += A[static_cast<size_t>(p.row * t.k + k)] * B[static_cast<size_t>(k * t.n + p.col)];
        s[in.dst + i].f = static_cast<float>(acc);
      }
    }
  }
}

// ldmatrix for each warp of the group: every lane gives a row address and gets its values from the
// rows other lanes gave (ir/shared_memory_ops.h).
void LinearProgram::warp_load_matrix(Group& g, int pc) const {
  const Instr& in = code_[static_cast<size_t>(pc)];
  size_t n = g.items.size();
  if (n % 32 != 0)
    throw Error(cat("interpreting ", name_, ": LOAD_MATRIX needs whole warps of 32 work-items, the work-group has ", n));
  const unsigned char* base = g.locals[static_cast<size_t>(-1 - in.buffer)].data();
  for (size_t w0 = 0; w0 < n; w0 += 32) {
    std::array<int64_t, 32> row{};
    for (size_t l = 0; l < 32; l++) row[l] = g.items[w0 + l].slots[static_cast<size_t>(in.src[0])].i;
    for (int l = 0; l < 32; l++) {
      Lane* s = g.items[w0 + static_cast<size_t>(l)].slots.data();
      for (int i = 0; i < in.lanes; i++) {
        MatrixValueSource from = load_matrix_source(l, i, in.transposed);
        int64_t at = row[static_cast<size_t>(from.row_lane)] + from.column;
        if (at < 0 || at >= in.limit)
          throw Error(cat("interpreting ", name_, ": ", uop_label(*uops_[static_cast<size_t>(pc)]), " (position ", pc, ") reads element ", at,
                          " of local temp ", -1 - in.buffer, ", which has ", in.limit, " elements (work-item ", g.items[w0 + static_cast<size_t>(l)].index, ")"));
        s[in.dst + i] = load_element(base, at, in.mem);
      }
    }
  }
}

// __shfl_xor_sync for each warp of the group: every lane takes the value its partner had. Every lane
// that runs it must take part, as CUDA requires (the first warp_lanes lanes of a warp).
void LinearProgram::warp_shuffle(Group& g, int pc) const {
  const Instr& in = code_[static_cast<size_t>(pc)];
  const size_t n = g.items.size(), lanes = static_cast<size_t>(in.warp_lanes);
  if (n % 32 != 0 && n != lanes)
    throw Error(cat("interpreting ", name_, ": ", uop_label(*uops_[static_cast<size_t>(pc)]), " (position ", pc, ") takes ", lanes,
                    " lanes of each warp, the work-group has ", n, " work-items"));
  std::vector<Lane> from(n);
  for (size_t i = 0; i < n; i++) from[i] = g.items[i].slots[static_cast<size_t>(in.src[0])];
  for (size_t i = 0; i < n; i++) {
    const size_t j = i ^ static_cast<size_t>(in.lane_xor);
    if (j >= n || j % 32 >= lanes)
      throw Error(cat("interpreting ", name_, ": ", uop_label(*uops_[static_cast<size_t>(pc)]), " (position ", pc, "): work-item ",
                      g.items[i].index, " reads lane ", j % 32, ", which does not take part"));
    g.items[i].slots[static_cast<size_t>(in.dst)] = from[j];
  }
}

void LinearProgram::run(const std::vector<void*>& bufs, const std::vector<int64_t>& vars, const LaunchDims& global,
                        const LaunchDims& local, ExecutionWatcher* w) const {
  if (bufs.size() != buffers_.size())
    throw Error(cat("interpreting ", name_, ": ", buffers_.size(), " buffers expected, ", bufs.size(), " given"));
  if (vars.size() != vars_.size()) throw Error(cat("interpreting ", name_, ": ", vars_.size(), " variables expected, ", vars.size(), " given"));
  Group g;
  g.bufs = &bufs;
  g.vars = &vars;
  const int64_t per_group = local[0] * local[1] * local[2];
  auto start_item = [&](Item& it, int64_t group_index, int64_t l) {
    it.slots = initial_slots_;
    it.lid = {l % local[0], (l / local[0]) % local[1], l / (local[0] * local[1])};
    it.index = group_index * per_group + l;
    it.watched = w && w->watch_item(it.index);
  };
  for (int64_t gz = 0; gz < global[2]; gz++)
    for (int64_t gy = 0; gy < global[1]; gy++)
      for (int64_t gx = 0; gx < global[0]; gx++) {
        g.gid = {gx, gy, gz};
        int64_t group_index = gx + global[0] * (gy + global[1] * gz);
        g.locals.clear();
        for (size_t k = 0; k < local_sizes_.size(); k++)
          g.locals.emplace_back(static_cast<size_t>(std::max<int64_t>(local_sizes_[k], 0) * local_dtypes_[k].itemsize()), 0);
        if (!needs_sync_) {
          Item it;
          for (int64_t l = 0; l < per_group; l++) {
            start_item(it, group_index, l);
            exec(it, g, 0, w);
          }
          continue;
        }
        g.items.assign(static_cast<size_t>(per_group), Item{});
        for (int64_t l = 0; l < per_group; l++) start_item(g.items[static_cast<size_t>(l)], group_index, l);
        std::vector<int> pcs(static_cast<size_t>(per_group), 0);
        for (;;) {
          for (size_t k = 0; k < pcs.size(); k++) pcs[k] = exec(g.items[k], g, pcs[k], w);
          int at = pcs[0];
          for (size_t k = 1; k < pcs.size(); k++)
            if (pcs[k] != at)
              throw Error(cat("interpreting ", name_, ": the work-items of group (", gx, ", ", gy, ", ", gz, ") do not meet at the same ",
                              "barrier: item 0 stopped at position ", at, ", item ", k, " at ", pcs[k]));
          if (at < 0) break;
          const Ops warp_op = code_[static_cast<size_t>(at)].op;
          if (warp_op == Ops::WMMA || warp_op == Ops::LOAD_MATRIX || warp_op == Ops::SHUFFLE_XOR) {
            if (warp_op == Ops::WMMA) warp_mma(g, at);
            else if (warp_op == Ops::LOAD_MATRIX) warp_load_matrix(g, at);
            else warp_shuffle(g, at);
            const Instr& in = code_[static_cast<size_t>(at)];
            for (Item& it : g.items)
              if (it.watched) w->executed(ExecutedStep{at, it.index, it.slots.data() + in.dst, in.lanes, nullptr}, it.slots.data());
          }
          for (int& p : pcs) p = at + 1;
        }
      }
}

} // namespace loupe::interp
