#include "code/linediff.h"

#include <QHash>

#include <algorithm>

namespace loupe::views {

namespace {

// Linear-space Myers: strip the common ends, find a point on an optimal path by running the
// forward and backward searches until they meet (the "middle snake"), recurse on both halves.
class Differ {
public:
  Differ(std::span<const int> a, std::span<const int> b, int64_t budget) : a_(a), b_(b), budget_(budget) {}

  void diff(int aLo, int aHi, int bLo, int bHi) {
    int prefix = 0;
    while (aLo + prefix < aHi && bLo + prefix < bHi && a_[aLo + prefix] == b_[bLo + prefix]) ++prefix;
    if (prefix) emit(DiffOp::Equal, aLo, bLo, prefix);
    aLo += prefix;
    bLo += prefix;
    int suffix = 0;
    while (aHi - suffix > aLo && bHi - suffix > bLo && a_[aHi - 1 - suffix] == b_[bHi - 1 - suffix]) ++suffix;
    aHi -= suffix;
    bHi -= suffix;
    if (aLo == aHi) {
      if (bHi > bLo) emit(DiffOp::Insert, aLo, bLo, bHi - bLo);
    } else if (bLo == bHi) {
      emit(DiffOp::Delete, aLo, bLo, aHi - aLo);
    } else {
      bisect(aLo, aHi, bLo, bHi);
    }
    if (suffix) emit(DiffOp::Equal, aHi, bHi, suffix);
  }

  std::vector<DiffRun> runs;

private:
  void emit(DiffOp op, int aStart, int bStart, int length) {
    if (!runs.empty() && runs.back().op == op) {
      runs.back().length += length;
      return;
    }
    runs.push_back({op, aStart, bStart, length});
  }

  void bisect(int aLo, int aHi, int bLo, int bHi) {
    const int n = aHi - aLo, m = bHi - bLo;
    auto A = [&](int i) { return a_[aLo + i]; };
    auto B = [&](int i) { return b_[bLo + i]; };
    const int maxD = (n + m + 1) / 2, off = maxD, vlen = 2 * maxD + 2;
    std::vector<int> v1(vlen, -1), v2(vlen, -1); // furthest x per diagonal, forward / backward
    v1[off + 1] = 0;
    v2[off + 1] = 0;
    const int delta = n - m;
    const bool front = (delta % 2) != 0; // odd delta: paths meet while extending forward
    int k1start = 0, k1end = 0, k2start = 0, k2end = 0;
    for (int d = 0; d < maxD; ++d) {
      budget_ -= 4 * d + 4; // the diagonals this round visits, both directions
      if (budget_ < 0) break;
      for (int k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
        const int k1o = off + k1;
        int x1 = (k1 == -d || (k1 != d && v1[k1o - 1] < v1[k1o + 1])) ? v1[k1o + 1] : v1[k1o - 1] + 1;
        int y1 = x1 - k1;
        while (x1 < n && y1 < m && A(x1) == B(y1)) ++x1, ++y1;
        v1[k1o] = x1;
        if (x1 > n) {
          k1end += 2; // ran off the right edge
        } else if (y1 > m) {
          k1start += 2; // ran off the bottom edge
        } else if (front) {
          const int k2o = off + delta - k1;
          if (k2o >= 0 && k2o < vlen && v2[k2o] != -1 && x1 >= n - v2[k2o]) return split(aLo, aHi, bLo, bHi, x1, y1);
        }
      }
      for (int k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
        const int k2o = off + k2;
        int x2 = (k2 == -d || (k2 != d && v2[k2o - 1] < v2[k2o + 1])) ? v2[k2o + 1] : v2[k2o - 1] + 1;
        int y2 = x2 - k2;
        while (x2 < n && y2 < m && A(n - x2 - 1) == B(m - y2 - 1)) ++x2, ++y2;
        v2[k2o] = x2;
        if (x2 > n) {
          k2end += 2;
        } else if (y2 > m) {
          k2start += 2;
        } else if (!front) {
          const int k1o = off + delta - k2;
          if (k1o >= 0 && k1o < vlen && v1[k1o] != -1) {
            const int x1 = v1[k1o], y1 = off + x1 - k1o;
            if (x1 >= n - x2) return split(aLo, aHi, bLo, bHi, x1, y1);
          }
        }
      }
    }
    // Out of budget: replace this part whole, which is still a valid script.
    emit(DiffOp::Delete, aLo, bLo, n);
    emit(DiffOp::Insert, aHi, bLo, m);
  }

  void split(int aLo, int aHi, int bLo, int bHi, int x, int y) {
    if ((x == 0 && y == 0) || (x == aHi - aLo && y == bHi - bLo)) { // no progress: avoid recursing forever
      emit(DiffOp::Delete, aLo, bLo, aHi - aLo);
      emit(DiffOp::Insert, aHi, bLo, bHi - bLo);
      return;
    }
    diff(aLo, aLo + x, bLo, bLo + y);
    diff(aLo + x, aHi, bLo + y, bHi);
  }

