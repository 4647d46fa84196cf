// Fills the ShapeTracker panel's input from an engine ShapeTracker: its views, its simplified index
// and valid expressions over ridx0.., and (up to a size limit) the element -> offset mapping.
#pragma once
#include "shape/shapetracker.h"
#include "shape/shapetrackerinput.h"

// Symbolic dims, strides or offsets are shown at their largest value and no mapping is made (it
// needs concrete values); the expressions stay symbolic. maxMapping: elements above which the
// mapping is left out and the panel evaluates only the cells on screen.
ShapeTrackerInput shapeTrackerInput(const loupe::ShapeTracker& st, const QString& title = {},
                                    int64_t maxMapping = int64_t(1) << 20);
