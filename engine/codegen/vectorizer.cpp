#include "codegen/vectorizer.h"

#include <algorithm>
#include <map>
#include <span>
#include <tuple>
#include <unordered_map>

#include "codegen/stage_table.h"
#include "render/renderer.h"
#include "rewrite/graph_rewrite.h"
#include "support/error.h"
#include "support/flat_ptr_map.h"
#include "support/hash.h"

namespace loupe {

bool vector_element(DType t) { return !t.is_ptr && t.count == 1 && is_vector_alu_element(t); }

AddressParts split_address(const UOpPtr& idx) {
  if (idx->op == Ops::CONST) return {nullptr, idx->const_int()};
  if (idx->op == Ops::ADD && idx->src[1]->op == Ops::CONST) return {idx->src[0].get(), idx->src[1]->const_int()};
  return {idx.get(), 0};
}

UOpPtr vector_pointer(const UOpPtr& first, int width) {
  DType ptr = first->dtype;
  return UOp::make(Ops::CAST, ptr.base().vec(width).ptr(-1, ptr.local), {first});
}

UOpPtr gep(const UOpPtr& v, size_t k) {
  return UOp::make(Ops::GEP, v->dtype.scalar(), {v}, Arg(Arg::Tuple{Arg(static_cast<int64_t>(k))}));
}

namespace {

// Source i of every lane.
UOpList column(const UOpList& lanes, size_t i) {
  UOpList out;
  out.reserve(lanes.size());
  for (const UOpPtr& l : lanes) out.push_back(l->src[i]);
  return out;
}

bool uniform(const UOpList& xs) {
  return std::all_of(xs.begin(), xs.end(), [&](const UOpPtr& x) { return x == xs[0]; });
}

// Whether source i is the same node on every lane.
bool uniform_column(const UOpList& lanes, size_t i) {
  return std::all_of(lanes.begin(), lanes.end(), [&](const UOpPtr& l) { return l->src[i] == lanes[0]->src[i]; });
}

class Vectorizer {
public:
  explicit Vectorizer(const VectorTarget& t) : target_(t) {}

  // Runs of stores to consecutive addresses -> vector stores; nullptr when there is none. A step of
  // `stage` per vector store.
  UOpPtr run(const UOpPtr& sink, TracedStage& stage) {
    static const Rule join_rule = rule("join_store_lanes", UPat::op_any_src(Ops::SINK), nullptr);
    static const Rule reuse_rule = rule("reduce_lane_from_vector", UPat::op_any_src(Ops::SINK), nullptr);
    struct Key {
      const UOp *buf, *base, *gate;
      DType dtype;
      bool operator<(const Key& o) const {
        return std::tie(buf, base, gate, dtype.scalar_type) < std::tie(o.buf, o.base, o.gate, o.dtype.scalar_type);
      }
    };
    std::map<Key, std::vector<std::pair<int64_t, size_t>>> groups;  // -> (offset, position in the sink)
    for (size_t i = 0; i < sink->src.size(); i++) {
      const UOpPtr& st = sink->src[i];
      if (st->op != Ops::STORE || st->src[0]->op != Ops::INDEX || !target_.joins(st->src[1]->dtype)) continue;
      AddressParts p = split_address(st->src[0]->src[1]);
      const UOp* gate = st->src.size() > 2 ? st->src[2].get() : nullptr;
      groups[{st->src[0]->src[0].get(), p.base, gate, st->src[1]->dtype}].push_back({p.offset, i});
    }
    // each store position -> the vector store that replaces it (first lane) or nothing (other lanes)
    std::map<size_t, UOpPtr> replaced;
    auto joined_sink = [&] {
      UOpList out;
      for (size_t i = 0; i < sink->src.size(); i++) {
        auto it = replaced.find(i);
        if (it == replaced.end()) out.push_back(sink->src[i]);
        else if (it->second) out.push_back(it->second);
      }
      return UOp::make(Ops::SINK, dtypes::void_, std::move(out), sink->arg);
    };
    UOpPtr shown = sink;  // the sink as a trace shows it, one joined store after another
    for (auto& [key, lanes] : groups) {
      std::sort(lanes.begin(), lanes.end());
      int item = key.dtype.itemsize();
      int widest = target_.vector_bytes / item, narrowest = std::max(2, 16 / item);
      size_t start = 0;
      while (start < lanes.size()) {
        size_t end = start + 1;  // a run of consecutive offsets
        while (end < lanes.size() && lanes[end].first == lanes[end - 1].first + 1) end++;
        for (size_t pos = start; end - pos >= static_cast<size_t>(narrowest);) {
          int w = widest;
          while (static_cast<size_t>(w) > end - pos) w /= 2;
          if (w < narrowest) break;
          UOpList stores;
          for (int k = 0; k < w; k++) stores.push_back(sink->src[lanes[pos + k].second]);
          replaced[lanes[pos].second] = vector_store(stores);
          for (int k = 1; k < w; k++) replaced[lanes[pos + k].second] = nullptr;
          pos += w;
          if (stage.observed()) {
            UOpPtr next = joined_sink();
            stage.step(shown, next, join_rule);
            shown = next;
          }
        }
        start = end;
      }
    }
    if (replaced.empty()) return nullptr;
    // a lane's reduce result still read on its own takes its lane of the vector accumulator instead of
    // running the reduce a second time
    // (only graphs that hold a scalar accumulator are walked)
    UOpPtr result = joined_sink();
    if (assign_lanes_.empty()) return result;
    const auto enter = [&](const UOp* n) { return holds_scalar_acc(n); };
    UOpPtr reused = substitute(result, assign_lanes_, {}, enter);
    // A joined reduce can read another one's scalar lanes (a softmax's sum of exps, computed as vectors
    // over the unrolled loop, reads the row max lane by lane): the GEPs of it just put in bring those
    // lanes back, and its vector accumulator would have a second update (the rebuilt one beside the
    // GEPs' one, read by other lanes) and add everything twice. Again until none is left: each pass
    // takes one level of nesting (no cycle: a joined reduce never reads its own lanes).
    const bool lanes_in_vectors = std::any_of(assign_lanes_.begin(), assign_lanes_.end(),
                                              [](const auto& lane) { return holds_scalar_acc(lane.second.get()); });
    for (size_t pass = 0; lanes_in_vectors; pass++) {
      LOUPE_ASSERT(pass <= assign_lanes_.size(), "joined reduce lanes that keep reading each other");
      UOpPtr next = substitute(reused, assign_lanes_, {}, enter);
      if (next == reused) break;
      reused = next;
    }
    stage.step(result, reused, reuse_rule);
    return reused;
  }

private:
  UOpPtr vector_store(const UOpList& stores) {
    UOpList indices, values;
    for (const UOpPtr& s : stores) {
      indices.push_back(s->src[0]);
      values.push_back(s->src[1]);
    }
    UOpList src{vector_pointer(indices), vec(values)};
    if (stores[0]->src.size() > 2) src.push_back(stores[0]->src[2]);
    return UOp::make(Ops::STORE, dtypes::void_, std::move(src));
  }

