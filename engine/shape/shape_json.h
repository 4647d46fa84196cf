// JSON forms of shape quantities and views: the CLI's output and ShapeTracker's encoded arg.
// A concrete sint is a JSON integer; a symbolic one is an expression tree:
//   ["var", name, lo, hi]  ["bind", <var>, value]  [op name, operand, ...] for ADD, MUL, FLOORDIV, ...
#pragma once
#include "shape/view.h"
#include "support/json.h"

namespace loupe {

json::Value sint_to_json(const sint& x);
sint sint_from_json(const json::Value& v, std::string_view what = "value");

// {"shape", "strides", "offset", "mask" (null or [[b, e], ...]), "contiguous"}
json::Value view_to_json(const View& v);
// Rebuilds a view exactly as stored (no canonicalization, so an encoded tracker round-trips); checks
// lengths and types and throws loupe::Error naming the field.
View view_from_json(const json::Value& v);

// Inputs of `loupe-cli shapetracker` (DESIGN.md §6): a dims array, an array of [a, b] pairs, and one
// movement op ["reshape", [...]] / permute / expand / pad / shrink / ["flip", [axes]] applied to `st`.
// Errors name the op's position (ops[k]), the op, its argument and the shape it met.
sints sints_from_json(const json::Value& v, std::string_view what);
Ranges ranges_from_json(const json::Value& v, std::string_view what);
class ShapeTracker;
ShapeTracker apply_json_op(const ShapeTracker& st, const json::Value& op, size_t k);

} // namespace loupe
