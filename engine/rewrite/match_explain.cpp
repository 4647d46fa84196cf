#include "rewrite/match_explain.h"

#include <algorithm>
#include <numeric>

#include "ir/print.h"
#include "support/error.h"

namespace loupe {

namespace {

std::string ops_text(const OpSet& ops) {
  std::string s;
  ops.for_each([&](Ops o) { s += (s.empty() ? "" : " or ") + std::string(op_name(o)); });
  return s;
}

std::string short_node(const UOp& u) {
  std::string s = cat(op_name(u.op), " ", u.dtype.short_name());
  if (!u.arg.is_none()) {
    std::string a = u.arg.str();
    s += " " + (a.size() > 40 ? a.substr(0, 37) + "..." : a);
  }
  return s;
}

// A mirror of upat.cpp's matcher that remembers the failure reached with the most pattern nodes
// matched before it.
class Explainer {
public:
  bool node(const UPat::Node& p, const UOpPtr& u, const std::string& path, FunctionRef<bool()> k) {
    auto fail = [&](const std::string& what) {
      note(cat(path.empty() ? "the node" : path, " (", short_node(*u), "): ", what));
      return false;
    };
    if (p.ops && !p.ops->has(u->op)) return fail(cat("op is ", op_name(u->op), ", the pattern wants ", ops_text(*p.ops)));
    if (p.classes != kClassAll && !(p.classes & dtype_class(u->dtype)))
      return fail(cat("dtype ", u->dtype.short_name(), " is of a class the pattern excludes"));
    if (!p.dtypes.empty()) {
      bool ok = false;
      std::string want;
      for (const DType& d : p.dtypes) {
        ok = ok || d == u->dtype || d == u->dtype.scalar();
        want += (want.empty() ? "" : " or ") + d.short_name();
      }
      if (!ok) return fail(cat("dtype is ", u->dtype.short_name(), ", the pattern wants ", want));
    }
    if (p.arg && !(*p.arg == u->arg)) return fail(cat("arg is ", u->arg.str(), ", the pattern wants ", p.arg->str()));
    if (p.number && !UPat::arg_is_number(*u, *p.number))
      return fail(cat("arg is ", u->arg.str(), ", the pattern wants ", UPat::number_str(*p.number)));
    if (p.pred && !p.pred(*u)) return fail("the pattern's condition on it is false");
    size_t mark = caps_.size();
    if (!p.name.empty()) {
      if (const UOpPtr* bound = caps_.find(p.name)) {
        if (*bound != u)
          return fail(cat("'", p.name, "' is already bound to another node (", short_node(**bound), ")"));
      } else {
        caps_.push(p.name, &u);
      }
    }
    depth_++;
    bool done = false;
    const UOpList& srcs = u->src;
    const size_t n = p.src_nodes.size();
    switch (p.kind) {
    case UPat::SrcKind::Any: done = k(); break;
    case UPat::SrcKind::Repeated: done = repeated(*p.src_nodes[0], srcs, 0, path, k); break;
    case UPat::SrcKind::Ordered:
    case UPat::SrcKind::Permuted:
      if (p.allow_any_len ? srcs.size() < n : srcs.size() != n) {
        fail(cat("has ", srcs.size(), srcs.size() == 1 ? " source" : " sources", ", the pattern wants ",
                 p.allow_any_len ? "at least " : "", n));
        break;
      }
      if (p.kind == UPat::SrcKind::Ordered) {
        std::vector<size_t> order(n);
        std::iota(order.begin(), order.end(), size_t{0});
        done = seq(p, order, srcs, 0, path, k);
      } else {
        std::vector<size_t> order(n);
        std::iota(order.begin(), order.end(), size_t{0});
        do done = seq(p, order, srcs, 0, path, k);
        while (!done && std::next_permutation(order.begin(), order.end()));
      }
      break;
    }
    depth_--;
    if (!done) caps_.truncate(mark);
    return done;
  }