  // INDEXes of consecutive elements of one buffer -> a pointer to a vector at the first, else null.
  static UOpPtr consecutive_pointer(const UOpList& indices) {
    const UOpPtr& first = indices[0];
    if (first->op != Ops::INDEX) return nullptr;
    AddressParts p0 = split_address(first->src[1]);
    for (size_t k = 1; k < indices.size(); k++) {
      const UOpPtr& ix = indices[k];
      if (ix->op != Ops::INDEX || ix->src[0] != first->src[0]) return nullptr;
      AddressParts p = split_address(ix->src[1]);
      if (p.base != p0.base || p.offset != p0.offset + static_cast<int64_t>(k)) return nullptr;
    }
    return vector_pointer(indices);
  }

  static UOpPtr vector_pointer(const UOpList& indices) {
    return loupe::vector_pointer(indices[0], static_cast<int>(indices.size()));
  }

  // The vector of these scalar lanes, joined where the lanes allow it, packed otherwise.
  UOpPtr vec(const UOpList& lanes) {
    key_.clear();
    for (const UOpPtr& l : lanes) key_.push_back(l.get());
    if (auto it = memo_.find(std::span<const UOp* const>(key_)); it != memo_.end()) return it->second;
    UOpPtr v = join(lanes);
    if (!v) v = pack(lanes);
    key_.clear();  // join and pack call vec() again
    for (const UOpPtr& l : lanes) key_.push_back(l.get());
    memo_.emplace(key_, v);
    return v;
  }

  // Lanes with no vector form, packed into one. Lanes of one value op (a MAX, a select, a cast) still
  // read their sources from the sources' vectors, so what lies below them (a reduce, loads) is joined.
  UOpPtr pack(const UOpList& lanes) {
    const UOpPtr& a = lanes[0];
    DType vt = a->dtype.vec(static_cast<int>(lanes.size()));
    bool value_op = is_alu(a->op) || a->op == Ops::CAST || a->op == Ops::BITCAST;
    for (const UOpPtr& l : lanes)
      value_op = value_op && l->op == a->op && l->dtype == a->dtype && l->src.size() == a->src.size() && l->arg == a->arg;
    if (!value_op || a->dtype.count != 1) return UOp::make(Ops::VECTORIZE, vt, lanes);
    // per source: its vector (a lane of a joined one is read with GEP, a packed one's rebuilt lanes are
    // taken as they are), or null to keep the scalar lanes
    UOpList vectors;
    for (size_t i = 0; i < a->src.size(); i++) {
      UOpPtr v = uniform_column(lanes, i) ? nullptr : vec(column(lanes, i));
      vectors.push_back(v && v->op != Ops::VCONST && v->op != Ops::CONST ? v : nullptr);
    }
    UOpList out;
    out.reserve(lanes.size());
    for (size_t k = 0; k < lanes.size(); k++) {
      UOpList src;
      src.reserve(a->src.size());
      for (size_t i = 0; i < a->src.size(); i++) {
        const UOpPtr& v = vectors[i];
        src.push_back(!v ? lanes[k]->src[i] : v->op == Ops::VECTORIZE ? v->src[k] : gep(v, k));
      }
      out.push_back(UOp::make(a->op, a->dtype, std::move(src), a->arg));
    }
    return UOp::make(Ops::VECTORIZE, vt, std::move(out));
  }

