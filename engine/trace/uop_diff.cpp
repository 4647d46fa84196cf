#include "trace/uop_diff.h"

#include <algorithm>

#include "support/error.h"

namespace loupe {

namespace {
std::string short_key(const UOp* u) { return "%" + u->key().hex().substr(0, 6); }
} // namespace

std::vector<std::string> uop_listing(const UOpPtr& root) {
  std::vector<std::string> out;
  for (const UOp* u : root->toposort()) {
    std::string line = short_key(u) + " = " + std::string(op_name(u->op));
    if (!u->dtype.is_void()) line += " " + u->dtype.short_name();
    if (!u->arg.is_none()) line += " " + u->arg.str();
    if (!u->src.empty()) {
      line += " (";
      for (size_t i = 0; i < u->src.size(); i++) line += (i ? ", " : "") + short_key(u->src[i].get());
      line += ")";
    }
    out.push_back(std::move(line));
  }
  return out;
}

std::vector<LineEdit> line_edits(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  // the common head and tail need no table (the inputs usually differ in a few places)
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) pre++;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) suf++;
  const size_t n = a.size() - pre - suf, m = b.size() - pre - suf;
  std::vector<LineEdit> ops;
  for (size_t i = 0; i < pre; i++) ops.push_back({' ', i, i});
  if (double(n + 1) * double(m + 1) <= 16e6) {
    // lcs[i][j]: the longest common subsequence of the middles from a[pre+i] and b[pre+j] on
    std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        lcs[i][j] = a[pre + i] == b[pre + j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[pre + i] == b[pre + j]) {
        ops.push_back({' ', pre + i++, pre + j++});
      } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        ops.push_back({'-', pre + i++, pre + j});
      } else {
        ops.push_back({'+', pre + i, pre + j++});
      }
    }
  } else {
    for (size_t i = 0; i < n; i++) ops.push_back({'-', pre + i, pre});
    for (size_t j = 0; j < m; j++) ops.push_back({'+', pre + n, pre + j});
  }
  for (size_t i = 0; i < suf; i++) ops.push_back({' ', pre + n + i, pre + m + i});
  return ops;
}

std::vector<std::string> unified_diff(const std::vector<std::string>& a, const std::vector<std::string>& b,
                                      int context) {
  const std::vector<LineEdit> ops = line_edits(a, b);
  std::vector<std::string> out;
  size_t k = 0;
  while (k < ops.size()) {
    if (ops[k].kind == ' ') {
      k++;
      continue;
    }
    // A hunk: back up `context` lines, then run until `2*context` unchanged lines in a row.
    size_t start = k >= size_t(context) ? k - size_t(context) : 0;
    while (start < k && ops[start].kind != ' ') start++;
    size_t end = k, run = 0, c = size_t(context);
    bool cut = false;
    while (end < ops.size()) {
      if (ops[end].kind != ' ') {
        run = 0;
      } else if (++run > 2 * c) {
        cut = true;
        break;
      }
      end++;
    }
    size_t trailing = cut ? run - 1 : run;  // unchanged lines at the end of [k, end)
    end -= trailing - std::min(trailing, c);
    size_t a_count = 0, b_count = 0;
    for (size_t i = start; i < end; i++) {
      if (ops[i].kind != '+') a_count++;
      if (ops[i].kind != '-') b_count++;
    }
    out.push_back(cat("@@ -", ops[start].a + 1, ",", a_count, " +", ops[start].b + 1, ",", b_count, " @@"));
    for (size_t i = start; i < end; i++) {
      const LineEdit& o = ops[i];
      out.push_back(std::string(1, o.kind) + (o.kind == '+' ? b[o.b] : a[o.a]));
    }
    k = end;
  }
  return out;
}

} // namespace loupe
