// Where a node of a trace came from: the rewrite that first built it. Node ids are given in the order
// the writer first met the nodes and a node's sources are always older, so the rewrite that built node
// N is the first match, in recording order, whose replacement contains N - and only nodes with ids of
// at least N need to be looked at to know. A node no rewrite built came in with a pass's input (the
// scheduler's graph, a kernel's AST, or a graph a pass built by hand).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace loupe {

class TraceReader;

struct NodeOrigin {
  bool by_rewrite = false;      // false: it came in with `pass_id`'s input
  int64_t context_id = -1, pass_id = -1;
  std::string pass_name;
  int64_t step = 0;             // the step that shows it first (match index + 1; 0 for an input)
  std::string rule_name, rule_file;  // by_rewrite only
  int64_t rule_line = 0;
  int64_t replaced_id = -1;     // the node the rule rewrote (by_rewrite only)
};

// The first rewrite (or pass input) of the trace, or of one context when context_id >= 0, that holds
// node `node_id`; null when none does (a node of another context). loupe::Error for a damaged file.
std::optional<NodeOrigin> node_origin(TraceReader& reader, int64_t node_id, int64_t context_id = -1);

// The id of the stored node with this key (UOp::key().hex()), null when the trace has none.
std::optional<int64_t> node_id_by_key(TraceReader& reader, const std::string& key_hex);
// The same for several keys in one pass over the nodes (key -> id; keys the trace lacks are left out).
std::unordered_map<std::string, int64_t> node_ids_by_keys(TraceReader& reader, const std::vector<std::string>& keys_hex);

} // namespace loupe
