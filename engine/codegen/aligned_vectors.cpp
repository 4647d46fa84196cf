#include "codegen/aligned_vectors.h"

#include <map>
#include <tuple>

#include "codegen/stage_table.h"
#include "rewrite/graph_rewrite.h"

namespace loupe {

namespace {

// The INDEX under a vector access's pointer cast, when `ptr` is one.
const UOp* vector_index(const UOpPtr& ptr) {
  if (ptr->op != Ops::CAST || !ptr->dtype.is_ptr || ptr->dtype.base().count < 2 || ptr->src[0]->op != Ops::INDEX) return nullptr;
  return ptr->src[0].get();
}

bool aligned_at(const UOp* index, int width) { return index->src.size() == 2 && index->src[1]->divides(width) != nullptr; }

// INDEX `index` moved on by k elements (a constant offset kept last, as split_address reads it).
UOpPtr lane_index(const UOp* index, int64_t k) {
  const UOpPtr& idx = index->src[1];
  UOpPtr moved;
  if (idx->op == Ops::CONST) moved = UOp::cnst_int(idx->dtype, idx->const_int() + k);
  else if (idx->op == Ops::ADD && idx->src[1]->op == Ops::CONST)
    moved = UOp::make(Ops::ADD, idx->dtype, {idx->src[0], UOp::cnst_int(idx->dtype, idx->src[1]->const_int() + k)});
  else moved = UOp::make(Ops::ADD, idx->dtype, {idx, UOp::cnst_int(idx->dtype, k)});
  return UOp::make(Ops::INDEX, index->dtype, {index->src[0], moved});
}

UOpPtr lane_of(const UOpPtr& v, size_t k) { return v->dtype.count > 1 ? gep(v, k) : v; }

} // namespace

UOpPtr split_unaligned_vectors(const UOpPtr& sink, const VectorTarget& target) {
  if (!target.aligned || target.vector_bytes == 0) return sink;
  static const Rule load_rule = rule("unaligned_vector_load_to_lanes", UPat::op_any_src(Ops::LOAD), nullptr);
  static const Rule store_rule = rule("unaligned_vector_store_to_lanes", UPat::op_any_src(Ops::SINK), nullptr);
  TracedStage stage(stage_name(Stage::SplitUnalignedVectors), sink);
  UOpMap<UOpPtr> loads;
  for (const UOp* u : sink->toposort()) {
    if (u->op != Ops::LOAD || u->src.empty()) continue;
    const UOp* index = vector_index(u->src[0]);
    const int width = u->dtype.count;
    if (!index || aligned_at(index, width)) continue;
    UOpList lanes;
    for (int k = 0; k < width; k++) {
      UOpList src{lane_index(index, k)};
      if (u->src.size() == 3) {  // gated: the alternative value and the gate, lane k of each
        src.push_back(UOp::make(Ops::CONST, u->dtype.scalar(), {}, u->src[1]->arg));
        src.push_back(lane_of(u->src[2], size_t(k)));
      }
      lanes.push_back(UOp::make(Ops::LOAD, u->dtype.scalar(), std::move(src)));
    }
    UOpPtr packed = UOp::make(Ops::VECTORIZE, u->dtype, std::move(lanes));
    if (stage.observed()) stage.step(u->ptr(), packed, load_rule);
    loads.emplace(u->ptr(), std::move(packed));
  }
  UOpPtr g = loads.empty() ? sink : substitute(sink, loads);
  UOpList out;
  bool split = false;
  for (const UOpPtr& st : g->src) {
    const UOp* index = st->op == Ops::STORE && st->src.size() >= 2 ? vector_index(st->src[0]) : nullptr;
    const int width = index ? st->src[1]->dtype.count : 0;
    if (!index || aligned_at(index, width)) {
      out.push_back(st);
      continue;
    }
    split = true;
    for (int k = 0; k < width; k++) {
      UOpList src{lane_index(index, k), gep(st->src[1], size_t(k))};
      if (st->src.size() == 3) src.push_back(lane_of(st->src[2], size_t(k)));
      out.push_back(UOp::make(Ops::STORE, dtypes::void_, std::move(src)));
    }
  }
  if (!split) return stage.finish(g);
  UOpPtr result = UOp::make(Ops::SINK, dtypes::void_, std::move(out), g->arg);
  if (stage.observed()) stage.step(g, result, store_rule);
  return stage.finish(result);
}

UOpPtr join_aligned_loads(const UOpPtr& sink, const VectorTarget& target) {
  if (!target.aligned || target.vector_bytes == 0) return sink;
  static const Rule join_rule = rule("join_aligned_load_lanes", UPat::op_any_src(Ops::LOAD), nullptr);
  TracedStage stage(stage_name(Stage::JoinAlignedLoads), sink);
  struct Key {
    const UOp* buffer;
    const UOp* base;
    DType dtype;
    bool operator<(const Key& o) const {
      return std::tie(buffer, base, dtype.scalar_type) < std::tie(o.buffer, o.base, o.dtype.scalar_type);
    }
  };
  std::map<Key, std::map<int64_t, const UOp*>> runs;  // offset -> its load
  for (const UOp* u : sink->toposort()) {
    if (u->op != Ops::LOAD || u->src.size() != 1 || u->dtype.count != 1 || !target.joins(u->dtype)) continue;
    const UOpPtr& index = u->src[0];
    if (index->op != Ops::INDEX || index->src.size() != 2 || index->src[0]->op != Ops::DEFINE_GLOBAL) continue;
    AddressParts a = split_address(index->src[1]);
    runs[{index->src[0].get(), a.base, u->dtype}][a.offset] = u;
  }
  UOpMap<UOpPtr> lanes;
  for (auto& [key, loads] : runs) {
    const int width = target.vector_bytes / key.dtype.itemsize();
    if (width < 2 || loads.size() < size_t(width)) continue;
    if (key.base && !key.base->divides(width)) continue;
    for (auto& [offset, first] : loads) {
      if (offset % width != 0) continue;
      std::vector<const UOp*> run{first};
      for (int k = 1; k < width; k++) {
        auto it = loads.find(offset + k);
        if (it == loads.end()) break;
        run.push_back(it->second);
      }
      if (run.size() != size_t(width)) continue;
      UOpPtr vec = UOp::make(Ops::LOAD, key.dtype.vec(width), {vector_pointer(first->src[0], width)});
      for (int k = 0; k < width; k++) {
        UOpPtr lane = gep(vec, size_t(k));
        if (stage.observed()) stage.step(run[size_t(k)]->ptr(), lane, join_rule);
        lanes.emplace(run[size_t(k)]->ptr(), std::move(lane));
      }
    }
  }
  return stage.finish(lanes.empty() ? sink : substitute(sink, lanes));
}

} // namespace loupe
