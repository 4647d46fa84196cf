#include "program/eval_result.h"

#include <cmath>

#include "program/float_repr.h"

namespace loupe::program {

std::string values_json(const EvalResult& r) {
  std::string s = "[";
  if (r.dtype.is_float()) {
    for (size_t i = 0; i < r.floats.size(); i++) {
      double v = r.floats[i];
      if (i) s += ", ";
      if (std::isnan(v)) s += "\"nan\"";
      else if (std::isinf(v)) s += v > 0 ? "\"inf\"" : "\"-inf\"";
      else s += float_repr(v);
    }
  } else {
    for (size_t i = 0; i < r.ints.size(); i++) {
      if (i) s += ", ";
      if (r.dtype.is_bool()) s += r.ints[i] ? "true" : "false";
      else if (r.dtype == dtypes::uint64) s += std::to_string(static_cast<uint64_t>(r.ints[i]));
      else s += std::to_string(r.ints[i]);
    }
  }
  return s + "]";
}

std::string result_json(const json::Value& id, const EvalResult& r) {
  std::string s = "{\"id\": " + id.dump() + ", \"shape\": [";
  for (size_t i = 0; i < r.shape.size(); i++) s += (i ? ", " : "") + std::to_string(r.shape[i]);
  s += "], \"dtype\": " + json::quote(r.dtype.short_name());
  s += ", \"values\": " + values_json(r);
  s += ", \"kernels\": " + std::to_string(r.kernels) + "}";
  return s;
}

std::string error_json(const json::Value& id, const std::string& message) {
  return "{\"id\": " + id.dump() + ", \"error\": " + json::quote(message) + "}";
}

} // namespace loupe::program
