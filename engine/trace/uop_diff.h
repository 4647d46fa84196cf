// Text forms for comparing two graphs (a rewrite's before and after) and a unified line diff.
// The listing names each node by a short prefix of its content key, so a node shared by both graphs
// prints the same line in both, and the diff shows exactly the nodes that went away or appeared.
#pragma once
#include <string>
#include <vector>

#include "ir/uop.h"

namespace loupe {

// One line per node in topological order: "%1a2b3c = ADD weakint None (%0f0f0f, %777777)".
std::vector<std::string> uop_listing(const UOpPtr& root);

// One line of an edit script turning a into b: kept (' '), removed ('-') or added ('+'), with the
// (0-based) positions in a and b where it stands.
struct LineEdit {
  char kind;
  size_t a, b;
};

// The edit script of a into b: common head and tail, a longest common subsequence in between
// (removals before additions, as diff prints them); a middle too big for the table (over 16M cells)
// comes out as all removed, then all added.
std::vector<LineEdit> line_edits(const std::vector<std::string>& a, const std::vector<std::string>& b);

// Lines of a unified diff ("-old", "+new", " same"), with up to `context` unchanged lines around
// each change and "@@ -a,b +c,d @@" hunk headers. Empty when the inputs are equal.
std::vector<std::string> unified_diff(const std::vector<std::string>& a, const std::vector<std::string>& b,
                                      int context = 3);

} // namespace loupe
