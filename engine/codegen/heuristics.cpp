// The hand-coded optimizations (tinygrad's hand_coded_optimizations, reference map §9.4, with the CPU
// tiles Loupe adds): one named heuristic per kind of kernel, tried in a fixed order. Each applies opts
// through Kernel::apply_opt and skips an opt the kernel refuses.
#include <algorithm>
#include <set>
#include <tuple>

#include "codegen/kernel.h"
#include "ir/cooperative_rows.h"
#include "render/cpu_tile.h"
#include "render/renderer.h"

namespace loupe {

class HandCodedHeuristics {
public:
  explicit HandCodedHeuristics(Kernel& k) : k_(k) {}

  void run() {
    for (int64_t s : k_.full_shape())
      if (s == 0) return;  // an empty kernel has nothing to optimize
    if (k_.tensor_core_heuristics()) return;
    if (share_row_reduces_in_groups()) return;
    if (group_contiguous_rows()) return;
    if (group_small_reduce()) return;
    upcast_masked_axis();
    // (a kernel of few outputs takes its whole small axis first: a classifier's logits, 32 x 10 outputs
    // of 9216 products, would otherwise be tiled down to 64 outputs along its batch)
    if (global_elements() < 1024) upcast_small_broadcast_axis();
    register_tile();
    upcast_small_broadcast_axis();
    widen_cpu_tile();
    upcast_column_walk();
    interleave_row_reductions();
    unroll_reduce();
    upcast_for_vectors();
    share_nested_reduce();
    interleave_nested_row_reductions();
    read_whole_line_pairs();
    if (k_.target_.has_local) {
      const Kernel before_locals = k_;
      k_.apply_local_heuristic();
      spread_skinny_reduce(before_locals);
    }
    deepen_gpu_register_tile();
    widen_elementwise_groups();
  }

private:
  bool try_opt(const Opt& o) {
    try {
      k_.apply_opt(o);
      return true;
    } catch (const KernelOptError&) {
      return false;
    }
  }

  size_t buffers() const { return k_.bufs_.size(); }
  bool is_load(size_t b) const { return k_.bufs_[b]->op == Ops::LOAD; }
  bool broadcast_in(size_t b, size_t axis) const {
    auto st = k_.stride_of(b, axis);
    return st && *st == 0;
  }

  // The product of the extents of the axes of these kinds (the threads of a group: Local; the groups: Global).
  int64_t extent_of(std::initializer_list<AxisKind> which) const {
    std::vector<int64_t> fs = k_.full_shape();
    std::vector<AxisKind> kinds = k_.axis_kinds();
    int64_t n = 1;
    for (size_t a = 0; a < fs.size(); a++)
      if (std::find(which.begin(), which.end(), kinds[a]) != which.end()) n *= fs[a];
    return n;
  }

  // GPU: a kernel without a reduce of its own that reads nested reduces constant along its last axis (a
  // softmax's max and sum of exps, a layer norm's statistics) gives each row to one work-group
  // (ir/cooperative_rows.h): 4 adjacent elements per thread where the row allows (vector loads and
  // stores), the row's threads as LOCAL, the rest of the row upcast. The group's threads then split
  // each nested reduce's loop, and the row is read from memory once per reduce.
  bool share_row_reduces_in_groups() {
    const KernelTarget& t = k_.target_;
    if (!(t.has_local && t.has_shared && t.warp_shuffle) || k_.has_reduce() || !k_.has_nested_reduce() || k_.first_reduce() == 0)
      return false;
    const size_t last = k_.first_reduce() - 1;
    const int64_t row = k_.full_shape()[last];
    bool nested_rows = false;
    for (size_t b = 0; b < buffers(); b++)
      if (is_nested_reduce(k_.bufs_[b].get())) {
        if (!broadcast_in(b, last)) return false;
        nested_rows = true;
      }
    if (!nested_rows || cooperative_row_lanes(row) == 0) return false;
    const int64_t v = kCooperativeRowVector, per_thread = row % v == 0 && cooperative_row_lanes(row / v) != 0 ? v : 1;
    if (per_thread > 1 && !try_opt({OptOp::UPCAST, static_cast<int64_t>(last), per_thread})) return false;
    const int64_t left = k_.full_shape()[last], lanes = cooperative_row_lanes(left);
    if (!try_opt({OptOp::LOCAL, static_cast<int64_t>(last), lanes})) return false;
    if (left > lanes) try_opt({OptOp::UPCAST, static_cast<int64_t>(last), left / lanes});
    return true;
  }

