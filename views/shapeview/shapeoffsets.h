// Where the grid's offsets come from: the trace's element -> offset mapping when it has one, else
// the index/valid expressions evaluated per element with eval_int (cached, and rationed per paint
// so a huge shape never stalls the GUI). Also builds the per-cell report shown on hover.
#pragma once
#include <QHash>
#include <QString>

#include <memory>
#include <optional>

#include "shapeview/shapetrackerinput.h"

namespace loupe::views {

struct ShapeCellReport {
  std::vector<int64_t> index;
  int64_t flat = 0;                  // row-major element number
  std::optional<int64_t> mapped;     // from the mapping (-1 = padding)
  std::optional<int64_t> indexValue; // index expression at this element
  std::optional<bool> validValue;    // valid expression (true when there is none)
  QString indexError, validError;    // evaluation failures (e.g. an unbound variable)
  QString indexText, validText;      // the expressions, rendered and shortened

  // The offset the element reads (-1 padding), preferring the mapping; nullopt if unknown.
  std::optional<int64_t> offset() const;
  // True when the mapping and the expressions give different answers: a bug worth seeing.
  bool disagrees() const;
};

class ShapeOffsets {
public:
  static constexpr int64_t kPadding = -1;
  static constexpr int64_t kError = std::numeric_limits<int64_t>::min();

  explicit ShapeOffsets(std::shared_ptr<const ShapeTrackerInput> input = {});

  const ShapeTrackerInput* input() const { return input_.get(); }
  bool hasMapping() const { return mappingUsable_; }
  bool canEvaluate() const { return input_ && input_->index; }
  QString problem() const { return problem_; } // why the mapping is not used, if it is not

  // Offset of an element (-1 padding, kError when evaluation failed) if known without evaluating.
  std::optional<int64_t> known(int64_t flat) const;
  // Evaluates the expressions at this element and remembers the result.
  int64_t evaluate(int64_t flat, const std::vector<int64_t>& index);
  // The range colours are spread over: the mapping's min/max, else the index's proven bounds.
  int64_t minOffset() const { return min_; }
  int64_t maxOffset() const { return max_; }

  // Bounds of the offsets read with some axes fixed (nullopt = free), from the index expression with
  // those axes substituted: they hold for any slice without evaluating it. Whole range if unknown.
  std::pair<int64_t, int64_t> boundsWithFixed(const std::vector<std::optional<int64_t>>& fixed) const;

  ShapeCellReport report(const std::vector<int64_t>& index, int64_t flat) const;

private:
  std::shared_ptr<const ShapeTrackerInput> input_;
  bool mappingUsable_ = false;
  QString problem_;
  int64_t min_ = 0, max_ = 0;
  QHash<int64_t, int64_t> cache_;
};

// Hover text: index, element number, offset, and both expressions with their values here.
QString shapeCellTooltip(const ShapeCellReport& report);

} // namespace loupe::views
