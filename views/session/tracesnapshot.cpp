#include "session/tracesnapshot.h"

#include <algorithm>

#include "support/error.h"

namespace loupe::views {

const loupe::TraceContext* TraceSnapshot::context(int64_t id) const {
  auto it = contextIndex.constFind(id);
  return it == contextIndex.constEnd() ? nullptr : &contexts[size_t(*it)];
}

const loupe::TracePass* TraceSnapshot::pass(int64_t id) const {
  auto it = passIndex.constFind(id);
  return it == passIndex.constEnd() ? nullptr : &passes[size_t(*it)];
}

const loupe::TraceKernel* TraceSnapshot::kernel(int64_t id) const {
  auto it = kernelIndex.constFind(id);
  return it == kernelIndex.constEnd() ? nullptr : &kernels[size_t(*it)];
}

int64_t TraceSnapshot::kernelForContext(int64_t contextId) const {
  for (int guard = 0; guard < 64 && contextId >= 0; guard++) {
    auto it = kernelOfContext.constFind(contextId);
    if (it != kernelOfContext.constEnd()) return *it;
    const loupe::TraceContext* c = context(contextId);
    if (!c) break;
    contextId = c->parent_id;
  }
  return -1;
}

std::vector<const loupe::TracePass*> TraceSnapshot::passesOf(int64_t contextId) const {
  std::vector<const loupe::TracePass*> out;
  for (const loupe::TracePass& p : passes)
    if (p.context_id == contextId) out.push_back(&p);
  return out;
}

const loupe::TraceRule* TraceSnapshot::rule(int64_t id) const {
  auto it = ruleIndex.constFind(id);
  return it == ruleIndex.constEnd() ? nullptr : &rules[size_t(*it)];
}

bool TraceSnapshot::passFiredRuleMatching(int64_t passId, const QString& text) const {
  if (text.isEmpty()) return false;
  auto it = rulesOfPass.constFind(passId);
  if (it == rulesOfPass.constEnd()) return false;
  for (qint64 id : *it)
    if (const loupe::TraceRule* r = rule(id); r && QString::fromStdString(r->name).contains(text, Qt::CaseInsensitive))
      return true;
  return false;
}

int64_t TraceSnapshot::totalMatches() const {
  int64_t n = 0;
  for (const loupe::TracePass& p : passes) n += p.match_count;
  return n;
}

std::shared_ptr<TraceSnapshot> readTraceSnapshot(loupe::TraceReader& reader) {
  auto s = std::make_shared<TraceSnapshot>();
  s->path = QString::fromStdString(reader.path());
  s->meta = reader.meta();
  s->runInfo = reader.run_info();
  s->finished = reader.finished();
  s->nodeCount = reader.node_count();
  s->contexts = reader.contexts();
  std::sort(s->contexts.begin(), s->contexts.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  for (const loupe::TraceContext& c : s->contexts) {
    std::vector<loupe::TracePass> ps = reader.passes(c.id);
    s->passes.insert(s->passes.end(), ps.begin(), ps.end());
  }
  std::sort(s->passes.begin(), s->passes.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  s->kernels = reader.kernels();
  s->profile = reader.profile();
  s->rules = reader.rules();
  s->peaks = reader.peaks();
  s->tensorCalls = reader.tensor_calls();
  for (size_t i = 0; i < s->contexts.size(); i++) s->contextIndex.insert(s->contexts[i].id, int(i));
  for (size_t i = 0; i < s->passes.size(); i++) s->passIndex.insert(s->passes[i].id, int(i));
  for (size_t i = 0; i < s->rules.size(); i++) s->ruleIndex.insert(s->rules[i].id, int(i));
  // A pass with matches makes every pass it is nested under non-empty too.
  for (const loupe::TracePass& p : s->passes) {
    if (p.match_count <= 0) continue;
    for (const loupe::TracePass* up = &p; up && !s->passesWithMatches.contains(up->id); up = s->pass(up->parent_id))
      s->passesWithMatches.insert(up->id);
  }
  // One pass over the matches (keyed by pass, so read in order): which rules fired where.
  loupe::SqliteStmt fired = reader.db().prepare("SELECT DISTINCT pass_id, rule_id FROM matches");
  while (fired.step()) s->rulesOfPass[fired.int64(0)].append(fired.int64(1));
  for (size_t i = 0; i < s->kernels.size(); i++) {
    const loupe::TraceKernel& k = s->kernels[i];
    s->kernelIndex.insert(k.id, int(i));
    if (k.context_id >= 0 && !s->kernelOfContext.contains(k.context_id)) s->kernelOfContext.insert(k.context_id, k.id);
    KernelNameParts parts = decodeKernelName(QString::fromStdString(k.name), k.axis_kinds, k.dont_use_locals);
    for (int64_t g : k.global_size) parts.globalSize << g;
    for (int64_t l : k.local_size) parts.localSize << l;
    s->kernelNames.insert(k.id, parts);
  }
  return s;
}

} // namespace loupe::views
