#include "trace/trace_diff.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>

#include "trace/uop_diff.h"

namespace loupe {

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<KernelInRun> kernels_of(TraceReader& r) {
  std::map<int64_t, std::pair<int64_t, int64_t>> timed;  // kernel id -> (runs, total ns)
  for (const TraceEvent& e : r.profile())
    if (e.kind == "kernel" && e.kernel_id >= 0) {
      auto& t = timed[e.kernel_id];
      t.first++;
      t.second += e.duration_ns;
    }
  std::vector<KernelInRun> out;
  for (const TraceKernel& k : r.kernels()) {
    KernelInRun x;
    x.id = k.id;
    x.name = k.name;
    x.device = k.device;
    x.opts = k.opts;
    x.ast_key = k.ast_key;
    if (auto it = timed.find(k.id); it != timed.end()) std::tie(x.runs, x.total_ns) = it->second;
    out.push_back(std::move(x));
  }
  return out;
}

// The optimized source of a kernel (read per kernel: the listing does not carry sources).
std::string source_of(TraceReader& r, int64_t id) {
  TraceKernel k = r.kernel(id);
  const KernelSource* s = k.source("opt");
  return s ? s->text : std::string();
}

} // namespace

int64_t KernelPair::change_ns() const { return (b ? b->total_ns : 0) - (a ? a->total_ns : 0); }

double KernelPair::ratio() const {
  if (!a || !b || a->runs == 0 || b->runs == 0 || b->mean_ns() <= 0) return 0;
  return a->mean_ns() / b->mean_ns();
}

std::vector<std::string> line_diff(const std::string& a, const std::string& b) {
  const std::vector<std::string> x = lines_of(a), y = lines_of(b);
  std::vector<std::string> out;
  for (const LineEdit& e : line_edits(x, y))
    out.push_back(e.kind == '+' ? "+ " + y[e.b] : std::string(1, e.kind) + " " + x[e.a]);
  return out;
}

TraceDiff diff_traces(TraceReader& ra, TraceReader& rb) {
  std::vector<KernelInRun> ka = kernels_of(ra), kb = kernels_of(rb);
  std::vector<char> used_b(kb.size(), 0);
  std::vector<int> partner(ka.size(), -1);
  std::vector<std::string> how(ka.size());
  // by the scheduled AST's key, then by name; in order, so repeated kernels pair first with first
  auto pair_by = [&](const char* what, auto same) {
    for (size_t i = 0; i < ka.size(); i++) {
      if (partner[i] >= 0) continue;
      for (size_t j = 0; j < kb.size(); j++)
        if (!used_b[j] && same(i, j)) {
          partner[i] = int(j);
          used_b[j] = 1;
          how[i] = what;
          break;
        }
    }
  };
  pair_by("ast", [&](size_t i, size_t j) { return !ka[i].ast_key.empty() && ka[i].ast_key == kb[j].ast_key; });
  pair_by("name", [&](size_t i, size_t j) { return ka[i].name == kb[j].name; });
  TraceDiff d;
  for (size_t i = 0; i < ka.size(); i++) {
    KernelPair p;
    p.a = ka[i];
    if (partner[i] >= 0) {
      p.b = kb[size_t(partner[i])];
      p.matched_by = how[i];
      p.a->source = source_of(ra, p.a->id);
      p.b->source = source_of(rb, p.b->id);
      if (p.a->source != p.b->source && !p.a->source.empty() && !p.b->source.empty())
        p.source_diff = line_diff(p.a->source, p.b->source);
    }
    d.pairs.push_back(std::move(p));
  }
  for (size_t j = 0; j < kb.size(); j++)
    if (!used_b[j]) {
      KernelPair p;
      p.b = kb[j];
      d.pairs.push_back(std::move(p));
    }
  for (const KernelInRun& k : ka) d.total_a_ns += k.total_ns;
  for (const KernelInRun& k : kb) d.total_b_ns += k.total_ns;
  std::stable_sort(d.pairs.begin(), d.pairs.end(),
                   [](const KernelPair& x, const KernelPair& y) { return std::llabs(x.change_ns()) > std::llabs(y.change_ns()); });
  return d;
}

} // namespace loupe
