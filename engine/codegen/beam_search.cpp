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
constexpr int64_t kMaxUpcast = 256, kMaxLocal = 1024;

bool within_limits(const Kernel& k) {
  std::vector<int64_t> fs = k.full_shape();
  std::vector<AxisKind> kinds = k.axis_kinds();
  int64_t up = 1, local = 1;
  for (size_t i = 0; i < fs.size(); i++) {
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
    for (OptOp o : {OptOp::UPCAST, OptOp::UNROLL, OptOp::LOCAL, OptOp::GROUP, OptOp::GROUPTOP, OptOp::NOLOCALS,
                    OptOp::PADTO, OptOp::SWAP, OptOp::TC})
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
    return a;
  }();
  return actions;
}

std::string beam_cache_key(const UOpPtr& ast, const std::string& device, int width) {
  // v4: the C backend writes vector code, so opts timed before it may no longer be the fastest
  return cache_key({"beam-v5", ast->key().hex(), device, std::to_string(width)});
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
                       const CandidateTimer& time_candidate) {
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
  auto time_kernel = [&](const Kernel& k) {
    check_interrupt();
    auto c0 = std::chrono::steady_clock::now();
    BeamCandidate tried;
    tried.round = round;
    for (const Opt& o : k.applied_opts()) tried.opts.push_back(o.str());
    auto done = [&](double seconds, std::string status) {
      tried.seconds = seconds;
      tried.status = std::move(status);
      tried.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
      result.tried.push_back(std::move(tried));
      return seconds;
    };
    KernelPlan plan;
    try {
      plan = plan_from_kernel(k, ast, renderer);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Interrupt) throw;
      return done(std::numeric_limits<double>::infinity(), cat("failed: ", e.what()));
    }
    if (!seen.insert(plan.rendered.source).second) return done(-1.0, "same source as an earlier candidate");
    result.candidates++;
    double s = time_candidate(plan.rendered);
    return done(s, std::isfinite(s) ? "timed" : "failed to compile or run");
  };
  Kernel start = kernel_for(ast, renderer);
  double start_time = time_kernel(start);
  result.start_seconds = start_time;
  std::vector<Candidate> beam{{start, start_time}};
  // the hand-coded kernel starts in the beam too, so the search never settles on something slower
  Kernel hand = kernel_for(ast, renderer);
  hand.hand_coded_optimizations();
  if (double s = time_kernel(hand); s >= 0 && std::isfinite(s)) beam.push_back({std::move(hand), s});
  std::stable_sort(beam.begin(), beam.end(), [](const Candidate& a, const Candidate& b) { return a.seconds < b.seconds; });
  width = std::max(width, 1);
  for (;;) {
    result.rounds++;
    round = result.rounds;
    std::vector<Candidate> timed;
    for (const Candidate& c : beam)
      for (Kernel& next : neighbours(c.kernel)) {
        double s = time_kernel(next);
        if (s >= 0 && std::isfinite(s)) timed.push_back({std::move(next), s});
      }
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
