// How the shape bindings (View, ShapeTracker: symbolic dims, index expressions) reach the Python UOp
// class without depending on how it is bound: the UOp binding registers its two converters here.
#pragma once
#include <functional>

#include "common.h"

namespace loupe::python {

struct UopBridge {
  std::function<py::object(const UOpPtr&)> to_py;  // the engine's node as the Python UOp object
  std::function<UOpPtr(py::handle)> from_py;        // a Python UOp as the engine's node; null if not one
};
UopBridge& bridge();
void set_uop_bridge(UopBridge b);

} // namespace loupe::python