  Captures& captures() { return caps_; }
  const std::string& best() const { return best_; }
  void note(const std::string& what) {
    if (depth_ >= best_depth_) {  // the later of equally deep failures: the last alternative tried
      best_depth_ = depth_;
      best_ = what;
    }
  }

private:
  bool seq(const UPat::Node& p, const std::vector<size_t>& order, const UOpList& srcs, size_t i, const std::string& path,
           FunctionRef<bool()> k) {
    if (i == order.size()) return k();
    const std::string at = cat(path.empty() ? "" : path + ".", "src[", i, "]");
    return node(*p.src_nodes[order[i]], srcs[i], at, [&] { return seq(p, order, srcs, i + 1, path, k); });
  }
  bool repeated(const UPat::Node& each, const UOpList& srcs, size_t i, const std::string& path, FunctionRef<bool()> k) {
    if (i == srcs.size()) return k();
    const std::string at = cat(path.empty() ? "" : path + ".", "src[", i, "]");
    return node(each, srcs[i], at, [&] { return repeated(each, srcs, i + 1, path, k); });
  }

  Captures caps_;
  int depth_ = 0, best_depth_ = -1;
  std::string best_;
};

} // namespace

std::string explain_mismatch(const UPat& pattern, const UOpPtr& u) {
  Explainer e;
  if (e.node(*pattern.node, u, "", [] { return true; })) return "";
  return e.best().empty() ? std::string("no binding of its captures fits") : e.best();
}

const char* verdict_name(RuleVerdict::Kind k) {
  switch (k) {
  case RuleVerdict::Kind::Fires: return "fires";
  case RuleVerdict::Kind::Declined: return "declined";
  case RuleVerdict::Kind::NotRun: return "matches";
  case RuleVerdict::Kind::NoMatch: return "no match";
  case RuleVerdict::Kind::Shadowed: return "not reached";
  }
  return "?";
}

std::vector<RuleVerdict> explain_rules(const PatternMatcher& pm, const UOpPtr& u, bool run_callbacks) {
  std::vector<RuleVerdict> out;
  bool fired = false;
  for (int i : pm.candidates(u->op, u->dtype)) {
    const Rule& r = pm.rules()[static_cast<size_t>(i)];
    RuleVerdict v;
    v.rule = &r;
    Explainer e;
    // every binding is offered to the callback in turn, as the matcher does, until one returns a node
    bool matched = false;
    UOpPtr replacement;
    e.node(*r.pattern.node, u, "", [&] {
      matched = true;
      if (!run_callbacks || !r.fn) return true;
      replacement = r.fn(Match(u, e.captures(), nullptr));
      return replacement != nullptr;
    });
    if (!matched) {
      v.kind = RuleVerdict::Kind::NoMatch;
      v.reason = e.best().empty() ? "no binding of its captures fits" : e.best();
    } else if (!r.fn) {
      v.kind = RuleVerdict::Kind::NotRun;
      v.reason = "the pattern matches; its callback is code of the program that recorded the trace and is not re-run here";
    } else if (!run_callbacks) {
      v.kind = RuleVerdict::Kind::NotRun;
      v.reason = "the pattern matches; its callback needs the pass's own state and is not re-run here";
    } else if (replacement) {
      v.kind = RuleVerdict::Kind::Fires;
      v.replacement = replacement;
      v.reason = cat("rewrites it to ", short_node(*replacement));
    } else {
      v.kind = RuleVerdict::Kind::Declined;
      v.reason = "the pattern matches; the callback's own condition declined (returned nothing)";
    }
    if (fired) {
      v.reason = cat("after the rule that fires (", verdict_name(v.kind), ": ", v.reason, ")");
      v.kind = RuleVerdict::Kind::Shadowed;
      v.replacement = nullptr;
    }
    fired = fired || v.kind == RuleVerdict::Kind::Fires;
    out.push_back(std::move(v));
  }
  return out;
}

} // namespace loupe