  // GPU: a reduce along contiguous rows (a big sum's partial rows, softmax's max and sum, a layer
  // norm's mean) takes a work-group per row: the group's threads read the row interleaved, so each warp
  // load is one contiguous line, each thread keeps several loads in flight (its loop unrolled), and the
  // partials meet in shared memory. Long rows get 256 threads; shorter ones 64, with 4 rows per group.
  // (The heuristics' thread per row read rows a stride apart: BEAM found these 6-10x faster on an H200.)
  bool group_contiguous_rows() {
    const KernelTarget& t = k_.target_;
    if (!(t.has_local && t.has_shared && k_.has_reduce()) || k_.first_reduce() + 1 != k_.first_upcast()) return false;
    const size_t r = k_.first_reduce();
    std::vector<int64_t> fs = k_.full_shape();
    int64_t outputs = 1;
    for (size_t a = 0; a < r; a++) outputs *= fs[a];
    const int64_t row = fs[r];
    if (row < kMinGroupedRow || outputs > kMaxGroupedRows) return false;
    bool contiguous = false, reused = false;  // reused: a matmul's operand, read again for other outputs
    for (size_t b = 0; b < buffers(); b++) {
      auto st = k_.stride_of(b, r);
      contiguous = contiguous || (is_load(b) && st && *st == 1);
      for (size_t a = 0; a < r; a++) reused = reused || (is_load(b) && fs[a] > 1 && broadcast_in(b, a));
    }
    if (reused && outputs >= kMaxTiledRows) return false;  // (a register tile pays there)
    const int64_t threads = row >= kLongRow ? 256 : 64;
    if (!contiguous || row % threads != 0 || !try_opt({OptOp::GROUP, 0, threads})) return false;
    const int64_t steps = row / threads;
    for (int64_t u = kLoadsInFlight; u >= 2; u /= 2)
      if (steps % u == 0 && try_opt({OptOp::UNROLL, 1, u})) break;  // (axis 1: the loop after the group axis)
    if (threads < 256 && r > 0) {
      const int64_t rows = 256 / threads;
      if (fs[r - 1] % rows == 0) try_opt({OptOp::LOCAL, static_cast<int64_t>(r - 1), rows});
    }
    return true;
  }
  static constexpr int64_t kMinGroupedRow = 256, kLongRow = 16384, kMaxGroupedRows = 65536, kLoadsInFlight = 16;
  static constexpr int64_t kMaxTiledRows = 1024;

  // GPU: a reduce with few outputs splits its reduce across a work-group (GROUPTOP through shared
  // memory). A grouped kernel takes nothing more (tinygrad's order): returns true then.
  bool group_small_reduce() {
    const KernelTarget& t = k_.target_;
    // (tinygrad also asks for at most 2 output axes; a conv's weight gradient, 8x3x3 outputs over 21,632
    // products each, then ran as 72 threads for 1.35 ms of a 1 ms training step)
    if (!(t.has_local && t.has_shared && k_.has_reduce() && k_.first_reduce() + 1 <= k_.shape_len()))
      return false;
    std::vector<int64_t> fs = k_.full_shape();
    int64_t outputs = 1;
    for (size_t a = 0; a < k_.first_reduce(); a++) outputs *= fs[a];
    if (outputs <= 2048) {
      for (int64_t sz : outputs <= 32 ? std::vector<int64_t>{256, 16} : std::vector<int64_t>{16}) {
        bool divides = true;
        for (const ShapeTracker& st : k_.sts_) {
          int64_t n = st.shape()[k_.first_reduce()].vmax();  // (a symbolic extent: GROUPTOP refuses it)
          divides = divides && (n % sz == 0 || n == 1);
        }
        if (divides && try_opt({OptOp::GROUPTOP, 0, sz})) break;
      }
    }
    return k_.group_for_reduces_ > 0;
  }

