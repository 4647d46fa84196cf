// Kernel: one kernel AST seen as an iteration space (reference map §9). Every buffer access (and
// every reduce) has a ShapeTracker over the same axes; simplifications and optimizations reshape and
// permute all of them together. Axis order: [global | local | group | reduce | upcast/unroll].
#pragma once
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/uop.h"
#include "render/matrix_unit.h"
#include "shape/shapetracker.h"
#include "support/error.h"

namespace loupe {

enum class AxisKind { Global, Local, GroupReduce, Reduce, Upcast, Unroll };

// The optimizations (reference map §9.3): UPCAST (yellow, an output axis computed by one thread as
// several values), UNROLL (magenta, a reduce axis unrolled), LOCAL (cyan, work-group threads), GROUP /
// GROUPTOP (green, a reduce split across threads through shared memory), NOLOCALS, PADTO, SWAP, TC
// (tensor cores), and Loupe's STAGE (a TC operand's tiles copied through shared memory, staging.h).
enum class OptOp { UPCAST, UNROLL, LOCAL, GROUP, GROUPTOP, NOLOCALS, PADTO, SWAP, TC, STAGE };
inline constexpr OptOp kAllOptOps[] = {OptOp::UPCAST,   OptOp::UNROLL,  OptOp::LOCAL, OptOp::GROUP, OptOp::GROUPTOP,
                                       OptOp::NOLOCALS, OptOp::PADTO,   OptOp::SWAP,  OptOp::TC,    OptOp::STAGE};
const char* opt_op_name(OptOp op);

struct Opt {
  OptOp op;
  int64_t axis = 0;
  int64_t arg = 0;  // amount (0 = the whole axis); for SWAP the other axis
  std::string str() const;  // "Opt(op=OptOps.UPCAST, axis=0, arg=4)"
  // The text str() writes (as traces store applied opts) read back; loupe::Error naming the text otherwise.
  static Opt parse(const std::string& text);
  bool operator==(const Opt&) const = default;
};

// An optimization that does not apply to this kernel (BEAM skips it; a user-given one is an error).
class KernelOptError : public Error {
public:
  using Error::Error;
};

// What the target can do (from the renderer).
struct KernelTarget {
  bool has_local = false, has_shared = false;
  int64_t shared_max = 0;
  MatrixUnit matrix_unit = MatrixUnit::none;  // what the TC opt plans for (render/matrix_unit.h)
  int vector_registers = 16;  // CPU: how many accumulators a register tile may hold
  int vector_bytes = 32;      // CPU: of each register (a tile row spans two of them)
  bool async_copy = false;    // cp.async and ldmatrix (CUDA sm_80 and newer): the STAGE opt
  bool warp_shuffle = false;  // GROUP reduces combine within a warp by register exchanges (CUDA)
};

// A TC opt (see tensor_core.cpp): one warp (wave) computes a tile of the output with the target's matrix
// unit over K steps of 16. Its axes, placed by apply_opt: the first two local axes are the lanes (N's
// part, then M's: lane = n_lane + lanes_of_n * m_lane, so the x id is the N one); the first axes of the
// upcast region are K16 and the upcast parts of M and N that exist (codegen/matrix_tile.h; mma.sync:
// M2, N2). UNROLL of the K/16 axis chains that many matrix ops per loop iteration.
struct TensorCoreUse {
  int a_operand = 0;  // which source of the reduce's MUL is A (M x K); the other is B (K x N)
  DType dtype_in;     // float16 or bfloat16; the accumulator is float32
  size_t buf_a = 0, buf_b = 0;  // their trackers
  MatrixUnit unit = MatrixUnit::none;
};
// STAGE (staging.h): the factors of the reduce's product read through shared memory. Operands are A
// and B of a TC kernel, else the MUL's sources in order.
struct StagingUse {
  bool staged[2] = {false, false};
  int stages = 1;  // STAGE's arg 2: two tiles each, the next K iteration's copies in flight meanwhile
  size_t buf[2] = {0, 0};  // each operand's tracker
  int mul_src[2] = {0, 1};  // which source of the MUL it is
  DType dtype[2];           // the values it reads
  bool any() const { return staged[0] || staged[1]; }
};
// The two LOADs a reduce multiplies (REDUCE of MUL(ld, ld), of CAST(MUL(ld, ld)) or of MUL(CAST(ld),
// CAST(ld))), in the order of the MUL's sources; nullopt when the reduce is not a sum of such products.
std::optional<std::array<const UOp*, 2>> product_loads(const UOp* reduce);
const char* axis_kind_name(AxisKind k);
std::optional<AxisKind> axis_kind_from_name(std::string_view name);  // nullopt for an unknown name
const char* axis_kind_colour(AxisKind k);  // tinygrad's: blue, cyan, green, red, yellow, magenta

// A nested reduce (REDUCE_AXIS(value, VIEW), see schedule/kernel_ast.h) has loops of its own: its
// value lives in its own index space, only its VIEW is over the kernel's axes.
bool is_nested_reduce(const UOp* u);
// The lowerer numbers a nested reduce's loops from here, so they never meet the kernel's axes.
constexpr int64_t kFirstNestedRangeId = 1000;
// The nodes of the kernel's own index space, in topological order: everything except the values of
// nested reduces (their VIEWs are included).
std::vector<const UOp*> kernel_scope_toposort(const UOpPtr& root);

class Kernel {
public:
  explicit Kernel(UOpPtr ast, KernelTarget target = {});