  std::span<const int> a_, b_;
  int64_t budget_;
};

QString normalized(const QString& line, LineCompare compare) {
  return compare == LineCompare::IgnoreWhitespace ? line.simplified() : line;
}

// Word tokens for likeness: identifiers with their numeric suffix dropped (generated kernels number
// their variables: acc0/acc12, val3, float4), so lines of the same shape match. Punctuation and
// bare numbers only count for lines that have no identifiers.
QStringList tokens(const QString& s) {
  QStringList words, other;
  for (qsizetype i = 0; i < s.size();) {
    const QChar c = s[i];
    if (c.isSpace()) {
      ++i;
    } else if (c.isLetterOrNumber() || c == u'_') {
      qsizetype j = i;
      while (j < s.size() && (s[j].isLetterOrNumber() || s[j] == u'_')) ++j;
      qsizetype stem = j;
      while (stem > i && s[stem - 1].isDigit()) --stem;
      if (stem > i)
        words << s.mid(i, stem - i);
      else
        other << s.mid(i, j - i);
      i = j;
    } else {
      other << QString(c);
      ++i;
    }
  }
  return words.isEmpty() ? other : words;
}

constexpr double kPairThreshold = 0.5;
constexpr size_t kMaxPairCells = 250000; // deletions x insertions; beyond this pair by position

// A line's tokens as sorted ids, so the likeness of two lines is one merge of two short arrays.
class TokenBags {
public:
  std::vector<int> bag(const QString& line) {
    std::vector<int> ids;
    for (const QString& t : tokens(line)) {
      auto it = ids_.constFind(t);
      if (it == ids_.constEnd()) it = ids_.insert(t, int(ids_.size()));
      ids.push_back(*it);
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }

private:
  QHash<QString, int> ids_;
};

double bagSimilarity(const std::vector<int>& a, const std::vector<int>& b) {
  if (a.empty() && b.empty()) return 1.0;
  size_t i = 0, j = 0, common = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j])
      ++common, ++i, ++j;
    else if (a[i] < b[j])
      ++i;
    else
      ++j;
  }
  return 2.0 * double(common) / double(a.size() + b.size());
}

// Pairs alike lines of one block of deletions and insertions, keeping order on both sides.
void alignBlock(const QStringList& left, const QStringList& right, const std::vector<int>& dels,
                const std::vector<int>& ins, LineAlignment& out) {
  const size_t r = dels.size(), a = ins.size();
  auto push = [&](int l, int rr, LineChange c) {
    out.rows.push_back({l, rr, c});
    switch (c) {
    case LineChange::Changed:
      ++out.changed;
      break;
    case LineChange::Removed:
      ++out.removed;
      break;
    case LineChange::Added:
      ++out.added;
      break;
    case LineChange::Unchanged:
      ++out.unchanged;
      break;
    }
  };
  TokenBags bags;
  std::vector<std::vector<int>> lb(r), rb(a);
  if (r && a) {
    for (size_t i = 0; i < r; ++i) lb[i] = bags.bag(left[dels[i]]);
    for (size_t j = 0; j < a; ++j) rb[j] = bags.bag(right[ins[j]]);
  }
  if (r == 0 || a == 0 || r * a > kMaxPairCells) {
    // Too big to search: pair by position where the lines are alike, keeping order.
    const size_t paired = std::min(r, a);
    for (size_t i = 0; i < paired; ++i) {
      if (bagSimilarity(lb[i], rb[i]) >= kPairThreshold) {
        push(dels[i], ins[i], LineChange::Changed);
      } else {
        push(dels[i], -1, LineChange::Removed);
        push(-1, ins[i], LineChange::Added);
      }
    }
    for (size_t i = paired; i < r; ++i) push(dels[i], -1, LineChange::Removed);
    for (size_t j = paired; j < a; ++j) push(-1, ins[j], LineChange::Added);
    return;
  }
  std::vector<double> sim(r * a);
  for (size_t i = 0; i < r; ++i)
    for (size_t j = 0; j < a; ++j) sim[i * a + j] = bagSimilarity(lb[i], rb[j]);
  // best[i][j]: most similarity achievable pairing dels[i..] with ins[j..] in order.
  std::vector<double> best((r + 1) * (a + 1), 0.0);
  auto at = [&](size_t i, size_t j) -> double& { return best[i * (a + 1) + j]; };
  for (size_t i = r; i-- > 0;) {
    for (size_t j = a; j-- > 0;) {
      double v = std::max(at(i + 1, j), at(i, j + 1));
      if (sim[i * a + j] >= kPairThreshold) v = std::max(v, sim[i * a + j] + at(i + 1, j + 1));
      at(i, j) = v;
    }
  }
  size_t i = 0, j = 0;
  while (i < r && j < a) {
    const double s = sim[i * a + j];
    if (s >= kPairThreshold && at(i, j) == s + at(i + 1, j + 1)) {
      push(dels[i++], ins[j++], LineChange::Changed);
    } else if (at(i, j) == at(i + 1, j)) {
      push(dels[i++], -1, LineChange::Removed);
    } else {
      push(-1, ins[j++], LineChange::Added);
    }
  }
  for (; i < r; ++i) push(dels[i], -1, LineChange::Removed);
  for (; j < a; ++j) push(-1, ins[j], LineChange::Added);
}

} // namespace