  // An elementwise kernel whose group is one warp (the local heuristic gives a lone axis 32 threads)
  // grows it to 256 along the same axis: fewer, fuller groups keep more work per multiprocessor in
  // flight (BEAM's choice on an H200: 4x faster for compute-heavy kernels such as rand's hash, no
  // slower for a plain add).
  void widen_elementwise_groups() {
    if (!k_.target_.has_local || k_.has_reduce()) return;
    const int64_t threads = extent_of({AxisKind::Local});
    if (threads <= 32) local_on_grid_axis(kElementwiseGroup / threads, false);
  }

  // LOCAL `amt` on the first grid axis (the last, with `last_first`) that it divides and leaves more of.
  void local_on_grid_axis(int64_t amt, bool last_first) {
    std::vector<int64_t> fs = k_.full_shape();
    std::vector<AxisKind> kinds = k_.axis_kinds();
    for (size_t i = 0; i < fs.size(); i++) {
      const size_t a = last_first ? fs.size() - 1 - i : i;
      if (kinds[a] == AxisKind::Global && fs[a] % amt == 0 && fs[a] > amt) {
        try_opt({OptOp::LOCAL, static_cast<int64_t>(a), amt});
        return;
      }
    }
  }
  static constexpr int64_t kElementwiseGroup = 256;

  // GPU: a big float kernel with a 4x4 register tile (a large matmul or convolution) takes a deeper
  // one: the first work-group axis of 8 or more is upcast by 4, so each thread keeps 64 accumulators
  // and loads each operand value once for 4x more products; a group left under 128 threads widens along
  // its last grid axis. BEAM's choice on an H200 for matmul_4096 (3x) and conv2d_resnet (2x).
  void deepen_gpu_register_tile() {
    if (!k_.target_.has_local || !k_.has_reduce() || upcast_product_ != 16 || global_elements() * upcast_product_ < kDeepTileOutputs)
      return;
    if (k_.reduceops_.empty() || k_.reduceops_.front()->dtype != dtypes::float32) return;
    std::vector<int64_t> fs = k_.full_shape();
    std::vector<AxisKind> kinds = k_.axis_kinds();
    bool deepened = false;
    for (size_t a = 0; a < fs.size() && !deepened; a++)
      if (kinds[a] == AxisKind::Local && fs[a] >= 8 && fs[a] % 4 == 0) deepened = try_opt({OptOp::UPCAST, static_cast<int64_t>(a), 4});
    if (!deepened) return;
    const int64_t threads = extent_of({AxisKind::Local});
    if (threads < 128) local_on_grid_axis(512 / threads, true);
  }
  static constexpr int64_t kDeepTileOutputs = int64_t(1) << 20;

  // GPU: a reduce kernel whose work-groups would not fill the GPU (a transformer's skinny matmuls: 128 x
  // 768 outputs of 3072 products each ran as 64 groups on an H200's 132 multiprocessors) shares each
  // output's reduce among 8 threads of its group (GROUPTOP, partials added in shared memory) and puts
  // fewer outputs in a group, so there are several groups per multiprocessor.
  void spread_skinny_reduce(const Kernel& before_locals) {
    if (k_.group_for_reduces_ > 0) return;
    if (!k_.has_reduce() || extent_of({AxisKind::Global}) >= kMinGroups || extent_of({AxisKind::Reduce}) < kMinSpreadLoop) return;
    Kernel locals = k_;
    k_ = before_locals;
    if (!try_opt({OptOp::GROUPTOP, 0, kSpread})) {
      k_ = std::move(locals);
      return;
    }
    int64_t threads = kSpread;
    for (size_t a = k_.first_reduce(); a-- > 0 && threads < kSpreadGroupThreads;) {
      std::vector<int64_t> fs = k_.full_shape();
      if (k_.axis_kinds()[a] != AxisKind::Global) continue;
      const int64_t groups = extent_of({AxisKind::Global});
      for (int64_t amt = kSpreadGroupThreads / threads; amt >= 2; amt /= 2)
        if (fs[a] % amt == 0 && groups / amt >= kMinGroups && try_opt({OptOp::LOCAL, static_cast<int64_t>(a), amt})) {
          threads *= amt;
          break;
        }
    }
  }
  static constexpr int64_t kMinGroups = 256, kMinSpreadLoop = 128, kSpread = 8, kSpreadGroupThreads = 256;

