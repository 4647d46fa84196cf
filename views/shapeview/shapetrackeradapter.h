// Fills the ShapeTracker panel's input from an engine ShapeTracker: its views, its simplified index
// and valid expressions over ridx0.., and (up to a size limit) the element -> offset mapping.
#pragma once
#include <map>
#include <string>

#include "shape/shapetracker.h"
#include "shapeview/shapetrackerinput.h"

namespace loupe::views {

// A symbolic tracker (dims, strides, offsets or masks over DEFINE_VAR/BIND variables) is shown under one
// value per variable: `binding` by name where it has one, else the value the tracker binds, else the
// variable's largest (what a kernel is planned for). A value outside a variable's bounds is a
// loupe::Error naming it. maxMapping: elements above which the mapping is left out and the panel
// evaluates only the cells on screen.
ShapeTrackerInput shapeTrackerInput(const loupe::ShapeTracker& st, const QString& title = {},
                                    int64_t maxMapping = int64_t(1) << 20,
                                    const std::map<std::string, int64_t>& binding = {});

} // namespace loupe::views
