// The symbolic rule sets, composed from the rule families (one file pair each), and simplify().
#include "symbolic/symbolic.h"

#include "rewrite/graph_rewrite.h"
#include "symbolic/const_fold.h"
#include "symbolic/divmod.h"
#include "symbolic/identities.h"
#include "symbolic/lt_fold.h"
#include "symbolic/memo.h"
#include "symbolic/range_fold.h"
#include "symbolic/terms.h"

namespace loupe {

namespace {

std::vector<Rule> concat(std::initializer_list<std::vector<Rule>> parts) {
  std::vector<Rule> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

} // namespace

const PatternMatcher& symbolic_simple() {
  static const PatternMatcher pm(concat({sym::const_fold_rules(), sym::identity_rules()}));
  return pm;
}

// Order matters only for speed and for which of two applicable rules fires first: cheap decisive
// rules (constants, identities, ranges) run before the canonicalizing and folding ones.
const PatternMatcher& symbolic() {
  static const PatternMatcher pm = symbolic_simple() + PatternMatcher(concat({sym::range_fold_rules(), sym::lt_rules(),
                                                                              sym::divmod_rules(), sym::term_rules(false)}));
  return pm;
}

const PatternMatcher& symbolic_flat() {
  static const PatternMatcher pm = symbolic_simple() + PatternMatcher(concat({sym::range_fold_rules(), sym::lt_rules(),
                                                                              sym::divmod_rules(), sym::term_rules(true)}));
  return pm;
}

UOpPtr simplify(const UOpPtr& u) {
  // a top-level call only opens the scope; nested calls (from rules comparing candidates) share results
  bool nested = sym::in_scope();
  sym::MemoScope scope;
  sym::Memo* m = sym::memo();
  if (nested)
    if (auto it = m->simplified.find(u); it != m->simplified.end()) return it->second;
  UOpPtr out = graph_rewrite(u, symbolic(), {.name = "simplify", .settled = nested ? &m->fixed : nullptr});
  if (nested) {
    m->simplified[u] = out;
    m->simplified[out] = out;
    m->fixed.insert(out.get());
  }
  return out;
}

} // namespace loupe
