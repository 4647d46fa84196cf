#include "codegen/beam_search.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "codegen/pipeline.h"
#include "rewrite/listener.h"
#include "support/compile_cache.h"

namespace loupe {

namespace {

std::atomic<int> searches{0};

// tinygrad's limits on a candidate: elements per thread in upcast/unroll axes, and threads per group.
// A TC kernel's K16 axis is not one thread's: the warp's lanes share its 16 steps (it would otherwise
// keep BEAM from the warp tiles the TC heuristics take).
constexpr int64_t kMaxUpcast = 256, kMaxLocal = 1024;

bool within_limits(const Kernel& k) {
  std::vector<int64_t> fs = k.full_shape();
  std::vector<AxisKind> kinds = k.axis_kinds();
  int64_t up = 1, local = 1;
  for (size_t i = 0; i < fs.size(); i++) {
    if (k.tensor_core() && i == k.first_upcast()) continue;  // K16
    if (kinds[i] == AxisKind::Upcast || kinds[i] == AxisKind::Unroll) up *= fs[i];
    if (kinds[i] == AxisKind::Local || kinds[i] == AxisKind::GroupReduce) local *= fs[i];
  }
  return up <= kMaxUpcast && local <= kMaxLocal;
}

// Every valid kernel one action away from k.
std::vector<Kernel> neighbours(const Kernel& k) {
  std::vector<Kernel> out;
  for (const Opt& a : beam_actions()) {
    if (a.axis >= static_cast<int64_t>(k.shape_len()) && a.op != OptOp::NOLOCALS) continue;
    Kernel next = k;
    try {
      next.apply_opt(a);
    } catch (const KernelOptError&) {
      continue;
    }
    if (within_limits(next)) out.push_back(std::move(next));
  }
  return out;
}

std::string encode(const std::vector<Opt>& opts) {
  std::string out;
  for (const Opt& o : opts) out += cat(opt_op_name(o.op), " ", o.axis, " ", o.arg, "\n");
  return out;
}

std::optional<std::vector<Opt>> decode(const std::string& text) {
  std::vector<Opt> out;
  std::istringstream in(text);
  std::string name;
  int64_t axis = 0, arg = 0;
  while (in >> name >> axis >> arg) {
    std::optional<OptOp> op;
    for (OptOp o : kAllOptOps)
      if (name == opt_op_name(o)) op = o;
    if (!op) return std::nullopt;  // written by another version: search again
    out.push_back({*op, axis, arg});
  }
  if (!in.eof()) return std::nullopt;
  return out;
}

struct Candidate {
  Kernel kernel;
  double seconds;
};

} // namespace

const std::vector<Opt>& beam_actions() {
  static const std::vector<Opt> actions = [] {
    std::vector<Opt> a;
    for (int64_t amt : {0, 2, 3, 4, 5, 7})
      for (int64_t axis = 0; axis < 6; axis++) a.push_back({OptOp::UPCAST, axis, amt});
    for (int64_t amt : {0, 4, 7})
      for (int64_t axis = 0; axis < 5; axis++) a.push_back({OptOp::UNROLL, axis, amt});
    for (int64_t amt : {2, 3, 4, 8, 13, 16, 29})
      for (int64_t axis = 0; axis < 6; axis++) a.push_back({OptOp::LOCAL, axis, amt});
    for (int64_t amt : {13, 16, 28, 29, 32, 49, 64, 256})
      for (int64_t axis = 0; axis < 3; axis++) a.push_back({OptOp::GROUPTOP, axis, amt});
    for (int64_t amt : {0, 4, 8, 16})
      for (int64_t axis = 0; axis < 3; axis++) a.push_back({OptOp::GROUP, axis, amt});
    for (int64_t axis = 0; axis < 7; axis++) a.push_back({OptOp::PADTO, axis, 32});
    a.push_back({OptOp::LOCAL, 0, 32});
    a.push_back({OptOp::LOCAL, 6, 2});
    for (int64_t a0 = 0; a0 < 5; a0++)
      for (int64_t a1 = a0 + 1; a1 < 5; a1++) a.push_back({OptOp::SWAP, a0, a1});
    for (int64_t axis = 0; axis < 9; axis++) a.push_back({OptOp::TC, axis, 0});  // refused unless first, on a TC target
    for (int64_t operand = 0; operand < 2; operand++)  // one tile or two
      for (int64_t tiles : {0, 2}) a.push_back({OptOp::STAGE, operand, tiles});
    return a;
  }();
  return actions;
}

std::string beam_cache_key(const UOpPtr& ast, const std::string& device, int width) {
  // v6: STAGE and UNROLL after TC are new actions (v4: the C backend writes vector code)
  return cache_key({"beam-v6", ast->key().hex(), device, std::to_string(width)});
}

std::optional<std::vector<Opt>> beam_cache_load(const std::string& key) {
  CompileCache& cache = CompileCache::global();
  if (!cache.enabled()) return std::nullopt;
  std::optional<std::string> text = cache.get("beam", key);
  if (!text) return std::nullopt;
  return decode(*text);
}

int beam_searches_run() { return searches.load(); }

BeamResult beam_search(const UOpPtr& ast, const Renderer& renderer, const std::string& device, int width,
                       const CandidateTimer& time_candidate, const CandidatePrepare& prepare) {
  BeamResult result;
  const std::string key = beam_cache_key(ast, device, width);
  if (std::optional<std::vector<Opt>> cached = beam_cache_load(key)) {
    // a cached choice that no longer applies (the kernel model changed) is searched again
    try {
      Kernel k = kernel_for(ast, renderer);
      k.apply_opts(*cached);
      result.opts = *cached;
      result.cached = true;
      return result;
    } catch (const KernelOptError&) {
    }
  }
  searches++;
  auto t0 = std::chrono::steady_clock::now();
  ListenersPaused quiet;  // candidates stay out of the trace; the chosen plan is recorded as usual
  std::set<std::string> seen;
  int round = 0;
  auto timed_ok = [](double seconds) { return seconds >= 0 && std::isfinite(seconds); };  // (-1: a repeated source)
  // One round's candidates: each is rendered (in order, skipping sources already seen), the batch is
  // handed to `prepare` (the executor compiles it on every core), then each is timed in order.
  auto time_kernels = [&](std::vector<Kernel> kernels) {
    struct Rendered {
      size_t row;  // index into result.tried
      KernelPlan plan;
      double render_seconds;
    };
    std::vector<Rendered> rendered;
    std::vector<size_t> rows(kernels.size());
    for (size_t i = 0; i < kernels.size(); i++) {
      check_interrupt();
      auto c0 = std::chrono::steady_clock::now();
      BeamCandidate tried;
      tried.round = round;
      tried.seconds = -1.0;  // until timed
      for (const Opt& o : kernels[i].applied_opts()) tried.opts.push_back(o.str());
      rows[i] = result.tried.size();
      try {
        KernelPlan plan = plan_from_kernel(kernels[i], ast, renderer);
        if (seen.insert(plan.rendered.source).second)
          rendered.push_back({rows[i], std::move(plan), std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count()});
        else
          tried.status = "same source as an earlier candidate";
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::Interrupt) throw;
        tried.status = cat("failed: ", e.what());
        tried.seconds = std::numeric_limits<double>::infinity();
      }
      tried.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
      result.tried.push_back(std::move(tried));
    }
    double prepare_share = 0;
    if (prepare && !rendered.empty()) {
      std::vector<const RenderedKernel*> batch;
      for (const Rendered& r : rendered) batch.push_back(&r.plan.rendered);
      auto p0 = std::chrono::steady_clock::now();
      prepare(batch);
      prepare_share = std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count() / double(batch.size());
    }
    for (const Rendered& r : rendered) {
      check_interrupt();
      auto t0 = std::chrono::steady_clock::now();
      result.candidates++;
      double s = time_candidate(r.plan.rendered);
      BeamCandidate& tried = result.tried[r.row];
      tried.seconds = s;
      tried.status = std::isfinite(s) ? "timed" : "failed to compile or run";
      tried.wall_seconds = r.render_seconds + prepare_share +
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    std::vector<double> seconds;
    std::vector<Candidate> out;
    for (size_t i = 0; i < kernels.size(); i++) {
      seconds.push_back(result.tried[rows[i]].seconds);
      if (timed_ok(seconds.back())) out.push_back({std::move(kernels[i]), seconds.back()});
    }
    return std::pair{std::move(out), std::move(seconds)};
  };
  // the kernel without opts, and the hand-coded kernel (in the beam too, so the search never settles
  // on something slower)
  Kernel hand = kernel_for(ast, renderer);
  hand.hand_coded_optimizations();
  auto [first, first_seconds] = time_kernels({kernel_for(ast, renderer), std::move(hand)});
  result.start_seconds = first_seconds[0];
  std::vector<Candidate> beam = std::move(first);
  if (!timed_ok(first_seconds[0]))  // the plain kernel failed: it stays the fallback
    beam.insert(beam.begin(), {kernel_for(ast, renderer), first_seconds[0]});
  std::stable_sort(beam.begin(), beam.end(), [](const Candidate& a, const Candidate& b) { return a.seconds < b.seconds; });
  width = std::max(width, 1);
  for (;;) {
    result.rounds++;
    round = result.rounds;
    std::vector<Kernel> next;
    for (const Candidate& c : beam)
      for (Kernel& k : neighbours(c.kernel)) next.push_back(std::move(k));
    std::vector<Candidate> timed = time_kernels(std::move(next)).first;
    std::vector<Candidate> all = beam;
    all.insert(all.end(), timed.begin(), timed.end());
    std::stable_sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) { return a.seconds < b.seconds; });
    if (all.size() > static_cast<size_t>(width)) all.erase(all.begin() + width, all.end());
    bool improved = !all.empty() && !(all[0].kernel.applied_opts() == beam[0].kernel.applied_opts());
    beam = std::move(all);
    if (!improved) break;
  }
  result.opts = beam[0].kernel.applied_opts();
  result.seconds = beam[0].seconds;
  std::vector<std::string> chosen;
  for (const Opt& o : result.opts) chosen.push_back(o.str());
  for (BeamCandidate& c : result.tried)
    if (c.status == "timed" && c.opts == chosen) {
      c.chosen = true;
      break;
    }
  result.search_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CompileCache& cache = CompileCache::global();
  if (cache.enabled()) cache.put("beam", key, encode(result.opts));
  return result;
}

} // namespace loupe