  // A small masked output axis upcast whole (a padded conv's edges).
  void upcast_masked_axis() {
    for (size_t a = 0; a < k_.first_reduce(); a++) {
      std::vector<int64_t> fs = k_.full_shape();
      if (fs[a] > 7 || fs[a] < 2) continue;
      bool masked = false;
      for (size_t b = 0; b < buffers(); b++) masked = masked || k_.sts_[b].axis_is_masked(a);
      if (masked && upcast_product_ * fs[a] <= 49 && try_opt({OptOp::UPCAST, static_cast<int64_t>(a), 0})) {
        upcast_product_ *= fs[a];
        break;
      }
    }
  }

  // UPCAST `axis` by `amt` (not whole) as a register tile axis. The opt drops axes of size 1 left from
  // the kernel's shape (a batch of one), which renumbers the axes after them: the tile's axes follow.
  bool upcast_tracked(size_t axis, int64_t amt) {
    std::vector<int64_t> before = k_.full_shape();
    if (!try_opt({OptOp::UPCAST, static_cast<int64_t>(axis), amt})) return false;
    auto renumbered = [&](size_t a) {
      size_t ones = 0;
      for (size_t i = 0; i < a; i++) ones += before[i] == 1;
      return a - ones;
    };
    std::set<size_t> axes{renumbered(axis)};
    for (size_t a : upcast_axes_) axes.insert(renumbered(a));
    upcast_axes_ = std::move(axes);
    return true;
  }

  int64_t global_elements() const {
    std::vector<int64_t> s = k_.full_shape();
    int64_t n = 1;
    for (size_t i = 0; i < k_.first_reduce(); i++) n *= s[i];
    return n;
  }

  // Register blocking: upcast output axes along which some loaded buffer is broadcast (matmul tiles).
  // As tinygrad: each axis at most once, and only for a buffer that is broadcast along it and not yet
  // along an upcast axis (so a matmul gets a square register tile, not one long row).
  void register_tile() {
    auto broadcast_upcast = [&](size_t b) {
      for (size_t u = k_.first_upcast(); u < k_.shape_len(); u++)
        if (broadcast_in(b, u)) return true;
      return false;
    };
    struct Choice {
      int64_t nonzero, stride_sum;
      size_t axis;
      int64_t amt;
    };
    // tinygrad takes the smaller amount on a tie; without work-groups the larger one, which the CPU's
    // widened tile (widen_cpu_tile) needs
    auto rank = [&](const Choice& c) { return std::make_tuple(c.nonzero, c.stride_sum, c.axis, k_.target_.has_local ? c.amt : -c.amt); };
    const int64_t floor = min_tiled_outputs();
    while (global_elements() >= floor) {
      std::vector<int64_t> s = k_.full_shape();
      std::optional<Choice> best;
      for (size_t a = 0; a < k_.first_reduce(); a++) {
        for (int64_t amt : {3, 4}) {
          if (upcast_axes_.count(a) || s[a] % amt != 0 || s[a] == amt) continue;
          bool broadcast_somewhere = false;
          int64_t nonzero = 0, stride_sum = 0;
          for (size_t b = 0; b < buffers(); b++) {
            auto st = k_.stride_of(b, a);
            // loads only (as tinygrad's buffers): a constant or a nested reduce read broadcast is computed
            // once outside the loop, there is no reuse to tile for
            if (st && *st == 0 && !broadcast_upcast(b) && is_load(b)) broadcast_somewhere = true;
            if (!st || *st != 0) nonzero++;
            stride_sum += st ? std::abs(*st) : 0;
          }
          if (!broadcast_somewhere) continue;
          Choice c{nonzero, stride_sum, a, amt};
          if (!best || rank(c) < rank(*best)) best = c;
        }
      }
      if (!best || !upcast_tracked(best->axis, best->amt)) break;
      upcast_product_ *= best->amt;
    }
  }

