// Two runs side by side: the kernels of trace A paired with those of trace B (optimized vs BEAM,
// before vs after a change, CPU vs another device). Kernels pair by their scheduled AST's key (the
// same kernel whatever its opts, backend or name), then, among the rest, by name; what is left is
// only in one run. Each pair has both runs' times, opts and a line diff of their sources; the list
// is sorted by how much total time changed.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/trace_reader.h"

namespace loupe {

struct KernelInRun {
  int64_t id = -1;
  std::string name, device;
  std::vector<std::string> opts;
  std::string ast_key;             // the scheduled AST's key ("" in older traces)
  int64_t runs = 0, total_ns = 0;  // kernel runs of the program's timeline
  std::string source;              // the optimized source ("" when not recorded)
  double mean_ns() const { return runs > 0 ? double(total_ns) / double(runs) : 0; }
};

struct KernelPair {
  std::string matched_by;          // "ast" or "name"; "" for a kernel in one run only
  std::optional<KernelInRun> a, b;
  // Lines of a diff of the two sources: "  " same, "- " only in A, "+ " only in B; empty when the
  // sources are equal or a side is missing.
  std::vector<std::string> source_diff;
  int64_t change_ns() const;       // B's total time minus A's (a missing side counts 0)
  double ratio() const;            // A's mean over B's mean (a speed-up of B); 0 when either is not timed
};

struct TraceDiff {
  std::vector<KernelPair> pairs;   // largest |change_ns| first
  int64_t total_a_ns = 0, total_b_ns = 0;
};

TraceDiff diff_traces(TraceReader& a, TraceReader& b);

// A line diff (longest common subsequence) in the form of KernelPair::source_diff.
std::vector<std::string> line_diff(const std::string& a, const std::string& b);

} // namespace loupe
