#include "trace/graph_dot.h"

#include <sstream>
#include <unordered_map>

#include "ir/print.h"

namespace loupe {

namespace {
// A dot string literal body: quotes and backslashes escaped, newlines as dot's \n.
std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out;
}
} // namespace

std::string graph_dot(const UOpPtr& root, const std::unordered_set<const UOp*>& highlighted) {
  std::vector<const UOp*> order = root->toposort();
  std::unordered_map<const UOp*, size_t> index;
  std::ostringstream os;
  os << "digraph uops {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"monospace\"];\n";
  for (size_t i = 0; i < order.size(); i++) {
    const UOp* u = order[i];
    index[u] = i;
    std::string label = std::string(op_name(u->op));
    if (!u->dtype.is_void()) label += "\n" + u->dtype.short_name();
    if (!u->arg.is_none()) {
      std::string a = u->arg.str();
      if (a.size() > 60) a = a.substr(0, 57) + "...";
      label += "\n" + a;
    }
    os << "  n" << i << " [label=\"" << escape(label) << "\", fillcolor=\"" << op_colour(u->op) << "\"";
    if (highlighted.count(u)) os << ", color=\"#ff2020\", penwidth=3";
    os << "];\n";
  }
  for (size_t i = 0; i < order.size(); i++)
    for (size_t j = 0; j < order[i]->src.size(); j++)
      os << "  n" << index.at(order[i]->src[j].get()) << " -> n" << i << " [label=\"" << j << "\"];\n";
  os << "}\n";
  return os.str();
}

} // namespace loupe