  // tinygrad tiles while 1024 outputs are left. On the CPU a kernel of few outputs over long reduces (a
  // conv's weight gradient: 1152 outputs of 18,432 products each) keeps tiling down to 64: every loaded
  // value (and the ReLU gradient computed from it) is then shared by more accumulators, and 64 rows of
  // tiles still split over a CPU's threads (cnn_train_step's two weight gradients: 5.7 -> 3.6 ms).
  int64_t min_tiled_outputs() const {
    if (k_.target_.has_local || !k_.has_reduce()) return 1024;
    std::vector<int64_t> s = k_.full_shape();
    int64_t per_output = 1;
    for (size_t a = k_.first_reduce(); a < k_.first_upcast(); a++) per_output *= s[a];
    return per_output >= kLongReduce ? 64 : 1024;
  }
  static constexpr int64_t kLongReduce = 4096;

  // CPU: a reduce kernel whose output axis is too small for 3 or 4 to divide (a classifier's 10
  // classes) and has a loaded operand broadcast along it upcasts that axis whole, so the operand is
  // loaded once for all of it instead of once per output.
  void upcast_small_broadcast_axis() {
    if (k_.target_.has_local || !k_.has_reduce() || !upcast_axes_.empty() || small_axis_upcast_) return;
    std::vector<int64_t> s = k_.full_shape();
    for (size_t a = 0; a < k_.first_reduce(); a++) {
      if (s[a] < 5 || s[a] > 16 || s[a] % 4 == 0 || s[a] % 3 == 0) continue;
      bool broadcast = false;
      for (size_t b = 0; b < buffers(); b++) broadcast = broadcast || (broadcast_in(b, a) && is_load(b));
      if (broadcast && try_opt({OptOp::UPCAST, static_cast<int64_t>(a), 0})) {
        upcast_product_ *= s[a];
        small_axis_upcast_ = true;
        break;
      }
    }
  }

  // CPU (no work-groups; the C compiler vectorizes the upcast lanes into vector registers): a 4x4 tile
  // leaves the FMA units idle, so a two-axis tile grows along its contiguous output axis to two vectors
  // per row (4x16 with 8-float vectors, 4x32 with 16-float ones; or by 2 where 4 does not divide: an
  // output row of 56 = 14 * 4 in a conv, 4x8), and its reduce is still unrolled by 4. With 32 vector
  // registers the tile doubles its rows to 8: 16 accumulators, and each column panel of the broadcast
  // operand is read half as often.
  void widen_cpu_tile() {
    if (k_.target_.has_local || !k_.has_reduce() || upcast_axes_.size() != 2 || upcast_product_ != 16) return;
    std::optional<std::pair<int64_t, size_t>> contiguous;  // (output stride, axis)
    for (size_t a : upcast_axes_) {
      auto st = k_.stride_of(0, a);
      if (st && *st > 0 && (!contiguous || *st < contiguous->first)) contiguous = std::make_pair(*st, a);
    }
    if (!contiguous) return;
    const int64_t item = std::max(1, k_.reduceops_.front()->dtype.itemsize());  // of an accumulator
    std::vector<int64_t> s = k_.full_shape();
    const size_t axis = vector_axis(contiguous->second, item);
    pad_to_preferred_row(axis, item);
    s = k_.full_shape();
    const int64_t row = cpu_tile_row_columns(k_.target_.vector_bytes, k_.target_.vector_registers, item, 4 * s[axis]);  // (upcast by 4 so far)
    // three vectors, else two, else narrower
    std::vector<int64_t> amounts{std::min<int64_t>(row / 4, 16)};
    for (int64_t amt = std::min<int64_t>(cpu_tile_two_vector_columns(k_.target_.vector_bytes, item) / 4, 16); amt >= 2; amt /= 2)
      amounts.push_back(amt);
    int64_t grow = 0;
    for (int64_t amt : amounts)
      if (!grow && s[axis] % amt == 0 && s[axis] > amt && try_opt({OptOp::UPCAST, static_cast<int64_t>(axis), amt})) grow = amt;
    if (!grow) return;
    upcast_product_ *= grow;
    cpu_tile_ = true;
    // the rows double while the registers hold the accumulators, the row's loaded vectors and a
    // broadcast: a row of two vectors gets 8 rows of 32 registers, 4 of 16; of three (AVX2's) 4; of one
    // vector (a conv's 8 output columns, 56 = 7 * 8) 16 and 8
    const int64_t vector_bytes = k_.target_.vector_bytes > 0 ? k_.target_.vector_bytes : 32;
    const int64_t per_row = std::max<int64_t>(1, 4 * grow * item / vector_bytes);
    for (size_t a : upcast_axes_) {
      if (a == axis) continue;
      int64_t rows = 4, left = s[a];
      bool whole = false;
      while (!whole && 2 * rows * per_row + per_row + 1 <= k_.target_.vector_registers && left % 2 == 0 &&
             try_opt({OptOp::UPCAST, static_cast<int64_t>(a), 2})) {
        upcast_product_ *= 2;
        rows *= 2;
        whole = left == 2;  // (an axis upcast whole is gone)
        left /= 2;
      }
      if (!whole) panels_outside_row_blocks(a, axis);
    }
  }

