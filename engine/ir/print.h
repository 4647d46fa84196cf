// Text forms of UOps: index math in the Python-like grammar of the CLI (DESIGN.md §6), a short
// one-line label, and a numbered listing of a whole graph.
#pragma once
#include <string>

#include "ir/uop.h"

namespace loupe {

// Renders integer/bool expressions: `((a*2)+(b//3))`, `min(a,b)`, `(a<3)`, `True`. `//` and `%`
// are floor ops; C-truncating IDIV/MOD render as cdiv()/cmod() (not valid Python, never produced
// for floor-semantics input).
std::string render_expr(const UOpPtr& u);

// "ADD weakint", "CONST float32 2.5", "RESHAPE (4, 4)": op, dtype and a short arg.
std::string uop_label(const UOp& u, size_t max_arg_chars = 40);

// One line per node in topological order: "  3 ADD            weakint  [1, 2]  None".
std::string print_graph(const UOpPtr& root);

} // namespace loupe