  // Optimizations: checked, then applied to every tracker; throws KernelOptError when invalid.
  void apply_opt(const Opt& opt);
  void apply_opts(const std::vector<Opt>& opts);
  // tinygrad's hand-coded heuristics (reference map §9.4) for this target.
  void hand_coded_optimizations();
  const std::vector<Opt>& applied_opts() const { return applied_opts_; }
  size_t upcasted() const { return upcasted_; }
  size_t local_dims() const { return local_dims_; }
  size_t group_for_reduces() const { return group_for_reduces_; }
  bool dont_use_locals() const { return dont_use_locals_; }
  const std::optional<TensorCoreUse>& tensor_core() const { return tc_; }
  const StagingUse& staging() const { return staging_; }
  const KernelTarget& target() const { return target_; }

  const UOpPtr& ast() const { return ast_; }
  size_t shape_len() const { return sts_.empty() ? 0 : sts_[0].ndim(); }
  // The iteration space with each symbolic extent at its largest value: what the opts and heuristics
  // plan for (tinygrad resolves such comparisons the same way). Indexing and loop bounds use
  // sym_full_shape, whose symbolic extents are expressions over the kernel's DEFINE_VARs.
  std::vector<int64_t> full_shape() const;
  std::vector<int64_t> output_shape() const;  // the STORE's shape (1 on reduce axes), symbolic at the max
  const sints& sym_full_shape() const;
  const sints& sym_output_shape() const { return sts_[0].shape(); }
  bool axis_is_symbolic(size_t axis) const { return !sym_full_shape().at(axis).is_int(); }
  bool has_symbolic_axis() const { return !all_int(sym_full_shape()); }
  // The kernel's variables (unbound DEFINE_VARs of its views), ordered by name as its parameters are.
  UOpList vars() const;
  size_t first_reduce() const;                // first axis where output and full shape differ
  size_t first_upcast() const { return shape_len() - upcasted_; }
  size_t global_dims() const { return first_reduce() - local_dims_; }
  bool has_reduce() const { return !reduceops_.empty(); }
  bool has_nested_reduce() const { return has_nested_; }
  std::vector<AxisKind> axis_kinds() const;

  // tinygrad-style name: "r_" or "E_" and the axis sizes ("r_16_16_4"); unique per distinct AST
  // in this process ("r_16_16_4n1"). A symbolic extent is its rendered expression ("E_3_i"); characters
  // a C identifier cannot hold are spelled as their hex codes, as tinygrad's function names do.
  std::string name() const;
  std::string base_name() const;
  // The name as tinygrad's DEBUG=2 line shows it: symbolic extents as written ("E_(i+1)" for the
  // function E_28i2B129); the same as name() for concrete kernels.
  std::string display_name() const;

  // The AST with every view replaced by this kernel's (permuted/reshaped) trackers, reduce axes
  // updated, and SINK.arg = (name, local_dims, upcasted, dont_use_locals).
  UOpPtr optimized_ast() const;

  const std::vector<ShapeTracker>& sts() const { return sts_; }

  // Reshape (per-tracker shape function) and/or permute every tracker together.
  void reshape_and_permute(const std::function<sints(const sints&)>& new_shape, const std::vector<int64_t>* permute);

private:
  friend class HandCodedHeuristics;  // codegen/heuristics.cpp: reads the trackers and buffers it ranks

  void simplify_ones();
  void simplify_merge_adjacent();
  void apply_local_heuristic();  // GPU targets: LOCAL opts (part of hand_coded_optimizations)
  void shift_to(size_t axis, int64_t amount, bool top, std::optional<size_t> insert_before);
  void apply_tensor_core(const Opt& opt);
  void apply_stage(const Opt& opt);  // staging.cpp
  void check_staging(const Opt& opt) const;  // every staged operand still fits (after any later opt)
  // apply_opt's steps (kernel_opts.cpp)
  int64_t checked_amount(const Opt& opt, size_t axis, const std::vector<int64_t>& fs) const;
  void check_group_fits(const Opt& opt, int64_t amt, const std::vector<int64_t>& fs) const;
  void apply_unroll(const Opt& opt, size_t axis, int64_t amt, const std::vector<int64_t>& fs);
  void apply_padto(const Opt& opt, size_t axis, int64_t amt, const std::vector<int64_t>& fs);
  bool tensor_core_heuristics();  // TC and the warp tiles around it, when the kernel takes it
  size_t real_axis(const Opt& opt) const;
  size_t tracker_of(const UOp* node) const;  // the index in bufs_ (and sts_) of a LOAD, STORE, ... of the AST
  // For the heuristics: does buffer i broadcast along axis (stride 0), what is its stride there.
  std::optional<int64_t> stride_of(size_t buf, size_t axis) const;

  UOpPtr ast_;
  UOpList bufs_;  // nodes carrying a VIEW: STORE, LOAD, IOTA, VALID, CONST, nested reduces
  std::vector<const UOp*> reduceops_;
  std::vector<ShapeTracker> sts_;  // per buf, then per reduce: (output tracker, input tracker)
  KernelTarget target_;
  size_t upcasted_ = 0, local_dims_ = 0, group_for_reduces_ = 0;
  bool dont_use_locals_ = false;
  bool has_nested_ = false;
  std::optional<TensorCoreUse> tc_;
  StagingUse staging_;
  std::vector<Opt> applied_opts_;
};

} // namespace loupe