  // Where the tile row's axis does not divide into the target's preferred row (AVX2's three vectors),
  // the axis is padded to whole rows: the padded outputs are computed and not stored. Only where no load
  // gains a condition along it (cpu_tile_padded_columns; a load reading the padded columns inside its
  // buffer reads them unmasked, see PADTO), or the tile's inner loop would test every element it reads.
  void pad_to_preferred_row(size_t axis, int64_t item) {
    const int64_t preferred = cpu_tile_preferred_row_columns(k_.target_.vector_bytes, k_.target_.vector_registers, item);
    const int64_t columns = 4 * k_.full_shape()[axis];  // (upcast by 4 so far)
    if (preferred % 4 != 0 || cpu_tile_padded_columns(columns, preferred) == columns) return;
    Kernel trial = k_;
    try {
      trial.apply_opt({OptOp::PADTO, static_cast<int64_t>(axis), preferred / 4});
    } catch (const KernelOptError&) {
      return;
    }
    for (size_t b = 0; b < buffers(); b++)
      if (is_load(b) && !k_.sts_[b].axis_is_masked(static_cast<int64_t>(axis)) && trial.sts_[b].axis_is_masked(static_cast<int64_t>(axis)))
        return;
    k_ = std::move(trial);
  }

  // The tile axis the row's vectors run along: the output's contiguous one, or an axis a loaded operand
  // is contiguous along (and broadcast along the output's) where only that one fills whole vectors
  // (cpu_tile_vectors_along_operand). Both are upcast by 4 here, so contiguous means a stride of 4.
  size_t vector_axis(size_t output_contiguous, int64_t item) const {
    std::vector<int64_t> s = k_.full_shape();
    for (size_t a : upcast_axes_) {
      if (a == output_contiguous) continue;
      for (size_t b = 1; b < buffers(); b++) {
        auto st = k_.stride_of(b, a);
        if (is_load(b) && st && *st == 4 && broadcast_in(b, output_contiguous) &&
            cpu_tile_vectors_along_operand(k_.target_.vector_bytes, item, 4 * s[output_contiguous], 4 * s[a]))
          return a;
      }
    }
    return output_contiguous;
  }

  // The loop over the tile's column panels goes outside the loop over its row blocks. Each row block
  // then reads the panel of the operand broadcast along the rows from L2 (a packed panel is K x 32
  // floats), and the other operand is streamed once per panel; in the other order the whole broadcast
  // operand is streamed once per row block, four times the traffic with a tile 4x wider than tall
  // (matmul_1024 on AVX-512: 10.9 -> 7.3 ms). The outer loop is the one split across threads, so only
  // with enough panels for a many-core CPU's threads.
  void panels_outside_row_blocks(size_t rows, size_t panels) {
    if (rows < panels && k_.full_shape()[panels] >= kMinOuterChunks)
      try_opt({OptOp::SWAP, static_cast<int64_t>(rows), static_cast<int64_t>(panels)});
  }
  static constexpr int64_t kMinOuterChunks = 16;

