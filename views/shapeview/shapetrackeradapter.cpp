#include "shapeview/shapetrackeradapter.h"

#include <QStringList>

#include <algorithm>

#include "ir/eval.h"
#include "ir/print.h"
#include "support/error.h"

namespace loupe::views {

namespace {

// The variables a tracker depends on, with the value each is shown at.
std::vector<ShapeVariable> variablesOf(const loupe::ShapeTracker& st, const std::map<std::string, int64_t>& binding) {
  std::vector<ShapeVariable> out;
  for (const loupe::View& v : st.views())
    for (const loupe::UOpPtr& u : v.vars()) {
      const loupe::UOpPtr var = u->op == loupe::Ops::BIND ? u->src[0] : u;
      const QString name = QString::fromStdString(var->var_name());
      auto same = [&](const ShapeVariable& x) { return x.name == name; };
      if (std::find_if(out.begin(), out.end(), same) != out.end()) continue;
      ShapeVariable sv{name, int64_t(var->vmin()), int64_t(var->vmax()), int64_t(var->vmax()), false};
      if (u->op == loupe::Ops::BIND) {
        sv.value = u->src[1]->const_int();
        sv.bound = true;
      }
      if (auto it = binding.find(var->var_name()); it != binding.end()) {
        if (it->second < sv.min || it->second > sv.max)
          throw loupe::Error(loupe::cat("variable ", var->var_name(), " = ", it->second, " is outside its bounds [", sv.min, ", ", sv.max, "]"));
        sv.value = it->second;
      }
      out.push_back(sv);
    }
  return out;
}

class Evaluator {
public:
  explicit Evaluator(const std::vector<ShapeVariable>& vars) {
    for (const ShapeVariable& v : vars) values_[v.name.toStdString()] = v.value;
  }
  int64_t operator()(const loupe::sint& s) const { return s.is_int() ? s.as_int() : loupe::eval_int(s.sym(), values_); }
  std::vector<int64_t> operator()(const loupe::sints& xs) const {
    std::vector<int64_t> out;
    for (const loupe::sint& s : xs) out.push_back((*this)(s));
    return out;
  }

private:
  loupe::VarValues values_;
};

QString text(const loupe::sint& s) { return QString::fromStdString(s.str()); }
QString text(const loupe::sints& xs) {
  QStringList parts;
  for (const loupe::sint& s : xs) parts << text(s);
  return parts.size() == 1 ? u'(' + parts.front() + QStringLiteral(",)") : u'(' + parts.join(QStringLiteral(", ")) + u')';
}
bool symbolic(const loupe::sints& xs) {
  return std::any_of(xs.begin(), xs.end(), [](const loupe::sint& s) { return !s.is_int(); });
}

} // namespace

ShapeTrackerInput shapeTrackerInput(const loupe::ShapeTracker& st, const QString& title, int64_t maxMapping,
                                    const std::map<std::string, int64_t>& binding) {
  ShapeTrackerInput in;
  in.title = title;
  in.variables = variablesOf(st, binding);
  const Evaluator at(in.variables);
  std::vector<loupe::View> bound;  // the same views with the values put in
  for (const loupe::View& v : st.views()) {
    ShapeViewInfo info;
    info.shape = at(v.shape);
    info.strides = at(v.strides);
    info.offset = at(v.offset);
    if (symbolic(v.shape)) info.shapeText = text(v.shape);
    if (symbolic(v.strides)) info.stridesText = text(v.strides);
    if (!v.offset.is_int()) info.offsetText = text(v.offset);
    loupe::View b = v;
    b.shape = loupe::to_sints(info.shape);
    b.strides = loupe::to_sints(info.strides);
    b.offset = info.offset;
    if (v.mask) {
      QStringList parts;
      bool sym = false;
      b.mask = loupe::Ranges{};
      for (const auto& [lo, hi] : *v.mask) {
        info.mask.emplace_back(at(lo), at(hi));
        b.mask->emplace_back(info.mask.back().first, info.mask.back().second);
        sym = sym || !lo.is_int() || !hi.is_int();
        parts << QStringLiteral("(%1, %2)").arg(text(lo), text(hi));
      }
      if (sym) info.maskText = parts.size() == 1 ? u'(' + parts.front() + QStringLiteral(",)") : u'(' + parts.join(QStringLiteral(", ")) + u')';
    }
    info.contiguous = v.contiguous;
    for (int64_t d : info.shape)
      if (d < 0) throw loupe::Error(loupe::cat("under these values the view's shape ", info.shapeText.toStdString(), " is ",
                                               loupe::shape_str(info.shape), ": a negative dimension"));
    in.views.push_back(std::move(info));
    bound.push_back(std::move(b));
  }
  const loupe::ShapeTracker concrete(std::move(bound));
  in.shape = at(st.shape());
  std::tie(in.index, in.valid) = concrete.to_indexed(true);
  if (!in.variables.empty()) std::tie(in.symbolicIndex, in.symbolicValid) = st.to_indexed(true);
  if (elementCount(in.shape) <= maxMapping) in.mapping = concrete.mapping();
  return in;
}

} // namespace loupe::views