  // Sources of a vector ALU op; one value on every lane stays scalar (the renderer broadcasts it).
  UOpList alu_sources(const UOpList& lanes) {
    UOpList out;
    out.reserve(lanes[0]->src.size());
    for (size_t i = 0; i < lanes[0]->src.size(); i++)
      out.push_back(uniform_column(lanes, i) ? lanes[0]->src[i] : vec(column(lanes, i)));
    return out;
  }

  UOpPtr join(const UOpList& lanes) {
    const UOpPtr& a = lanes[0];
    int n = static_cast<int>(lanes.size());
    DType vt = a->dtype.vec(n);
    if (uniform(lanes)) return a->op == Ops::CONST ? UOp::make(Ops::CONST, vt, {}, a->arg) : nullptr;  // a broadcast
    if (!target_.joins(a->dtype)) return nullptr;
    for (const UOpPtr& l : lanes)
      if (l->op != a->op || l->dtype != a->dtype || l->src.size() != a->src.size()) return nullptr;
    auto same_source = [&](size_t i) { return uniform_column(lanes, i); };
    switch (a->op) {
    case Ops::CONST: {
      Arg::Tuple values;
      for (const UOpPtr& l : lanes) values.push_back(l->arg);
      return UOp::make(Ops::VCONST, vt, {}, Arg(std::move(values)));
    }
    case Ops::LOAD: {  // (INDEX) or (INDEX, alt, gate) with one gate for every lane
      if (a->src.size() != 1 && !(a->src.size() == 3 && same_source(2))) return nullptr;
      UOpPtr ptr = consecutive_pointer(column(lanes, 0));
      if (!ptr) return nullptr;
      UOpList src{ptr};
      if (a->src.size() == 3) {
        src.push_back(vec(column(lanes, 1)));
        src.push_back(a->src[2]);
      }
      return UOp::make(Ops::LOAD, vt, std::move(src));
    }
    case Ops::DEFINE_ACC: {  // the same loops and start value: one accumulator, a lane each
      for (size_t i = 0; i < a->src.size(); i++)
        if (!same_source(i)) return nullptr;
      Arg::Tuple ids;
      for (const UOpPtr& l : lanes) ids.push_back(l->arg);
      UOpList src{UOp::make(Ops::CONST, vt, {}, a->src[0]->arg)};
      if (a->src[0]->op != Ops::CONST) src[0] = vec(UOpList(n, a->src[0]));
      src.insert(src.end(), a->src.begin() + 1, a->src.end());
      return UOp::make(Ops::DEFINE_ACC, vt, std::move(src), Arg(std::move(ids)));
    }
    case Ops::ASSIGN: {
      UOpList accs = column(lanes, 0);
      UOpPtr acc = vec(accs);
      if (acc->op != Ops::DEFINE_ACC) return nullptr;
      UOpPtr update = vec(column(lanes, 1));
      // an update that packs a lane's own scalar accumulator cannot become the vector's
      FlatPtrSet<const UOp*> scalar_accs(accs.size()), seen;
      for (const UOpPtr& x : accs) scalar_accs.insert(x.get());
      if (reads_any(update.get(), scalar_accs, seen)) return nullptr;
      UOpPtr assign = UOp::make(Ops::ASSIGN, vt, {acc, update});
      for (int k = 0; k < n; k++) assign_lanes_[lanes[k]] = gep(assign, static_cast<size_t>(k));
      return assign;
    }
    case Ops::GEP: {  // lanes 0..n-1 of one n-wide vector (the lane expansion built it): that vector
      const UOpPtr& v = a->src[0];
      if (v->dtype.count != n) return nullptr;
      for (int k = 0; k < n; k++)
        if (lanes[k]->src[0] != v || lanes[k]->arg.as_tuple().at(0).as_int() != k) return nullptr;
      return v;
    }
    case Ops::WHERE: return join_where(lanes);
    case Ops::CAST:
    case Ops::BITCAST: {  // between element types of one width: a conversion or reinterpretation of the vector
      if (!target_.alu_ops.has(a->op)) return nullptr;
      DType from = a->src[0]->dtype;
      if (!target_.joins(from) || from.itemsize() != a->dtype.itemsize()) return nullptr;
      for (const UOpPtr& l : lanes)
        if (l->src[0]->dtype != from) return nullptr;
      return UOp::make(a->op, vt, {vec(column(lanes, 0))});
    }
    default:
      if (!is_alu(a->op) || !target_.alu_ops.has(a->op)) return nullptr;
      for (const UOpPtr& l : lanes)
        if (!(l->arg == a->arg)) return nullptr;
      return UOp::make(a->op, vt, alu_sources(lanes), a->arg);
    }
  }