  // CPU: a reduce that walks down the columns of a loaded input (its output axis contiguous in the
  // input, its reduce striding across rows: a column sum) uses one float of each cache line it reads
  // per output; with the output axis upcast by 64 (8 vector accumulators) every row step reads 4 whole
  // lines.
  void upcast_column_walk() {
    if (k_.target_.has_local || !k_.has_reduce() || !upcast_axes_.empty() || k_.upcasted_ != 0 || k_.first_reduce() == 0)
      return;
    size_t a = k_.first_reduce() - 1;
    for (size_t b = 0; b < buffers(); b++) {
      auto out = k_.stride_of(b, a), across = k_.stride_of(b, k_.first_reduce());
      column_walk_ = column_walk_ || (is_load(b) && out && *out == 1 && across && std::abs(*across) > 1);
    }
    for (int64_t amt : {16, 4}) {
      std::vector<int64_t> s = k_.full_shape();
      if (column_walk_ && s[a] % amt == 0 && s[a] > amt && try_opt({OptOp::UPCAST, static_cast<int64_t>(a), amt}))
        upcast_product_ *= amt;
    }
  }

  // CPU: a reduce along contiguous rows with nothing upcast (a big sum's first stage: 256 rows of 65536)
  // adds into one accumulator, each add waiting for the one before (4 cycles), far from the memory's
  // speed. Upcasting the rows by 8 runs 8 independent accumulators side by side (sum_16m: 7.6 -> 1.7 ms).
  void interleave_row_reductions() {
    if (k_.target_.has_local || !k_.has_reduce() || !upcast_axes_.empty() || k_.upcasted_ != 0 || column_walk_ ||
        k_.first_reduce() == 0)
      return;
    const size_t rows = k_.first_reduce() - 1, last_reduce = k_.first_upcast() - 1;
    bool contiguous = false;
    for (size_t b = 0; b < buffers(); b++) {
      auto along = k_.stride_of(b, last_reduce);
      contiguous = contiguous || (is_load(b) && along && *along == 1);
    }
    std::vector<int64_t> s = k_.full_shape();
    if (contiguous && s[last_reduce] >= 256 && s[rows] % 8 == 0 && s[rows] > 8 && try_opt({OptOp::UPCAST, static_cast<int64_t>(rows), 8}))
      upcast_product_ *= 8;
  }

  // The last reduce axis unrolled (whole when short, else by 4), unless the output tile is large, or
  // the copies of the loop body it makes (one per lane of the tile and unrolled iteration) would pass
  // kUnrolledOpsBudget: a fused backward pass can hold hundreds of ops per iteration, and a 64-lane
  // tile unrolled 32 times made 5 MB kernels no C compiler digests in reasonable time.
  void unroll_reduce() {
    if (!k_.has_reduce() || k_.first_reduce() >= k_.first_upcast()) return;
    std::vector<int64_t> s = k_.full_shape();
    size_t last_reduce = k_.first_upcast() - 1;
    int64_t last = s[last_reduce];
    if (upcast_product_ >= 64 && !cpu_tile_ && !column_walk_) return;
    const int64_t body = static_cast<int64_t>(kernel_scope_toposort(k_.ast()).size());
    auto fits = [&](int64_t copies) { return upcast_product_ * copies * body <= kUnrolledOpsBudget; };
    if (last <= 32 && last > 1 && fits(last)) try_opt({OptOp::UNROLL, static_cast<int64_t>(last_reduce - k_.first_reduce()), 0});
    else if (last % 4 == 0 && fits(4)) try_opt({OptOp::UNROLL, static_cast<int64_t>(last_reduce - k_.first_reduce()), 4});
  }
  static constexpr int64_t kUnrolledOpsBudget = 131072;

  // Nothing upcast yet and the last output axis divides by 4: upcast 4 (vector loads and stores). Not
  // for a CPU kernel without a reduce: the C compiler vectorizes its plain loop to the machine's full
  // width, which four scalar lanes only get in the way of.
  void upcast_for_vectors() {
    if (k_.upcasted_ != 0 || k_.first_reduce() == 0 || !(k_.target_.has_local || k_.has_reduce())) return;
    std::vector<int64_t> s = k_.full_shape();
    size_t a = k_.first_reduce() - 1;
    if (s[a] % 4 == 0 && s[a] > 4) try_opt({OptOp::UPCAST, static_cast<int64_t>(a), 4});
  }

