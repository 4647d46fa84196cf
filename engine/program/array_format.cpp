#include "program/array_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "program/float_repr.h"

namespace loupe::program {

namespace {

constexpr int kLineWidth = 75, kEdgeItems = 3, kThreshold = 1000, kPrecision = 8;

double round_to(double v, DType d) {
  if (d == dtypes::float32) return double(float(v));
  if (d == dtypes::float16) return double(_Float16(v));
  if (d == dtypes::bfloat16) {
    float f = float(v);
    if (std::isnan(f)) return f;
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000u;  // round to nearest even on the kept 16 bits
    std::memcpy(&f, &u, 4);
    return f;
  }
  return v;
}

// Shortest scientific digits of v that read back as v in dtype d: "1.2345e+02".
std::string shortest_sci(double v, DType d) {
  char buf[64];
  if (d == dtypes::float64 || d == dtypes::weakfloat) {
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    return std::string(buf, r.ptr);
  }
  if (d == dtypes::float32) {
    auto r = std::to_chars(buf, buf + sizeof buf, float(v), std::chars_format::scientific);
    return std::string(buf, r.ptr);
  }
  for (int p = 0; p < 17; p++) {  // halfs: the fewest digits that round back to the same half
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific, p);
    std::string s(buf, r.ptr);
    if (round_to(std::strtod(s.c_str(), nullptr), d) == v) return s;
  }
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return std::string(buf, r.ptr);
}

struct Sci {
  bool neg;
  std::string digits;  // significant digits, no leading zeros (except for 0)
  int exp;             // value = 0.d1d2... * 10^(exp+1) = d1.d2... * 10^exp
};
Sci split_sci(const std::string& s) {
  Sci out{s[0] == '-', "", 0};
  size_t e = s.find('e');
  for (size_t i = out.neg ? 1 : 0; i < e; i++)
    if (s[i] != '.') out.digits += s[i];
  out.exp = std::stoi(s.substr(e + 1));
  while (out.digits.size() > 1 && out.digits.back() == '0') out.digits.pop_back();
  return out;
}

// numpy's positional form: unique digits, at most 8 decimals, always a '.': "3.", "-0.25"
std::pair<std::string, std::string> positional(double v, DType d) {
  Sci s = split_sci(shortest_sci(v, d));
  std::string ip, fp;
  if (s.exp >= 0) {
    ip = s.digits.substr(0, std::min(s.digits.size(), size_t(s.exp) + 1));
    ip += std::string(size_t(s.exp) + 1 - ip.size(), '0');
    if (s.digits.size() > size_t(s.exp) + 1) fp = s.digits.substr(size_t(s.exp) + 1);
  } else {
    ip = "0";
    fp = std::string(size_t(-s.exp - 1), '0') + s.digits;
  }
  if (fp.size() > size_t(kPrecision)) {  // too many decimals: round to 8 and drop trailing zeros
    char buf[400];
    std::snprintf(buf, sizeof buf, "%.*f", kPrecision, std::fabs(v));
    std::string t = buf;
    size_t dot = t.find('.');
    ip = t.substr(0, dot);
    fp = t.substr(dot + 1);
    while (!fp.empty() && fp.back() == '0') fp.pop_back();
  }
  if (fp == "0") fp.clear();
  return {(s.neg ? "-" : "") + ip + ".", fp};
}

std::vector<std::string> format_floats(const std::vector<double>& vals, DType d) {
  double max_abs = 0, min_abs = INFINITY;
  for (double v : vals)
    if (std::isfinite(v) && v != 0) {
      max_abs = std::max(max_abs, std::fabs(v));
      min_abs = std::min(min_abs, std::fabs(v));
    }
  bool sci = max_abs >= 1e8 || (max_abs > 0 && (min_abs < 1e-4 || max_abs / min_abs > 1e3));
  std::vector<std::string> out(vals.size());
  if (sci) {
    size_t frac = 0;
    std::vector<Sci> parts(vals.size());
    for (size_t i = 0; i < vals.size(); i++)
      if (std::isfinite(vals[i])) {
        parts[i] = split_sci(shortest_sci(vals[i], d));
        frac = std::max(frac, std::min(parts[i].digits.size() - 1, size_t(kPrecision)));
      }
    for (size_t i = 0; i < vals.size(); i++) {
      if (!std::isfinite(vals[i])) {
        out[i] = float_repr(vals[i]);
        continue;
      }
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*e", int(frac), vals[i]);
      std::string t = buf;  // "1.50e-05": numpy writes "1." for a single digit
      if (frac == 0) t.insert(t.find('e'), ".");
      out[i] = t;
    }
  } else {
    std::vector<std::pair<std::string, std::string>> parts(vals.size());
    size_t left = 0, right = 0;
    for (size_t i = 0; i < vals.size(); i++)
      if (std::isfinite(vals[i])) {
        parts[i] = positional(vals[i], d);
        left = std::max(left, parts[i].first.size());
        right = std::max(right, parts[i].second.size());
      }
    for (size_t i = 0; i < vals.size(); i++) {
      if (!std::isfinite(vals[i])) {
        out[i] = float_repr(vals[i]);
        continue;
      }
      out[i] = std::string(left - parts[i].first.size(), ' ') + parts[i].first + parts[i].second +
               std::string(right - parts[i].second.size(), ' ');
    }
  }
  size_t width = 0;
  for (const std::string& s : out) width = std::max(width, s.size());
  for (std::string& s : out) s = std::string(width - s.size(), ' ') + s;
  return out;
}

class Printer {
public:
  Printer(const Shape& shape, std::vector<std::string> cells, bool summarize)
      : shape_(shape), cells_(std::move(cells)), summarize_(summarize) {}

