// A rule's pattern (UPat) as JSON, for traces: a Python rule set is recorded with its patterns so that
// Why not? can try them on a node after the program that wrote them has ended.
//
//   {"ops": ["ADD"] | null, "dtypes": ["int32"], "arg": "<arg code>", "number": 0, "name": "x",
//    "kind": "any" | "ordered" | "permuted" | "repeated", "src": [...], "any_len": false,
//    "classes": 15, "condition": true}
//
// Absent keys take the builder's defaults. "condition" marks a C++ predicate, which is code and is not
// recorded: a decoded pattern with one cannot be matched (decode says so).
#pragma once
#include <string>
#include <string_view>

#include "rewrite/upat.h"

namespace loupe {

std::string encode_upat(const UPat& pattern);
bool upat_has_condition(const UPat& pattern);  // anywhere in it
// Throws loupe::Error naming the problem and where ("src[1].ops: no op named 'FOO'") for malformed or
// too deeply nested text, and for a pattern with a condition.
UPat decode_upat(std::string_view json_text);

} // namespace loupe