  // A CPU kernel without a reduce of its own whose nested reduce is read along every output axis runs
  // that reduce once per output element (a weight gradient summing over the batch). Upcasting an axis
  // by 4 computes the part of it that does not depend on the axis (the softmax backward) once for 4
  // outputs. A nested reduce some axis does not read (a softmax's row max) already runs once outside
  // that axis's loop: nothing to share, so nothing is upcast.
  void share_nested_reduce() {
    if (k_.target_.has_local || k_.upcasted_ != 0 || k_.has_reduce() || !k_.has_nested_reduce()) return;
    std::vector<int64_t> s = k_.full_shape();
    bool per_element = false;
    for (size_t b = 0; b < buffers(); b++) {
      if (!is_nested_reduce(k_.bufs_[b].get())) continue;
      bool every_axis = true;
      for (size_t a = 0; a < k_.first_reduce(); a++) every_axis = every_axis && (s[a] == 1 || !broadcast_in(b, a));
      per_element = per_element || every_axis;
    }
    for (size_t a = k_.first_reduce(); per_element && a-- > 0;)
      if (s[a] % 4 == 0 && s[a] > 4 && try_opt({OptOp::UPCAST, static_cast<int64_t>(a), 4})) break;
  }

  // CPU: a kernel without a reduce of its own whose nested reduces each run along a row (a softmax's
  // max and sum, broadcast along the columns it then writes) runs each as one chain of dependent steps
  // per row. Upcasting the rows they vary along by 8 runs 8 rows' chains side by side
  // (softmax_4096x1024: 14.4 -> 10.7 ms).
  void interleave_nested_row_reductions() {
    if (k_.target_.has_local || k_.upcasted_ != 0 || k_.has_reduce() || !k_.has_nested_reduce()) return;
    std::vector<int64_t> s = k_.full_shape();
    for (size_t a = k_.first_reduce(); a-- > 0;) {
      bool varies = false, broadcast_elsewhere = false;
      for (size_t b = 0; b < buffers(); b++) {
        if (!is_nested_reduce(k_.bufs_[b].get())) continue;
        varies = varies || !broadcast_in(b, a);
        for (size_t o = 0; o < k_.first_reduce(); o++) broadcast_elsewhere = broadcast_elsewhere || (o != a && s[o] > 1 && broadcast_in(b, o));
      }
      if (varies && broadcast_elsewhere && s[a] % 8 == 0 && s[a] > 8 && try_opt({OptOp::UPCAST, static_cast<int64_t>(a), 8})) return;
    }
  }

  // CPU: a kernel without a reduce whose rows are shorter than a pair of cache lines (a matmul operand
  // copied into 16-float panels: 64 bytes per row of the source) walks the source down its columns one
  // line at a time. When the source goes on along another axis right where a row ends, upcasting that
  // axis makes each step read 128 contiguous bytes, the pair the L2 prefetcher fetches anyway (the
  // transformer block's packing on AVX2: 3.6 -> 2.4 ms).
  void read_whole_line_pairs() {
    if (k_.target_.has_local || k_.has_reduce() || k_.upcasted_ != 0 || k_.first_reduce() < 2) return;
    std::vector<int64_t> s = k_.full_shape();
    const size_t last = k_.first_reduce() - 1;
    for (size_t b = 1; b < buffers(); b++) {
      auto inner = k_.stride_of(b, last);
      if (!is_load(b) || !inner || *inner != 1) continue;
      const int64_t row_bytes = s[last] * std::max(1, k_.bufs_[b]->dtype.itemsize());
      if (row_bytes >= kLinePairBytes || kLinePairBytes % row_bytes != 0) continue;
      const int64_t amt = kLinePairBytes / row_bytes;
      for (size_t a = 0; a < last; a++) {
        auto st = k_.stride_of(b, a);
        if (st && *st == s[last] && s[a] % amt == 0 && s[a] > amt && try_opt({OptOp::UPCAST, static_cast<int64_t>(a), amt})) return;
      }
    }
  }
  static constexpr int64_t kLinePairBytes = 128;

  Kernel& k_;
  int64_t upcast_product_ = 1;   // lanes of the upcasts applied so far
  std::set<size_t> upcast_axes_;  // the register tile's axes
  bool cpu_tile_ = false;        // widen_cpu_tile grew the tile
  bool column_walk_ = false;     // upcast_column_walk's kind of kernel
  bool small_axis_upcast_ = false;  // upcast_small_broadcast_axis applied
};

void Kernel::hand_coded_optimizations() { HandCodedHeuristics(*this).run(); }

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