std::vector<DiffRun> myersDiff(std::span<const int> a, std::span<const int> b, int64_t budget) {
  Differ d(a, b, budget);
  d.diff(0, int(a.size()), 0, int(b.size()));
  return std::move(d.runs);
}

double lineSimilarity(const QString& a, const QString& b) {
  TokenBags bags;
  return bagSimilarity(bags.bag(a), bags.bag(b));
}

LineAlignment alignLines(const QStringList& left, const QStringList& right, LineCompare compare) {
  QHash<QString, int> ids;
  auto intern = [&](const QStringList& lines) {
    std::vector<int> out;
    out.reserve(lines.size());
    for (const QString& l : lines) {
      const QString key = normalized(l, compare);
      auto it = ids.constFind(key);
      if (it == ids.constEnd()) it = ids.insert(key, int(ids.size()));
      out.push_back(*it);
    }
    return out;
  };
  const std::vector<int> a = intern(left), b = intern(right);
  const std::vector<DiffRun> runs = myersDiff(a, b);

  LineAlignment out;
  out.rows.reserve(std::max(left.size(), right.size()));
  std::vector<int> dels, ins;
  auto flush = [&] {
    if (dels.empty() && ins.empty()) return;
    alignBlock(left, right, dels, ins, out);
    dels.clear();
    ins.clear();
  };
  for (const DiffRun& run : runs) {
    switch (run.op) {
    case DiffOp::Equal:
      flush();
      for (int k = 0; k < run.length; ++k) out.rows.push_back({run.aStart + k, run.bStart + k, LineChange::Unchanged});
      out.unchanged += run.length;
      break;
    case DiffOp::Delete:
      for (int k = 0; k < run.length; ++k) dels.push_back(run.aStart + k);
      break;
    case DiffOp::Insert:
      for (int k = 0; k < run.length; ++k) ins.push_back(run.bStart + k);
      break;
    }
  }
  flush();
  return out;
}

ChangedSpans changedSpans(const QString& left, const QString& right) {
  constexpr qsizetype kMaxChars = 4000; // very long lines: mark them whole instead of diffing chars
  ChangedSpans out;
  if (left.size() > kMaxChars || right.size() > kMaxChars) {
    if (!left.isEmpty()) out.left.append({0, int(left.size())});
    if (!right.isEmpty()) out.right.append({0, int(right.size())});
    return out;
  }
  std::vector<int> a(left.size()), b(right.size());
  for (qsizetype i = 0; i < left.size(); ++i) a[i] = left[i].unicode();
  for (qsizetype i = 0; i < right.size(); ++i) b[i] = right[i].unicode();
  // Equal runs shorter than this between two changes are absorbed, so marks read as words, not confetti.
  constexpr int kMinKeep = 3;
  auto add = [](QList<QPair<int, int>>& spans, int start, int end) {
    if (!spans.isEmpty() && start - spans.back().second < kMinKeep)
      spans.back().second = end;
    else
      spans.append({start, end});
  };
  for (const DiffRun& run : myersDiff(a, b)) {
    if (run.op == DiffOp::Delete) add(out.left, run.aStart, run.aStart + run.length);
    if (run.op == DiffOp::Insert) add(out.right, run.bStart, run.bStart + run.length);
  }
  // Widen marks to whole words: "64" -> "16" reads as one replaced number, not "4" -> "1".
  auto widen = [](const QString& text, QList<QPair<int, int>>& spans) {
    auto word = [&](int i) { return i >= 0 && i < text.size() && (text[i].isLetterOrNumber() || text[i] == u'_'); };
    QList<QPair<int, int>> out;
    for (auto [b, e] : spans) {
      while (word(b - 1) && word(b)) --b;
      while (word(e - 1) && word(e)) ++e;
      if (!out.isEmpty() && b <= out.back().second)
        out.back().second = std::max(out.back().second, e);
      else
        out.append({b, e});
    }
    spans = out;
  };
  widen(left, out.left);
  widen(right, out.right);
  return out;
}

} // namespace loupe::views
