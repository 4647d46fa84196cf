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

} // namespace loupe
