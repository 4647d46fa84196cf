#include "rewrite/upat.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "support/error.h"

namespace loupe {

namespace {
UPat make(UPat::Node n) {
  for (const UPat& s : n.src)
    if (s.node->ops && s.node->ops->size() == 1) n.early_reject = n.early_reject | *s.node->ops;
  if (n.kind == UPat::SrcKind::Repeated) n.early_reject = OpSet();  // a node with no sources matches too
  n.sources_within.reset();
  if (n.kind == UPat::SrcKind::Repeated) {
    if (n.src[0].node->ops) n.sources_within = *n.src[0].node->ops;
  } else if (n.kind != UPat::SrcKind::Any && !n.allow_any_len) {
    OpSet within;
    bool named = true;
    for (const UPat& s : n.src) {
      named = named && s.node->ops;
      if (named) within = within | *s.node->ops;
    }
    if (named) n.sources_within = within;
  }
  n.src_nodes.clear();
  for (const UPat& s : n.src) n.src_nodes.push_back(s.node.get());
  UPat p;
  p.node = std::make_shared<const UPat::Node>(std::move(n));
  return p;
}
UPat modify(const UPat& p, const std::function<void(UPat::Node&)>& f) {
  UPat::Node n = *p.node;
  f(n);
  return make(std::move(n));
}
} // namespace

UPat UPat::from_node(Node n) { return make(std::move(n)); }

UPat UPat::any(std::string name) { return var(std::move(name)); }

UPat UPat::var(std::string name, std::vector<DType> dts) {
  Node n;
  n.name = std::move(name);
  n.dtypes = std::move(dts);
  return make(std::move(n));
}

UPat UPat::cvar(std::string name, std::vector<DType> dts) {
  Node n;
  n.ops = OpSet{Ops::CONST};
  n.name = std::move(name);
  n.dtypes = std::move(dts);
  return make(std::move(n));
}

UPat UPat::cnst(double value) {
  Node n;
  n.ops = OpSet{Ops::CONST};
  n.number = value;
  return make(std::move(n));
}

UPat UPat::op(Ops o, std::vector<UPat> src, std::string name) { return ops(OpSet{o}, std::move(src), std::move(name)); }
UPat UPat::op_any_src(Ops o, std::string name) { return ops_any_src(OpSet{o}, std::move(name)); }

UPat UPat::ops(OpSet os, std::vector<UPat> src, std::string name) {
  Node n;
  n.ops = os;
  n.name = std::move(name);
  n.kind = SrcKind::Ordered;
  n.src = std::move(src);
  return make(std::move(n));
}

UPat UPat::ops_any_src(OpSet os, std::string name) {
  Node n;
  n.ops = os;
  n.name = std::move(name);
  return make(std::move(n));
}

UPat UPat::alu(Ops o, std::vector<UPat> src) {
  UPat p = op(o, std::move(src));
  return op_in(o, kCommutative) ? p.permuted() : p;
}

UPat UPat::named(std::string name) const { return modify(*this, [&](Node& n) { n.name = std::move(name); }); }
UPat UPat::dtypes(std::vector<DType> dts) const { return modify(*this, [&](Node& n) { n.dtypes = std::move(dts); }); }
UPat UPat::arg(Arg a) const { return modify(*this, [&](Node& n) { n.arg = std::move(a); }); }
UPat UPat::number(double v) const { return modify(*this, [&](Node& n) { n.number = v; }); }

bool UPat::arg_is_number(const UOp& u, double v) {
  if (!u.arg.is_number()) return false;
  return (u.op == Ops::CONST ? u.const_value() : u.arg.as_double()) == v;
}

std::string UPat::number_str(double v) {
  bool integral = std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 1e15;
  return integral ? Arg(static_cast<int64_t>(v)).str() : Arg(v).str();
}

UPat UPat::pred(Predicate p) const {
  return modify(*this, [&](Node& n) {
    if (n.pred) {
      Predicate first = n.pred;
      n.pred = [first, p](const UOp& u) { return first(u) && p(u); };
    } else {
      n.pred = std::move(p);
    }
  });
}
UPat UPat::only(uint8_t classes) const { return modify(*this, [&](Node& n) { n.classes = classes; }); }
UPat UPat::permuted() const { return modify(*this, [](Node& n) { n.kind = SrcKind::Permuted; }); }
UPat UPat::repeated(UPat each) const {
  return modify(*this, [&](Node& n) {
    n.kind = SrcKind::Repeated;
    n.src = {std::move(each)};
  });
}
UPat UPat::any_len() const { return modify(*this, [](Node& n) { n.allow_any_len = true; }); }

const OpSet* UPat::root_ops() const { return node->ops ? &*node->ops : nullptr; }
const OpSet& UPat::early_reject() const { return node->early_reject; }
const OpSet* UPat::sources_within() const { return node->sources_within ? &*node->sources_within : nullptr; }
uint8_t UPat::root_classes() const { return node->classes; }

namespace {

using Continuation = FunctionRef<bool()>;

bool match_node(const UPat::Node& p, const UOpPtr& u, Captures& caps, Continuation k);

bool match_seq(const UPat::Node* const* pats, size_t n, const UOpList& srcs, size_t i, Captures& caps, Continuation k) {
  if (i == n) return k();
  return match_node(*pats[i], srcs[i], caps, [&] { return match_seq(pats, n, srcs, i + 1, caps, k); });
}

bool match_repeated(const UPat::Node& each, const UOpList& srcs, size_t i, Captures& caps, Continuation k) {
  if (i == srcs.size()) return k();
  return match_node(each, srcs[i], caps, [&] { return match_repeated(each, srcs, i + 1, caps, k); });
}

// Every order of the sources; two orders that bind the same nodes are one match (x+x matches once).
bool match_permuted(const UPat::Node& p, const UOpList& srcs, Captures& caps, Continuation k) {
  constexpr size_t kInline = 8;
  const size_t n = p.src_nodes.size();
  std::array<size_t, kInline> order_inline{};
  std::array<const UPat::Node*, kInline> perm_inline{};
  std::vector<size_t> order_heap;
  std::vector<const UPat::Node*> perm_heap;
  if (n > kInline) {
    order_heap.resize(n);
    perm_heap.resize(n);
  }
  size_t* order = n > kInline ? order_heap.data() : order_inline.data();
  const UPat::Node** perm = n > kInline ? perm_heap.data() : perm_inline.data();
  std::iota(order, order + n, size_t{0});
  // bindings already offered to k, flattened (one signature of caps.size() entries each)
  std::vector<std::pair<std::string_view, const UOp*>> seen;
  std::vector<size_t> seen_ends;
  auto once = [&] {
    std::span<const Captures::Item> items = caps.items();
    size_t begin = 0;
    for (size_t end : seen_ends) {
      bool same = end - begin == items.size();
      for (size_t j = 0; same && j < items.size(); j++)
        same = seen[begin + j].first == items[j].first && seen[begin + j].second == items[j].second->get();
      if (same) return false;
      begin = end;
    }
    for (const Captures::Item& it : items) seen.emplace_back(it.first, it.second->get());
    seen_ends.push_back(seen.size());
    return k();
  };
  do {
    for (size_t i = 0; i < n; i++) perm[i] = p.src_nodes[order[i]];
    if (match_seq(perm, n, srcs, 0, caps, once)) return true;
  } while (std::next_permutation(order, order + n));
  return false;
}

bool match_node(const UPat::Node& p, const UOpPtr& u, Captures& caps, Continuation k) {
  if (p.ops && !p.ops->has(u->op)) return false;
  if (p.classes != kClassAll && !(p.classes & dtype_class(u->dtype))) return false;
  if (!p.dtypes.empty()) {
    bool ok = false;
    for (const DType& d : p.dtypes) ok = ok || d == u->dtype || d == u->dtype.scalar();
    if (!ok) return false;
  }
  if (p.arg && !(*p.arg == u->arg)) return false;
  if (p.number && !UPat::arg_is_number(*u, *p.number)) return false;
  if (p.pred && !p.pred(*u)) return false;
  size_t mark = caps.size();
  if (!p.name.empty()) {
    if (const UOpPtr* bound = caps.find(p.name)) {
      if (*bound != u) return false;
    } else {
      caps.push(p.name, &u);
    }
  }
  bool done = false;
  const UOpList& srcs = u->src;
  switch (p.kind) {
  case UPat::SrcKind::Any: done = k(); break;
  case UPat::SrcKind::Repeated: done = match_repeated(*p.src_nodes[0], srcs, 0, caps, k); break;
  case UPat::SrcKind::Ordered:
  case UPat::SrcKind::Permuted: {
    size_t n = p.src_nodes.size();
    if (p.allow_any_len ? srcs.size() < n : srcs.size() != n) break;
    done = p.kind == UPat::SrcKind::Ordered ? match_seq(p.src_nodes.data(), n, srcs, 0, caps, k)
                                            : match_permuted(p, srcs, caps, k);
    break;
  }
  }
  if (!done) caps.truncate(mark);
  return done;
}

} // namespace

bool UPat::match(const UOpPtr& u, Captures& caps, FunctionRef<bool()> k) const {
  return match_node(*node, u, caps, k);
}

std::string UPat::str() const {
  const Node& n = *node;
  std::string s;
  if (!n.ops) s = "UPat.var";
  else if (n.ops->size() == 1) {
    n.ops->for_each([&](Ops o) { s = "UPat(Ops." + std::string(op_name(o)); });
  } else {
    s = "UPat({";
    bool first = true;
    n.ops->for_each([&](Ops o) {
      s += (first ? "" : ",") + std::string(op_name(o));
      first = false;
    });
    s += "}";
  }
  std::vector<std::string> parts;
  if (!n.name.empty()) parts.push_back("name='" + n.name + "'");
  if (!n.dtypes.empty()) parts.push_back("dtype=" + n.dtypes[0].short_name() + (n.dtypes.size() > 1 ? "..." : ""));
  if (n.arg) parts.push_back("arg=" + n.arg->str());
  if (n.number) parts.push_back("arg=" + number_str(*n.number));
  if (n.kind == SrcKind::Ordered || n.kind == SrcKind::Permuted) {
    std::string src = n.kind == SrcKind::Permuted ? "[" : "(";
    for (size_t i = 0; i < n.src.size(); i++) src += (i ? ", " : "") + n.src[i].str();
    src += n.kind == SrcKind::Permuted ? "]" : ")";
    parts.push_back("src=" + src);
  } else if (n.kind == SrcKind::Repeated) {
    parts.push_back("src=" + n.src[0].str() + "*");
  }
  if (n.pred) parts.push_back("pred");
  if (!n.ops) s = "UPat.var(";
  else s += parts.empty() ? "" : ", ";
  for (size_t i = 0; i < parts.size(); i++) s += (i ? ", " : "") + parts[i];
  return s + ")";
}

UPat operator+(const UPat& a, const UPat& b) { return UPat::alu(Ops::ADD, {a, b}); }
UPat operator+(const UPat& a, double b) { return a + UPat::cnst(b); }
UPat operator*(const UPat& a, const UPat& b) { return UPat::alu(Ops::MUL, {a, b}); }
UPat operator*(const UPat& a, double b) { return a * UPat::cnst(b); }
UPat pmax(const UPat& a, const UPat& b) { return UPat::alu(Ops::MAX, {a, b}); }
UPat pfloordiv(const UPat& a, const UPat& b) { return UPat::alu(Ops::FLOORDIV, {a, b}); }
UPat pfloormod(const UPat& a, const UPat& b) { return UPat::alu(Ops::FLOORMOD, {a, b}); }
UPat plt(const UPat& a, const UPat& b) { return UPat::alu(Ops::CMPLT, {a, b}); }
UPat pne(const UPat& a, const UPat& b) { return UPat::alu(Ops::CMPNE, {a, b}); }
UPat pand(const UPat& a, const UPat& b) { return UPat::alu(Ops::AND, {a, b}); }
UPat por(const UPat& a, const UPat& b) { return UPat::alu(Ops::OR, {a, b}); }
UPat pwhere(const UPat& c, const UPat& a, const UPat& b) { return UPat::alu(Ops::WHERE, {c, a, b}); }

} // namespace loupe
