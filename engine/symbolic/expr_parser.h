// Parser for the index-expression grammar of `loupe-cli simplify` (DESIGN.md §6): integers, variables,
// + - * // %, unary -, parentheses, min(x, y), max(x, y) and at most one top-level <, with Python's
// precedence. // and % build FLOORDIV/FLOORMOD (Python floor semantics). Variables are DEFINE_VARs of
// dtypes::index with the given inclusive ranges. Errors are loupe::Error naming the column.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "ir/uop.h"

namespace loupe {

using VarRanges = std::map<std::string, std::pair<int64_t, int64_t>>;

// Throws loupe::Error: syntax errors ("column 7: expected ')'"), unknown variables, empty ranges
// (lo > hi), division or modulo by a constant zero, integers beyond int64.
UOpPtr parse_index_expr(const std::string& text, const VarRanges& vars);

// "a=0:10,b=-3:3" -> ranges; throws loupe::Error naming the bad entry.
VarRanges parse_var_ranges(const std::string& spec);

} // namespace loupe
