// The id a UOp has in every view of a trace: the Session's node selection, the Graph panel's nodes,
// the Inspector's rows. Kept with the session (below the panels) so each of them can name a node.
#pragma once
#include <QtGlobal>

#include "ir/uop.h"

namespace loupe::views {

// Its content key: equal structures have equal ids in every step.
inline quint64 uopNodeId(const loupe::UOp& u) { return u.key().lo; }

} // namespace loupe::views
