#include "shapeview/shapeoffsets.h"

#include <QObject>
#include <QStringList>

#include <algorithm>

#include "ir/eval.h"
#include "ir/print.h"
#include "rewrite/graph_rewrite.h"
#include "support/error.h"

namespace loupe::views {

namespace {

constexpr qsizetype kMaxCached = 1 << 20; // evaluated offsets kept; cleared beyond this
constexpr qsizetype kMaxExprChars = 160;

QString shortened(const loupe::UOpPtr& e) {
  if (!e) return {};
  QString s = QString::fromStdString(loupe::render_expr(e));
  if (s.size() > kMaxExprChars) s = s.left(kMaxExprChars - 1) + QStringLiteral("…");
  return s;
}

loupe::VarValues varsFor(const std::vector<int64_t>& index) {
  loupe::VarValues vars;
  for (size_t i = 0; i < index.size(); ++i) vars["ridx" + std::to_string(i)] = index[i];
  return vars;
}

} // namespace

std::optional<int64_t> ShapeCellReport::offset() const {
  if (mapped) return mapped;
  if (validValue && !*validValue) return ShapeOffsets::kPadding;
  if (validValue && indexValue) return indexValue;
  return std::nullopt;
}

bool ShapeCellReport::disagrees() const {
  if (!mapped || !validValue) return false;
  if (!*validValue) return *mapped != ShapeOffsets::kPadding;
  return indexValue && *indexValue != *mapped;
}

ShapeOffsets::ShapeOffsets(std::shared_ptr<const ShapeTrackerInput> input) : input_(std::move(input)) {
  if (!input_) return;
  const int64_t n = elementCount(input_->shape);
  if (!input_->mapping.empty()) {
    if (int64_t(input_->mapping.size()) == n) {
      mappingUsable_ = true;
    } else {
      problem_ =
          QObject::tr("the mapping has %1 entries but the shape %2 has %3 elements; offsets are evaluated instead")
              .arg(input_->mapping.size())
              .arg(formatTuple(input_->shape))
              .arg(n);
    }
  }
  if (mappingUsable_) {
    bool any = false;
    for (int64_t v : input_->mapping) {
      if (v < 0) continue;
      min_ = any ? std::min(min_, v) : v;
      max_ = any ? std::max(max_, v) : v;
      any = true;
    }
  } else if (input_->index) {
    std::tie(min_, max_) = boundsWithFixed({});
  }
}

std::pair<int64_t, int64_t> ShapeOffsets::boundsWithFixed(const std::vector<std::optional<int64_t>>& fixed) const {
  if (!input_ || !input_->index) return {min_, max_};
  auto clamp64 = [](__int128 v) {
    return int64_t(
        std::clamp<__int128>(v, std::numeric_limits<int64_t>::min() / 2, std::numeric_limits<int64_t>::max() / 2));
  };
  loupe::UOpMap<loupe::UOpPtr> subs;
  for (const loupe::UOp* u : input_->index->toposort()) {
    if (u->op != loupe::Ops::RANGE) continue;
    for (size_t axis = 0; axis < fixed.size(); ++axis)
      if (fixed[axis] && u->var_name() == "ridx" + std::to_string(axis))
        subs[u->ptr()] = loupe::UOp::cnst_int(u->dtype, *fixed[axis]);
  }
  const loupe::UOpPtr e = subs.empty() ? input_->index : loupe::substitute(input_->index, subs);
  return {clamp64(e->vmin()), clamp64(e->vmax())};
}

std::optional<int64_t> ShapeOffsets::known(int64_t flat) const {
  if (mappingUsable_) return input_->mapping[size_t(flat)];
  auto it = cache_.constFind(flat);
  if (it != cache_.constEnd()) return *it;
  if (!canEvaluate()) return kError;
  return std::nullopt;
}

int64_t ShapeOffsets::evaluate(int64_t flat, const std::vector<int64_t>& index) {
  if (auto k = known(flat)) return *k;
  int64_t result = kError;
  try {
    const loupe::VarValues vars = varsFor(index);
    const bool valid = !input_->valid || loupe::eval_int(input_->valid, vars) != 0;
    result = valid ? loupe::eval_int(input_->index, vars) : kPadding;
  } catch (const std::exception&) {
    result = kError; // the hover report shows the message
  }
  if (cache_.size() >= kMaxCached) cache_.clear();
  cache_.insert(flat, result);
  return result;
}

ShapeCellReport ShapeOffsets::report(const std::vector<int64_t>& index, int64_t flat) const {
  ShapeCellReport r;
  r.index = index;
  r.flat = flat;
  if (!input_) return r;
  if (mappingUsable_ && flat >= 0 && flat < int64_t(input_->mapping.size()))
    r.mapped = input_->mapping[size_t(flat)];
  const loupe::VarValues vars = varsFor(index);
  r.indexText = shortened(input_->index);
  r.validText = input_->valid ? shortened(input_->valid) : QStringLiteral("True");
  if (input_->index) {
    try {
      r.indexValue = loupe::eval_int(input_->index, vars);
    } catch (const std::exception& e) {
      r.indexError = QString::fromUtf8(e.what());
    }
  }
  if (!input_->valid) {
    r.validValue = true;
  } else {
    try {
      r.validValue = loupe::eval_int(input_->valid, vars) != 0;
    } catch (const std::exception& e) {
      r.validError = QString::fromUtf8(e.what());
    }
  }
  return r;
}

QString shapeCellTooltip(const ShapeCellReport& r) {
  const QString idx = formatTuple(r.index);
  QStringList lines;
  lines << QObject::tr("<b>index %1</b> &nbsp;·&nbsp; element %2").arg(idx.toHtmlEscaped()).arg(r.flat);
  const std::optional<int64_t> off = r.offset();
  if (!off)
    lines << QObject::tr("offset unknown");
  else if (*off == ShapeOffsets::kPadding)
    lines << QObject::tr("<b>padding</b> (reads 0)");
  else
    lines << QObject::tr("reads buffer offset <b>%1</b>").arg(*off);
  auto row = [](const QString& name, const QString& value, const QString& expr) {
    return QStringLiteral("<tr><td>%1</td><td>&nbsp;=&nbsp;<b>%2</b></td><td>&nbsp;&nbsp;<tt>%3</tt></td></tr>")
        .arg(name, value.toHtmlEscaped(), expr.toHtmlEscaped());
  };
  QString table = QStringLiteral("<table cellspacing=0>");
  if (!r.indexText.isEmpty() || !r.indexError.isEmpty()) {
    const QString v = !r.indexError.isEmpty() ? QObject::tr("error: %1").arg(r.indexError)
                      : r.indexValue          ? QString::number(*r.indexValue)
                                              : QStringLiteral("?");
    table += row(QObject::tr("index"), v, r.indexText);
  }
  const QString vv = !r.validError.isEmpty() ? QObject::tr("error: %1").arg(r.validError)
                     : r.validValue          ? (*r.validValue ? QStringLiteral("True") : QStringLiteral("False"))
                                             : QStringLiteral("?");
  table += row(QObject::tr("valid"), vv, r.validText) + QStringLiteral("</table>");
  lines << table;
  if (r.disagrees())
    lines << QObject::tr(
                 "<span style='color:#d33'><b>the expressions disagree with the recorded mapping (%1)</b></span>")
                 .arg(*r.mapped);
  return QStringLiteral("<div style='white-space:nowrap'>") + lines.join(QStringLiteral("<br>")) +
         QStringLiteral("</div>");
}

} // namespace loupe::views
