#include "codegen/staging.h"

#include <algorithm>

#include "ir/eval.h"
#include "ir/shared_memory_ops.h"
#include "symbolic/symbolic.h"

namespace loupe {

namespace {
constexpr int64_t kCopyBytes = 16;              // cp.async's widest copy
constexpr int64_t kMaxCopiesPerThread = 64;     // beyond this the tile is too big to be worth it
} // namespace

std::optional<StagedTile> plan_staged_tile(const Kernel& k, int operand, std::string* why) {
  auto no = [&](const std::string& reason) -> std::optional<StagedTile> {
    if (why) *why = reason;
    return std::nullopt;
  };
  const StagingUse& use = k.staging();
  if (!k.target().has_shared) return no("the target has no shared memory");
  const ShapeTracker& st = k.sts()[use.buf[operand]];
  if (st.views().size() != 1 || st.views()[0].mask) return no("the operand is not read through one unmasked strided view");
  const View& v = st.views()[0];
  StagedTile t;
  t.dtype = use.dtype[operand];
  t.shape = k.full_shape();
  if (kCopyBytes % t.dtype.itemsize() != 0) return no(cat(t.dtype.name(), " values do not fill 16-byte copies"));
  t.chunk_elems = kCopyBytes / static_cast<int64_t>(t.dtype.itemsize());
  std::vector<AxisKind> kinds = k.axis_kinds();
  if (!v.offset.is_int() || v.offset.as_int() % t.chunk_elems != 0) return no("the operand's first element is not 16-byte aligned");
  std::vector<int64_t> stride(t.shape.size());
  std::vector<size_t> tile;  // the axes whose values one work-group reads in one iteration
  for (size_t a = 0; a < t.shape.size(); a++) {
    if (!v.strides[a].is_int()) return no("a symbolic stride");
    stride[a] = v.strides[a].as_int();
    bool in_group = kinds[a] == AxisKind::Local || kinds[a] == AxisKind::GroupReduce;
    if (in_group) t.thread_axes.push_back(a), t.threads *= t.shape[a];
    if ((in_group || kinds[a] == AxisKind::Upcast || kinds[a] == AxisKind::Unroll) && stride[a] != 0 && t.shape[a] > 1)
      tile.push_back(a);
    else if (stride[a] % t.chunk_elems != 0)
      return no(cat("axis ", a, " moves the operand by ", stride[a], " elements: not 16-byte aligned"));
  }
  std::stable_sort(tile.begin(), tile.end(), [&](size_t x, size_t y) { return std::abs(stride[x]) > std::abs(stride[y]); });
  for (size_t i = 0; i < tile.size(); i++)
    if (stride[tile[i]] < 0 || (i > 0 && stride[tile[i]] == stride[tile[i - 1]]))
      return no("the tile's axes are flipped or overlap in memory");
  // the run: the innermost axes, each as far apart as the ones inside it span
  size_t first_run = tile.size();
  while (first_run > 0 && stride[tile[first_run - 1]] == t.row_elems) t.row_elems *= t.shape[tile[--first_run]];
  if (t.row_elems % t.chunk_elems != 0)
    return no(cat("the operand's contiguous run in a tile is ", t.row_elems, " values, not a multiple of 16 bytes"));
  for (size_t i = 0; i < tile.size(); i++) {
    if (i < first_run) {
      if (stride[tile[i]] % t.chunk_elems != 0) return no(cat("the tile's rows are not 16-byte aligned (axis ", tile[i], ")"));
      t.outer_axes.push_back(tile[i]);
      t.rows *= t.shape[tile[i]];
    } else {
      t.run_axes.push_back(tile[i]);
      t.run_strides.push_back(stride[tile[i]]);
    }
  }
  t.pitch = t.row_elems + (t.rows > 1 ? t.chunk_elems : 0);
  int64_t chunks = t.rows * t.row_elems / t.chunk_elems;
  if (chunks % t.threads != 0)
    return no(cat("the tile's ", chunks, " 16-byte pieces do not divide among the work-group's ", t.threads, " threads"));
  t.copies_per_thread = chunks / t.threads;
  if (t.copies_per_thread > kMaxCopiesPerThread)
    return no(cat("the tile takes ", t.copies_per_thread, " copies per thread (at most ", kMaxCopiesPerThread, ")"));
  return t;
}

void Kernel::apply_stage(const Opt& opt) {
  auto fail = [&](const std::string& why) { throw KernelOptError(cat(opt.str(), ": ", why)); };
  if (opt.axis != 0 && opt.axis != 1) fail("STAGE's axis is the operand, 0 or 1 (A or B of a TC kernel)");
  if (opt.arg < 0 || opt.arg > 2) fail("STAGE's amount is the tiles per operand, 1 or 2 (0: 1)");
  if (!target_.async_copy) fail("STAGE needs asynchronous copies into shared memory (cp.async: CUDA sm_80 and newer)");
  if (!target_.has_local || !target_.has_shared || dont_use_locals_) fail("STAGE needs work-groups with shared memory");
  if (reduceops_.size() != 1 || has_nested_ || group_for_reduces_ > 0) fail("STAGE needs exactly one reduce, not grouped");
  if (reduceops_[0]->arg.as_tuple()[0].as_op() != Ops::ADD) fail("STAGE needs a sum of products");
  if (has_symbolic_axis()) fail("the kernel has a symbolic axis (its tiles are planned for fixed extents)");
  std::optional<std::array<const UOp*, 2>> loads = product_loads(reduceops_[0]);
  if (!loads) fail("STAGE needs a sum of products of two loads");
  const StagingUse before = staging_;
  if (!staging_.any()) {  // which tracker and MUL source each operand is
    for (int operand : {0, 1}) {
      staging_.mul_src[operand] = tc_ ? (operand == 0 ? tc_->a_operand : 1 - tc_->a_operand) : operand;
      const UOp* ld = (*loads)[static_cast<size_t>(staging_.mul_src[operand])];
      staging_.buf[operand] = tracker_of(ld);
      staging_.dtype[operand] = tc_ ? tc_->dtype_in : ld->dtype;
    }
  }
  const int stages = opt.arg == 2 ? 2 : 1;
  if (staging_.staged[opt.axis]) fail("the operand is staged already");
  if (staging_.any() && staging_.stages != stages)
    fail(cat("the other operand is staged with ", staging_.stages, " tiles; both take the same"));
  staging_.staged[opt.axis] = true;
  staging_.stages = stages;
  try {
    check_staging(opt);
  } catch (const KernelOptError&) {
    staging_ = before;
    throw;
  }
}

void Kernel::check_staging(const Opt& opt) const {
  int64_t bytes = 0;
  for (int operand : {0, 1}) {
    if (!staging_.staged[operand]) continue;
    std::string why;
    std::optional<StagedTile> t = plan_staged_tile(*this, operand, &why);
    if (!t) throw KernelOptError(cat(opt.str(), ": staging operand ", tc_ ? (operand == 0 ? "A" : "B") : std::to_string(operand), ": ", why));
    bytes += t->bytes() * staging_.stages;
  }
  if (staging_.stages == 2) {  // the next iteration's tile: there must be one K loop whose next iteration it is
    int loops = 0;
    std::vector<AxisKind> kinds = axis_kinds();
    std::vector<int64_t> fs = full_shape();
    for (size_t a = 0; a < kinds.size(); a++) loops += kinds[a] == AxisKind::Reduce && fs[a] > 1;
    if (loops != 1) throw KernelOptError(cat(opt.str(), ": two tiles need exactly one K loop, the kernel has ", loops));
  }
  if (bytes > target_.shared_max)
    throw KernelOptError(cat(opt.str(), ": the staged tiles take ", bytes, " bytes of shared memory, the target has ", target_.shared_max));
}

namespace {

UOpPtr index_const(int64_t v) { return UOp::cnst_int(dtypes::index, v); }

// The offset of a tile element in shared memory, from its coordinates along the tile's axes.
UOpPtr tile_offset(const StagedTile& t, const UOpList& idxs) {
  UOpPtr row = index_const(0);
  for (size_t a : t.outer_axes) row = row * index_const(t.shape[a]) + idxs[a];
  UOpPtr off = row * index_const(t.pitch);
  for (size_t i = 0; i < t.run_axes.size(); i++) off = off + idxs[t.run_axes[i]] * index_const(t.run_strides[i]);
  return off;
}

} // namespace

UOpPtr staged_tile_memory(const StagedTile& t, int stages, const std::string& name) {
  return UOp::make(Ops::DEFINE_LOCAL, t.dtype.ptr(stages * t.rows * t.pitch, true), {}, Arg(name));
}

UOpList lower_staged_copies(const StagedTile& t, const UOpPtr& smem, const UOpPtr& slot, const UOpPtr& buffer,
                            const ShapeTracker& view, const UOpList& idxs, const UOpPtr& after, const UOpPtr& gate) {
  UOpList copies;
  UOpPtr tid = index_const(0);
  for (auto a = t.thread_axes.rbegin(); a != t.thread_axes.rend(); ++a) tid = tid * index_const(t.shape[*a]) + idxs[*a];
  const int64_t chunks_per_row = t.row_elems / t.chunk_elems;
  const UOpPtr first = slot * index_const(t.rows * t.pitch);
  for (int64_t j = 0; j < t.copies_per_thread; j++) {
    UOpPtr piece = index_const(j * t.threads) + tid;
    UOpPtr row = floordiv(piece, chunks_per_row), along = floormod(piece, chunks_per_row) * index_const(t.chunk_elems);
    // the piece's coordinates along the tile's axes: rows row-major, a row's axes by their strides
    UOpList at = idxs;
    UOpPtr rest = row;
    for (auto a = t.outer_axes.rbegin(); a != t.outer_axes.rend(); ++a) {
      at[*a] = floormod(rest, t.shape[*a]);
      rest = floordiv(rest, t.shape[*a]);
    }
    for (size_t i = 0; i < t.run_axes.size(); i++) at[t.run_axes[i]] = floormod(floordiv(along, t.run_strides[i]), t.shape[t.run_axes[i]]);
    auto [global, valid] = view.to_indexed(at);
    LOUPE_ASSERT(valid->op == Ops::CONST && valid->const_value() != 0, "a staged operand with a mask");
    UOpList src{UOp::make(Ops::INDEX, smem->dtype, {smem, first + row * index_const(t.pitch) + along}),
                UOp::make(Ops::INDEX, buffer->dtype, {buffer, global})};
    if (gate) src.push_back(gate);
    if (after) src.push_back(after);
    copies.push_back(UOp::make(Ops::ASYNC_COPY, dtypes::void_, std::move(src), Arg(t.chunk_elems)));
  }
  return copies;
}

UOpPtr lower_staged_read(const StagedTile& t, const UOpPtr& smem, const UOpPtr& slot, const UOpList& idxs, const UOpPtr& ready) {
  UOpPtr at = slot * index_const(t.rows * t.pitch) + tile_offset(t, idxs);
  return UOp::make(Ops::LOAD, t.dtype, {UOp::make(Ops::INDEX, smem->dtype, {smem, at}), ready});
}

namespace {

// The element a LOAD_MATRIX gives lane `lane` as value `value`, from the row addresses the lanes gave.
int64_t matrix_element(const std::vector<int64_t>& row_address, int lane, int value, bool transposed) {
  MatrixValueSource from = load_matrix_source(lane, value, transposed);
  return row_address[static_cast<size_t>(from.row_lane)] + from.column;
}

bool is_index_variable(const UOp* u) { return u->op == Ops::RANGE || u->op == Ops::SPECIAL || u->op == Ops::DEFINE_VAR; }

} // namespace

std::optional<UOpList> fragments_as_matrices(const UOpList& reads, const std::vector<MatrixRows>& candidates,
                                             const UOpPtr& lane_n, const UOpPtr& lane_m) {
  const int values = static_cast<int>(reads.size());
  if (values != 4 && values != 8) return std::nullopt;
  UOpList offsets;
  for (const UOpPtr& r : reads) {
    if (r->op != Ops::LOAD || r->src.size() != 2 || r->src[0]->op != Ops::INDEX || r->src[0]->src[0]->op != Ops::DEFINE_LOCAL)
      return std::nullopt;
    if (r->src[0]->src[0] != reads[0]->src[0]->src[0] || r->src[1] != reads[0]->src[1]) return std::nullopt;
    offsets.push_back(r->src[0]->src[1]);
  }
  const UOpPtr& tile = reads[0]->src[0]->src[0];
  if (tile->dtype.base().scalar().itemsize() != 2) return std::nullopt;
  for (const MatrixRows& c : candidates) {
    // every index the addresses use, other than the lanes: at 0, then each at 1 in turn
    std::vector<std::string> others;
    for (const UOpPtr& e : UOpList{c.address, offsets[0]})
      for (const UOp* u : e->toposort())
        if (is_index_variable(u) && u != lane_n.get() && u != lane_m.get() &&
            std::find(others.begin(), others.end(), u->var_name()) == others.end())
          others.push_back(u->var_name());
    VarValues at;
    for (const std::string& v : others) at[v] = 0;
    auto eval_at = [&](const UOpPtr& e, int lane) {
      at[lane_m->var_name()] = lane / 4;
      at[lane_n->var_name()] = lane % 4;
      return eval_int(e, at);
    };
    bool ok = true;
    std::vector<int64_t> rows(32);
    for (int lane = 0; lane < 32 && ok; lane++) ok = (rows[static_cast<size_t>(lane)] = eval_at(c.address, lane)) % 8 == 0;
    for (int lane = 0; lane < 32 && ok; lane++)
      for (int i = 0; i < values && ok; i++) ok = eval_at(offsets[static_cast<size_t>(i)], lane) == matrix_element(rows, lane, i, c.transposed);
    for (const std::string& v : others) {  // the rest moves the rows and the reads alike, by whole rows
      if (!ok) break;
      int64_t row0 = eval_at(c.address, 0), read0 = eval_at(offsets[0], 0);
      at[v] = 1;
      int64_t row_step = eval_at(c.address, 0) - row0, read_step = eval_at(offsets[0], 0) - read0;
      at[v] = 0;
      ok = row_step == read_step && row_step % 8 == 0;
    }
    if (!ok) continue;
    UOpPtr m = UOp::make(Ops::LOAD_MATRIX, tile->dtype.base().scalar().vec(values), {UOp::make(Ops::INDEX, tile->dtype, {tile, c.address}), reads[0]->src[1]},
                         Arg(Arg::Tuple{Arg(int64_t(values / 2)), Arg(c.transposed)}));
    UOpList out;
    for (int64_t i = 0; i < values; i++) out.push_back(UOp::make(Ops::GEP, m->dtype.scalar(), {m}, Arg::ints({i})));
    return out;
  }
  return std::nullopt;
}

} // namespace loupe
