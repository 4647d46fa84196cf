#include "codegen/work_group_reduce.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

namespace loupe::lowering {

namespace {

bool power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// The launch dim (0, 1, 2: x, y, z) of a SPECIAL lidxN / gidxN.
int launch_dim(const UOp* special) { return special->arg.as_string().back() - '0'; }

// Element types __shfl_xor_sync takes (half from cuda_fp16.h; no bool, char or short).
bool shuffles(DType t) {
  static const std::set<Scalar> ok{Scalar::Float16, Scalar::Float32, Scalar::Float64, Scalar::Int32, Scalar::UInt32,
                                   Scalar::Int64, Scalar::UInt64};
  return t.count == 1 && !t.is_ptr && ok.contains(t.scalar_type);
}

} // namespace

void plan_warp_lanes(LowerContext& ctx, const std::vector<int64_t>& locals, const UOpList& local_ids) {
  int64_t threads = 1;
  for (int64_t d : locals) threads *= d;
  if (threads % 32 != 0 && threads > 32) return;
  std::array<int64_t, 3> dim_size{1, 1, 1};
  for (const UOpPtr& id : local_ids)
    for (const UOp* u : id->toposort())
      if (u->op == Ops::SPECIAL) dim_size[static_cast<size_t>(launch_dim(u))] = u->src[0]->const_int();
  ctx.warp_lanes = std::min<int64_t>(threads, 32);
  for (int64_t a : ctx.thread_axes()) {  // (a nested reduce's row lanes may be local axes)
    const UOpPtr& id = ctx.idxs[a];
    if (id->op != Ops::SPECIAL || !power_of_two(ctx.full_shape[a])) continue;
    int64_t step = 1;
    for (int d = 0; d < launch_dim(id.get()); d++) step *= dim_size[static_cast<size_t>(d)];
    if (power_of_two(step)) ctx.lane_step[a] = step;
  }
}

// The second half of a GROUP reduce. Where the target has warp shuffles, the partials of one warp
// combine first by butterfly exchanges (each step folds in the value of the lane whose id differs in
// one bit of a group axis), after which every lane of the warp holds their result. What spans more
// than a warp goes through a shared temp laid out over the local, group and upcast axes: each thread
// stores its value, waits at a barrier, and every thread folds the values of the group (one per warp
// where shuffles ran; unrolled: the linearizer nests loops by axis order, and this fold must follow
// the partial loops). `layout`: the axes the temp is laid out over, the grouped ones among them.
// (Without shuffles, a tree fold in the temp, log2(n) halving steps a barrier apart, measured slower on
// PoCL: sum_16m 3.7-4.3 -> 4.7 ms, softmax 16.3 -> 21.3 ms, as each barrier splits PoCL's work-item
// loops; not tried on an OpenCL GPU.)
UOpPtr group_reduce(LowerContext& ctx, Ops op, DType dtype, const UOpPtr& partial, const std::vector<int64_t>& grouped,
                    const std::vector<int64_t>& layout) {
  UOpPtr value = partial;
  std::map<int64_t, int64_t> combined;  // group axis -> how many of its values each lane's value holds
  bool all_in_warp = true;
  for (int64_t a : grouped) {
    auto step = ctx.lane_step.find(a);
    int64_t n = 1;
    if (ctx.warp_lanes > 0 && shuffles(dtype) && step != ctx.lane_step.end())
      for (; n < ctx.full_shape[a] && step->second * n < ctx.warp_lanes; n *= 2) {
        UOpPtr other = UOp::make(Ops::SHUFFLE_XOR, dtype, {value}, Arg(Arg::Tuple{Arg(step->second * n), Arg(ctx.warp_lanes)}));
        value = UOp::make(op, dtype, {value, other});
      }
    combined[a] = n;
    all_in_warp = all_in_warp && n == ctx.full_shape[a];
  }
  if (all_in_warp) return value;
  const int64_t size = ctx.elements(layout);
  UOpPtr temp = UOp::make(Ops::DEFINE_LOCAL, dtype.ptr(size, true), {}, Arg("temp" + std::to_string(ctx.temp_count++)));
  ctx.shared_used += size * dtype.itemsize();
  auto offset = [&](const std::map<int64_t, int64_t>& fixed) {
    UOpPtr off = UOp::cnst_int(dtypes::index, 0);
    int64_t stride = 1;
    for (auto it = layout.rbegin(); it != layout.rend(); ++it) {
      auto f = fixed.find(*it);
      UOpPtr i = f != fixed.end() ? UOp::cnst_int(dtypes::index, f->second) : ctx.idxs[*it];
      off = off + i * UOp::cnst_int(dtypes::index, stride);
      stride *= ctx.full_shape[*it];
    }
    return off;
  };
  UOpPtr store = UOp::make(Ops::STORE, dtypes::void_, {UOp::make(Ops::INDEX, temp->dtype, {temp, offset({})}), value});
  UOpPtr barrier = UOp::make(Ops::BARRIER, dtypes::void_, {store});
  // one value of each warp's along every grouped axis, first axis outermost, folded in order
  std::vector<std::map<int64_t, int64_t>> combos{{}};
  for (int64_t a : grouped) {
    std::vector<std::map<int64_t, int64_t>> next;
    for (const auto& c : combos)
      for (int64_t k = 0; k < ctx.full_shape[a]; k += combined[a]) {
        auto d = c;
        d[a] = k;
        next.push_back(std::move(d));
      }
    combos = std::move(next);
  }
  UOpPtr acc;
  for (const auto& c : combos) {
    UOpPtr ld = UOp::make(Ops::LOAD, dtype, {UOp::make(Ops::INDEX, temp->dtype, {temp, offset(c)}), barrier});
    acc = acc ? UOp::make(op, dtype, {acc, ld}) : ld;
  }
  return acc;
}

RowLanes row_lanes(const LowerContext& k, const UOpPtr& coords) {
  RowLanes r;
  // once per run of the kernel: inside a loop the next iteration's partials could overwrite the temp
  // while other threads still read this one's (upcast axes are placeholders, not loops)
  for (const UOp* x : coords->toposort())
    if (x->op == Ops::RANGE && !k.is_upcast(x)) return r;
  std::vector<std::pair<int, int64_t>> by_dim;  // (lidx dim, axis); a kernel reduce's group reads the same row
  for (int64_t a : k.thread_axes()) {
    const UOpPtr& id = k.idxs[static_cast<size_t>(a)];
    if (id->op == Ops::SPECIAL && !uses(coords, id.get())) by_dim.emplace_back(launch_dim(id.get()), a);
  }
  std::sort(by_dim.begin(), by_dim.end());
  for (const auto& [dim, a] : by_dim) {
    const UOpPtr& id = k.idxs[static_cast<size_t>(a)];
    r.lane = r.lane ? r.lane + id * UOp::cnst_int(dtypes::index, r.count) : id;
    r.count *= k.full_shape[static_cast<size_t>(a)];
    r.axes.push_back(a);
  }
  return r;
}

std::vector<int64_t> nested_temp_layout(const LowerContext& k, const UOpPtr& coords) {
  std::vector<int64_t> out;
  for (int64_t a : k.shared_axes) {
    const UOpPtr& id = k.idxs[static_cast<size_t>(a)];
    if (!k.is_upcast(id.get()) || uses(coords, id.get())) out.push_back(a);
  }
  return out;
}

bool fits_shared(const LowerContext& k, const std::vector<int64_t>& layout, DType dtype) {
  const int64_t kernel_group = k.group_axes.empty() ? 0 : k.elements(k.shared_axes) * 8;
  return k.shared_used + kernel_group + k.elements(layout) * dtype.itemsize() <= k.shared_max;
}

} // namespace loupe::lowering