  std::string run() {
    if (shape_.empty()) return cells_.empty() ? "" : cells_[0];
    size_t pos = 0;
    return block(0, pos, "[", 0);
  }

private:
  bool cut(size_t axis) const { return summarize_ && shape_[axis] > 2 * kEdgeItems; }
  // indices of the axis to show; -1 marks the "..." gap
  std::vector<int64_t> shown(size_t axis) const {
    std::vector<int64_t> out;
    if (!cut(axis)) {
      for (int64_t i = 0; i < shape_[axis]; i++) out.push_back(i);
      return out;
    }
    for (int64_t i = 0; i < kEdgeItems; i++) out.push_back(i);
    out.push_back(-1);
    for (int64_t i = shape_[axis] - kEdgeItems; i < shape_[axis]; i++) out.push_back(i);
    return out;
  }

  // The cells are the shown elements in row-major order; `pos` walks them.
  std::string block(size_t axis, size_t& pos, const std::string& prefix, size_t indent) {
    std::vector<int64_t> idx = shown(axis);
    std::string pad(indent + 1, ' ');
    if (axis + 1 == shape_.size()) {
      std::string out = prefix, line = prefix;
      for (size_t k = 0; k < idx.size(); k++) {
        std::string word = idx[k] < 0 ? "..." : cells_[pos++];
        bool last = k + 1 == idx.size();
        std::string piece = word + (last ? "]" : "");
        // numpy keeps one column for the closing bracket on every line
        if (k > 0 && line.size() + 1 + word.size() > size_t(kLineWidth - 1)) {
          out += "\n" + pad;
          line = pad;
        } else if (k > 0) {
          out += " ";
          line += " ";
        }
        out += piece;
        line += piece;
      }
      if (idx.empty()) out += "]";
      return out;
    }
    std::string sep = std::string(shape_.size() - axis - 1, '\n') + pad;
    std::string out = prefix;
    for (size_t k = 0; k < idx.size(); k++) {
      if (k > 0) out += sep;
      if (idx[k] < 0) {
        out += "...";
        continue;
      }
      out += block(axis + 1, pos, "[", indent + 1);
    }
    if (idx.empty()) out += "]";
    return out + "]";
  }

  Shape shape_;
  std::vector<std::string> cells_;
  bool summarize_;
};

} // namespace

std::string shortest_float(double v, DType d) {
  if (!std::isfinite(v)) return float_repr(v);
  // the short digits read as a double print (as a double) with exactly those digits
  return float_repr(std::strtod(shortest_sci(v, d).c_str(), nullptr));
}

std::string format_array(const EvalResult& r) {
  int64_t total = 1;
  for (int64_t d : r.shape) total *= d;
  if (total == 0) return "[]";
  if (r.shape.empty()) {  // a 0-d tensor prints as its scalar
    if (r.dtype.is_float()) return shortest_float(r.floats.at(0), r.dtype);
    if (r.dtype.is_bool()) return r.ints.at(0) ? "True" : "False";
    if (r.dtype == dtypes::uint64) return std::to_string(static_cast<uint64_t>(r.ints.at(0)));
    return std::to_string(r.ints.at(0));
  }
  bool summarize = total > kThreshold;
  // the row-major flat indices of the elements that will be shown
  std::vector<int64_t> flat;
  {
    std::vector<std::vector<int64_t>> per_axis;
    for (size_t a = 0; a < r.shape.size(); a++) {
      std::vector<int64_t> idx;
      bool cut = summarize && r.shape[a] > 2 * kEdgeItems;
      for (int64_t i = 0; i < r.shape[a]; i++)
        if (!cut || i < kEdgeItems || i >= r.shape[a] - kEdgeItems) idx.push_back(i);
      per_axis.push_back(idx);
    }
    std::vector<size_t> at(r.shape.size(), 0);
    bool empty = false;
    for (const auto& v : per_axis) empty = empty || v.empty();
    while (!empty) {
      int64_t f = 0;
      for (size_t a = 0; a < r.shape.size(); a++) f = f * r.shape[a] + per_axis[a][at[a]];
      flat.push_back(f);
      size_t a = r.shape.size();
      while (a > 0 && ++at[a - 1] == per_axis[a - 1].size()) at[--a] = 0;
      if (a == 0) break;
    }
  }
  std::vector<std::string> cells;
  if (r.dtype.is_float()) {
    std::vector<double> vals;
    for (int64_t f : flat) vals.push_back(r.floats[size_t(f)]);
    cells = format_floats(vals, r.dtype);
  } else {
    for (int64_t f : flat) {
      int64_t v = r.ints[size_t(f)];
      if (r.dtype.is_bool()) cells.push_back(v ? "True" : "False");
      else if (r.dtype == dtypes::uint64) cells.push_back(std::to_string(static_cast<uint64_t>(v)));
      else cells.push_back(std::to_string(v));
    }
    size_t width = 0;
    for (const std::string& s : cells) width = std::max(width, s.size());
    for (std::string& s : cells) s = std::string(width - s.size(), ' ') + s;
  }
  return Printer(r.shape, std::move(cells), summarize).run();
}

} // namespace loupe::program
