#include "shape/shapetrackeradapter.h"

namespace {

int64_t value(const loupe::sint& s, bool* symbolic) {
  if (s.is_int()) return s.as_int();
  *symbolic = true;
  return s.vmax();
}

std::vector<int64_t> values(const loupe::sints& v, bool* symbolic) {
  std::vector<int64_t> out;
  out.reserve(v.size());
  for (const loupe::sint& s : v) out.push_back(value(s, symbolic));
  return out;
}

} // namespace

ShapeTrackerInput shapeTrackerInput(const loupe::ShapeTracker& st, const QString& title, int64_t maxMapping) {
  ShapeTrackerInput in;
  in.title = title;
  bool symbolic = false;
  for (const loupe::View& v : st.views()) {
    ShapeViewInfo info;
    info.shape = values(v.shape, &symbolic);
    info.strides = values(v.strides, &symbolic);
    info.offset = value(v.offset, &symbolic);
    if (v.mask)
      for (const auto& [b, e] : *v.mask) info.mask.emplace_back(value(b, &symbolic), value(e, &symbolic));
    info.contiguous = v.contiguous;
    in.views.push_back(std::move(info));
  }
  in.shape = values(st.shape(), &symbolic);
  std::tie(in.index, in.valid) = st.to_indexed(true);
  if (!symbolic && elementCount(in.shape) <= maxMapping) in.mapping = st.mapping();
  return in;
}
