// Finding anything in a trace: kernels by name, passes by name, rules by name or file:line, and
// nodes by op, dtype or arg -- the nodes a rewrite produced or replaced (the roots of its matches).
// A line of the user's program ("model.py:12") finds what it ended up in: the kernels computing its
// tensor ops and, per context, the rewrites that built nodes from it.
// Every hit says where to show it: its context, pass and step. Matching is a case-insensitive
// substring, as the user typed it (% and _ are literal).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loupe {

class TraceReader;

struct TraceSearchHit {
  enum class Kind { Kernel, Pass, Rule, Node, Source };
  Kind kind = Kind::Kernel;
  std::string label;   // what matched: a kernel or pass name, "rule (file:line)", "ADD float32 arg"
  std::string detail;  // how it relates to the step: "3 matches, first at step 2", "made by rule X"
  int64_t context_id = -1, pass_id = -1, step = 0, kernel_id = -1;
  std::string context_name, pass_name;
};

struct TraceSearchResult {
  std::vector<TraceSearchHit> hits;  // kernels, passes, rules, nodes; each kind in trace order
  bool truncated = false;            // some kind had more than the limit
};

const char* search_kind_name(TraceSearchHit::Kind kind);  // "kernel", "pass", "rule", "node", "from line"

// "model.py:12" -> ("model.py", 12); null for text of another form.
struct SourceLineSpec {
  std::string file;  // as typed: a base name or the end of a path
  int line = 0;
};
std::optional<SourceLineSpec> parse_source_line(const std::string& text);

// At most `limit` hits of each kind. An empty text finds nothing.
TraceSearchResult search_trace(TraceReader& reader, const std::string& text, int limit = 200);

} // namespace loupe
