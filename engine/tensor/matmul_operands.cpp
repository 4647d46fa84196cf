#include "tensor/matmul_operands.h"

#include <optional>
#include <unordered_set>

#include "render/cpu_tile.h"
#include "render/renderer.h"
#include "runtime/device.h"
#include "schedule/lazy_shape.h"
#include "shape/shapetracker.h"
#include "support/error.h"
#include "support/host_cpu.h"

namespace loupe {

namespace {

// The CPU's register tile reads the right operand a tile row at a time (two or three vectors), down
// all K rows. When the operand is larger than a core's L2 cache, those rows lie a whole matrix row
// apart: with a power-of-two width they fall into the same few cache sets, each on its own page, and
// the tile waits on memory. One pass copies the operand into panels a tile row wide, each panel's K rows
// contiguous; the product reads the panels through a view of the operand's shape (its index folds to a
// plain offset once the tile splits the columns the same way). matmul_2048: 330-400 ms -> 2.4 ms of
// copying and 169 ms of product. The copy pays only when the product reads the operand again and again:
// once per tile of rows, so from kPackedRowsAtLeast rows of the left operand (not a matrix-vector product).
constexpr int64_t kPackedRowsAtLeast = 32;

// The vector registers of the tile a device's kernels get; nullopt where the device cannot start (its
// own error comes when the kernel runs).
std::optional<RendererCaps> tile_caps(const std::string& device) {
  try {
    return get_device(device).renderer().caps();
  } catch (const Error&) {
    return std::nullopt;
  }
}

// The panel width for a product on the host (CPU, LLVM) that would pay for packing `w`; 0: no packing.
int64_t packing_panel(const Tensor& w) {
  const Shape& s = w.shape();
  const int64_t k = s[s.size() - 2], n = s.back();
  if (k * n * w.dtype().itemsize() <= host_cpu().l2_bytes) return 0;
  std::optional<RendererCaps> caps = tile_caps(w.device());
  if (!caps) return 0;
  // float accumulators; the preferred row where the columns divide into it or pad to it cheaply (the
  // tile pads alike), else two vectors where they divide
  const int64_t preferred = cpu_tile_preferred_row_columns(caps->vector_bytes, caps->vector_registers, 4);
  if (n > preferred && cpu_tile_padded_columns(n, preferred) % preferred == 0) return preferred;
  const int64_t panel = cpu_tile_two_vector_columns(caps->vector_bytes, 4);
  return n % panel == 0 && n > panel ? panel : 0;
}

// Computed by elementwise ops (seen through movement ops) that a fused product would recompute per
// panel: a layer norm's output, not a buffer or another product's result (forcing that one's layout
// would change its own kernel: an attention's att @ v written in the permuted order its next matmul
// reads it in made a 16 ms kernel of a 0.5 ms one).
bool computed_elementwise(const Tensor& x) {
  const UOp* u = x.uop().get();
  while (op_in(u->op, kMovement) && !u->src.empty()) u = u->src[0].get();
  return is_alu(u->op);
}

// w (..., K, N) as the same values laid out (..., N'/panel, K, panel), read back as (..., K, N). N' is N
// padded with zero columns to whole panels: the last panel is then as wide as the others, and the tile
// reads its padding (for outputs it never stores) without a condition.
Tensor packed_in_column_panels(const Tensor& w, int64_t panel) {
  const Shape& s = w.shape();
  const int64_t d = static_cast<int64_t>(s.size()), k = s[d - 2], n = s[d - 1];
  const int64_t padded = (n + panel - 1) / panel * panel;
  Tensor whole = w;
  if (padded != n) {
    PadSpec widths(s.size());
    widths.back() = std::make_pair(int64_t{0}, padded - n);
    whole = w.pad(widths);
  }
  Shape split(s.begin(), s.end() - 2);
  split.insert(split.end(), {k, padded / panel, panel});
  std::vector<int64_t> swap;
  for (int64_t i = 0; i < d - 2; i++) swap.push_back(i);
  swap.insert(swap.end(), {d - 1, d - 2, d});
  Shape wide = s;
  wide.back() = padded;
  Tensor packed = whole.reshape(split).permute(swap).contiguous().permute(swap).reshape(wide);
  if (padded == n) return packed;
  PadSpec bounds(s.size());
  bounds.back() = std::make_pair(int64_t{0}, n);
  return packed.shrink(bounds);
}

// Computes, elementwise, a transcendental (exp2, log2, sin, sqrt, a reciprocal: tens of instructions
// per element) and reads a reduce broadcast: a softmax's exp(s - max) / sum. Fused into a product, the
// tile evaluates it one scalar per row and panel, serially; computed first, once, its kernel runs rows
// side by side.
// (An elementwise function of a reduce read whole, a GELU after a matmul, runs in that reduce's own
// kernel once the reduce is realized, and one of buffers alone, sin(a) @ b, is cheap next to the product
// at the sizes where it is fused.)
bool normalizes_with_transcendentals(const Tensor& x) {
  bool transcendental = false, broadcast_reduce = false;
  std::vector<std::pair<const UOp*, bool>> stack{{x.uop().get(), false}};  // (node, under an EXPAND)
  std::unordered_set<const UOp*> seen;
  while (!stack.empty()) {
    const auto [u, expanded] = stack.back();
    stack.pop_back();
    if (!seen.insert(u).second) continue;
    transcendental = transcendental || (op_in(u->op, kUnary) && u->op != Ops::NEG && u->op != Ops::TRUNC);
    broadcast_reduce = broadcast_reduce || (expanded && u->op == Ops::REDUCE_AXIS);
    if (op_in(u->op, kMovement) || is_alu(u->op) || u->op == Ops::CAST)
      for (const UOpPtr& s : u->src) stack.push_back({s.get(), expanded || u->op == Ops::EXPAND});
  }
  return transcendental && broadcast_reduce;
}

// The step, in elements, of w's axis `axis` through the memory it is read from: a buffer's, or the one a
// computed value is written to (row-major in its own shape). nullopt where it is not one number (a
// padded or reshaped-across view).
std::optional<int64_t> axis_stride(const Tensor& w, size_t axis) {
  std::vector<const UOp*> moves;
  UOpPtr base = w.uop();
  while (op_in(base->op, kMovement) && !base->src.empty()) {
    moves.push_back(base.get());
    base = base->src[0];
  }
  ShapeMemo shapes;
  ShapeTracker st = ShapeTracker::from_shape(shapes.of(base));
  for (auto it = moves.rbegin(); it != moves.rend(); ++it) st = st.movement((*it)->op, (*it)->arg);
  std::vector<std::optional<sint>> strides = st.real_strides();
  if (axis >= strides.size() || !strides[axis] || !strides[axis]->is_int()) return std::nullopt;
  return strides[axis]->as_int();
}

} // namespace

Tensor conv_weight_for_host_tiles(const Tensor& weight, int64_t groups, int64_t output_row) {
  if (!runs_on_host_cores(weight.device()) || weight.ndim() < 3) return weight;
  std::optional<RendererCaps> caps = tile_caps(weight.device());
  const int64_t per_group = weight.shape()[0] / groups;
  if (!caps || !cpu_tile_vectors_along_operand(caps->vector_bytes, 4, output_row, per_group)) return weight;  // (float accumulators)
  if (axis_stride(weight, 0) == 1) return weight;  // already laid out so
  // (cout, cin, *window) written as (cin, *window, cout), read back in the original order
  std::vector<int64_t> last_first, back;
  for (int64_t i = 1; i < weight.ndim(); i++) last_first.push_back(i);
  last_first.push_back(0);
  back.push_back(weight.ndim() - 1);
  for (int64_t i = 0; i + 1 < weight.ndim(); i++) back.push_back(i);
  return weight.permute(last_first).contiguous().permute(back);
}

std::pair<Tensor, Tensor> operands_for_host_tiles(const Tensor& x, const Tensor& w) {
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < x.shape().size(); i++) rows *= x.shape()[i];
  if (rows < kPackedRowsAtLeast || !runs_on_host_cores(w.device()) || w.ndim() < 2) return {x, w};
  // An elementwise left operand is computed once first where the tile would repeat work on it: once per
  // panel with a packed right operand (QKV after a layer norm: 7-8 -> 4.3 ms), and a softmax's
  // probabilities, which it would evaluate one scalar at a time (att @ v: 1.7 -> 0.2 ms).
  const int64_t panel = packing_panel(w);
  Tensor left = computed_elementwise(x) && (panel || normalizes_with_transcendentals(x)) ? x.contiguous() : x;
  if (panel) return {left, packed_in_column_panels(w, panel)};
  // A right operand whose adjacent columns are not adjacent in memory (k transposed in q @ k^T) is
  // copied first: the tile would gather each vector of a row one float at a time.
  std::optional<int64_t> stride = axis_stride(w, w.shape().size() - 1);
  const bool scattered = stride && *stride != 1 && *stride != 0 && w.shape().back() > 1;
  return {left, scattered ? w.contiguous() : w};
}

} // namespace loupe