  // A select per lane -> one vector select: under one scalar condition (every lane's the same), or under
  // the mask of a vector compare whose operands are as wide as the selected values.
  UOpPtr join_where(const UOpList& lanes) {
    const UOpPtr& a = lanes[0];
    if (!target_.alu_ops.has(Ops::WHERE)) return nullptr;
    UOpList conditions = column(lanes, 0);
    UOpPtr condition = uniform(conditions) ? conditions[0] : mask(conditions, a->dtype.itemsize());
    if (!condition) return nullptr;
    return UOp::make(Ops::WHERE, a->dtype.vec(static_cast<int>(lanes.size())),
                     {condition, vec(column(lanes, 1)), vec(column(lanes, 2))});
  }

  // The lanes of a compare as one vector compare (a mask of `width`-byte lanes), or of an and/or of such
  // compares as the and/or of their masks; else null. Built only for a select: a mask is not a vector of
  // bools, so no other reader may get it from vec().
  UOpPtr mask(const UOpList& lanes, int width) {
    const UOpPtr& a = lanes[0];
    if (!target_.alu_ops.has(a->op) || a->src.size() != 2) return nullptr;
    for (const UOpPtr& l : lanes)
      if (l->op != a->op || l->src.size() != 2) return nullptr;
    if (a->op == Ops::AND || a->op == Ops::OR) {
      UOpPtr x = mask(column(lanes, 0), width), y = x ? mask(column(lanes, 1), width) : nullptr;
      return y ? UOp::make(a->op, a->dtype.vec(static_cast<int>(lanes.size())), {x, y}) : nullptr;
    }
    if (a->op != Ops::CMPLT && a->op != Ops::CMPNE) return nullptr;
    DType operand = a->src[0]->dtype;
    if (!target_.joins(operand) || operand.itemsize() != width) return nullptr;
    for (const UOpPtr& l : lanes)
      if (l->src[0]->dtype != operand || l->src[1]->dtype != operand) return nullptr;
    return UOp::make(a->op, a->dtype.vec(static_cast<int>(lanes.size())), alu_sources(lanes));
  }

  // Whether u's graph holds one of `accs`: only graphs that hold a scalar accumulator at all are walked.
  bool reads_any(const UOp* u, const FlatPtrSet<const UOp*>& accs, FlatPtrSet<const UOp*>& seen) {
    if (!holds_scalar_acc(u) || !seen.insert(u)) return false;
    if (accs.contains(u)) return true;
    for (const UOpPtr& s : u->src)
      if (reads_any(s.get(), accs, seen)) return true;
    return false;
  }
  static bool holds_scalar_acc(const UOp* u) { return u->graph_has(UOp::Fact::scalar_accumulator); }

  const VectorTarget& target_;
  // vectors built, by their lanes (looked up without copying the lane list)
  struct LanesHash {
    using is_transparent = void;
    size_t operator()(std::span<const UOp* const> lanes) const {
      uint64_t h = lanes.size();
      for (const UOp* l : lanes) h = mix64(h ^ reinterpret_cast<uintptr_t>(l));
      return static_cast<size_t>(h);
    }
  };
  struct LanesEqual {
    using is_transparent = void;
    bool operator()(std::span<const UOp* const> a, std::span<const UOp* const> b) const { return std::ranges::equal(a, b); }
  };
  std::unordered_map<std::vector<const UOp*>, UOpPtr, LanesHash, LanesEqual> memo_;
  std::vector<const UOp*> key_;
  UOpMap<UOpPtr> assign_lanes_;  // scalar lane of a joined reduce -> GEP of the vector one
};

} // namespace

UOpPtr vectorize_stores(const UOpPtr& sink, const VectorTarget& target) {
  if (target.vector_bytes == 0) return sink;
  // the stores are joined at the sink: nothing below it to visit
  TracedStage stage(stage_name(Stage::VectorizeStores), sink);
  UOpPtr joined = Vectorizer(target).run(sink, stage);
  if (joined) joined->set_metadata_once(sink->metadata());
  return stage.finish(joined ? joined : sink);
}

} // namespace loupe
