// Line alignment for the Compare panel: a Myers diff (linear-space, middle-snake bisection) over
// interned lines, turned into rows that put both sides level. Pure logic, no painting.
#pragma once
#include <QList>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <span>
#include <vector>

namespace loupe::views {

enum class DiffOp : uint8_t { Equal, Delete, Insert };

// One run of an edit script: `length` items of a starting at aStart (Equal, Delete) and/or of b
// starting at bStart (Equal, Insert). Runs are in order and adjacent runs never share an op.
struct DiffRun {
  DiffOp op;
  int aStart;
  int bStart;
  int length;
  bool operator==(const DiffRun&) const = default;
};

// Search steps a diff may take (about 20 ms); beyond it a hard subproblem is replaced whole.
constexpr int64_t kDefaultDiffBudget = 20'000'000;

// An edit script turning a into b. It is a shortest one (minimal Delete+Insert count) unless the
// inputs are so large and different that the budget runs out; it is always valid.
std::vector<DiffRun> myersDiff(std::span<const int> a, std::span<const int> b, int64_t budget = kDefaultDiffBudget);

enum class LineChange : uint8_t { Unchanged, Changed, Removed, Added };

// One displayed row: the line index on each side, or -1 where that side shows a blank filler line.
struct AlignedRow {
  int left = -1;
  int right = -1;
  LineChange change = LineChange::Unchanged;
  bool operator==(const AlignedRow&) const = default;
};

struct LineAlignment {
  std::vector<AlignedRow> rows;
  int unchanged = 0, changed = 0, removed = 0, added = 0;
};

enum class LineCompare : uint8_t { Exact, IgnoreWhitespace };

// Aligns two texts line by line. Inside a block of deleted and inserted lines, lines that look
// alike (shared tokens) are paired as Changed, in order; the rest are Removed/Added with a filler
// on the other side.
LineAlignment alignLines(const QStringList& left, const QStringList& right,
                         LineCompare compare = LineCompare::IgnoreWhitespace);

// Character spans [start, end) that differ between two paired lines, for intra-line marks.
struct ChangedSpans {
  QList<QPair<int, int>> left, right;
};
ChangedSpans changedSpans(const QString& left, const QString& right);

// How alike two lines are, 0..1 (Dice coefficient over their tokens); used to pair changed lines.
double lineSimilarity(const QString& a, const QString& b);

} // namespace loupe::views
