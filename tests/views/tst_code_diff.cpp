// The Compare panel's line alignment: Myers edit scripts checked against an LCS table on random
// inputs, and the rows built from them (order, coverage, pairing of changed lines).
#include <QRandomGenerator>
#include <QtTest>

#include "code/linediff.h"

using namespace loupe::views;

Q_DECLARE_METATYPE(std::vector<AlignedRow>)
using Spans = QList<QPair<int, int>>;

namespace {

std::vector<int> ints(const QString& s) {
  std::vector<int> out;
  for (QChar c : s) out.push_back(c.unicode());
  return out;
}

int lcsLength(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Replays the script: every index of a and b is consumed once, in order, and Equal runs match.
QString checkScript(const std::vector<int>& a, const std::vector<int>& b, const std::vector<DiffRun>& runs,
                    int* edits) {
  int i = 0, j = 0;
  *edits = 0;
  for (size_t r = 0; r < runs.size(); ++r) {
    const DiffRun& run = runs[r];
    if (run.length <= 0) return QStringLiteral("empty run %1").arg(r);
    if (r > 0 && runs[r - 1].op == run.op) return QStringLiteral("adjacent runs share an op at %1").arg(r);
    if (run.op != DiffOp::Insert && run.aStart != i)
      return QStringLiteral("run %1 starts at a[%2], expected %3").arg(r).arg(run.aStart).arg(i);
    if (run.op != DiffOp::Delete && run.bStart != j)
      return QStringLiteral("run %1 starts at b[%2], expected %3").arg(r).arg(run.bStart).arg(j);
    switch (run.op) {
    case DiffOp::Equal:
      for (int k = 0; k < run.length; ++k)
        if (a[i + k] != b[j + k]) return QStringLiteral("equal run %1 differs at +%2").arg(r).arg(k);
      i += run.length;
      j += run.length;
      break;
    case DiffOp::Delete:
      i += run.length;
      *edits += run.length;
      break;
    case DiffOp::Insert:
      j += run.length;
      *edits += run.length;
      break;
    }
  }
  if (i != int(a.size()) || j != int(b.size())) return QStringLiteral("script ends at (%1,%2)").arg(i).arg(j);
  return {};
}

QStringList lines(const char* text) { return QString::fromUtf8(text).split(u'\n'); }

} // namespace

class TestCodeDiff : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void scripts_data() {
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<int>("edits");
    QTest::newRow("both empty") << ""
                                << "" << 0;
    QTest::newRow("insert all") << ""
                                << "abc" << 3;
    QTest::newRow("delete all") << "abc"
                                << "" << 3;
    QTest::newRow("same") << "abcdef"
                          << "abcdef" << 0;
    QTest::newRow("one substitution") << "abc"
                                      << "axc" << 2;
    QTest::newRow("myers paper") << "abcabba"
                                 << "cbabac" << 5;
    QTest::newRow("disjoint") << "abcd"
                              << "wxyz" << 8;
    QTest::newRow("prefix and suffix") << "xxabyy"
                                       << "xxbayy" << 2;
    QTest::newRow("insert middle") << "ace"
                                   << "abcde" << 2;
    QTest::newRow("odd delta") << "abcde"
                               << "bxd" << 4;
    QTest::newRow("repeated") << "aaaaab"
                              << "baaaaa" << 2;
  }
  void scripts() {
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(int, edits);
    const auto va = ints(a), vb = ints(b);
    int got = 0;
    const QString problem = checkScript(va, vb, myersDiff(va, vb), &got);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QCOMPARE(got, edits);
    QCOMPARE(got, int(va.size() + vb.size()) - 2 * lcsLength(va, vb));
  }

  // Differential: the script must be valid and as short as the LCS bound, over many random pairs
  // (small alphabets make long common runs and many ties; large ones make mostly-different texts).
  void randomScriptsAreShortest() {
    QRandomGenerator rng(20261122);
    for (int iter = 0; iter < 3000; ++iter) {
      const int alphabet = 2 + int(rng.bounded(8)) * (iter % 3 == 0 ? 4 : 1);
      auto make = [&](int n) {
        std::vector<int> v(n);
        for (int& x : v) x = int(rng.bounded(alphabet));
        return v;
      };
      std::vector<int> a = make(int(rng.bounded(60))), b;
      if (iter % 2) { // b as a mutation of a: realistic for optimized vs unoptimized kernels
        b = a;
        const int edits = int(rng.bounded(8));
        for (int e = 0; e < edits; ++e) {
          const int pos = b.empty() ? 0 : int(rng.bounded(int(b.size()) + 1));
          if (rng.bounded(2) && pos < int(b.size()))
            b.erase(b.begin() + pos);
          else
            b.insert(b.begin() + pos, int(rng.bounded(alphabet)));
        }
      } else {
        b = make(int(rng.bounded(60)));
      }
      int edits = 0;
      const QString problem = checkScript(a, b, myersDiff(a, b), &edits);
      QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("iteration %1: %2").arg(iter).arg(problem)));
      QCOMPARE(edits, int(a.size() + b.size()) - 2 * lcsLength(a, b));
    }
  }

  void largeDissimilarInput() {
    std::vector<int> a(3000), b(3000);
    for (int i = 0; i < 3000; ++i) a[i] = i, b[i] = i + 100000;
    int edits = 0;
    QVERIFY(checkScript(a, b, myersDiff(a, b), &edits).isEmpty());
    QCOMPARE(edits, 6000);
  }

  // Out of budget the script stays valid, just longer; common ends still match at no cost.
  void budget() {
    QRandomGenerator rng(17);
    std::vector<int> a(400), b(400);
    for (int& x : a) x = int(rng.bounded(5));
    for (int& x : b) x = int(rng.bounded(5));
    std::vector<int> pa = {9, 9, 9}, pb = {9, 9, 9};
    pa.insert(pa.end(), a.begin(), a.end());
    pb.insert(pb.end(), b.begin(), b.end());
    pa.push_back(8);
    pb.push_back(8);
    int edits = 0;
    const auto runs = myersDiff(pa, pb, 100);
    QVERIFY(checkScript(pa, pb, runs, &edits).isEmpty());
    QVERIFY(edits >= int(pa.size() + pb.size()) - 2 * lcsLength(pa, pb));
    QCOMPARE(runs.front(), (DiffRun{DiffOp::Equal, 0, 0, 3}));
    QCOMPARE(runs.back().op, DiffOp::Equal);
    int full = 0;
    QVERIFY(checkScript(pa, pb, myersDiff(pa, pb), &full).isEmpty());
    QCOMPARE(full, int(pa.size() + pb.size()) - 2 * lcsLength(pa, pb));
    QVERIFY(full < edits);
  }

  void alignment_data() {
    QTest::addColumn<QStringList>("left");
    QTest::addColumn<QStringList>("right");
    QTest::addColumn<std::vector<AlignedRow>>("rows");
    using C = LineChange;
    QTest::newRow("identical") << lines("a\nb") << lines("a\nb")
                               << std::vector<AlignedRow>{{0, 0, C::Unchanged}, {1, 1, C::Unchanged}};
    QTest::newRow("added line") << lines("int x;\nreturn;") << lines("int x;\nx++;\nreturn;")
                                << std::vector<AlignedRow>{
                                       {0, 0, C::Unchanged}, {-1, 1, C::Added}, {1, 2, C::Unchanged}};
    QTest::newRow("removed line") << lines("a;\nfoo(1);\nb;") << lines("a;\nb;")
                                  << std::vector<AlignedRow>{
                                         {0, 0, C::Unchanged}, {1, -1, C::Removed}, {2, 1, C::Unchanged}};
    QTest::newRow("changed line") << lines("{\n  acc0 = acc0 + val0;\n}") << lines("{\n  acc0 = acc0 + val1;\n}")
                                  << std::vector<AlignedRow>{
                                         {0, 0, C::Unchanged}, {1, 1, C::Changed}, {2, 2, C::Unchanged}};
    QTest::newRow("indentation ignored") << lines("  for (;;) {\nx;") << lines("for (;;)   {\n  x;")
                                         << std::vector<AlignedRow>{{0, 0, C::Unchanged}, {1, 1, C::Unchanged}};
    // The unlike line is not paired with the like one below it: order is kept, pairs follow similarity.
    QTest::newRow("pair by likeness") << lines("begin\nfloat val0 = data1[alu0];\nend")
                                      << lines("begin\n#pragma unroll\nfloat4 val0 = data1[alu0];\nend")
                                      << std::vector<AlignedRow>{{0, 0, C::Unchanged},
                                                                 {-1, 1, C::Added},
                                                                 {1, 2, C::Changed},
                                                                 {2, 3, C::Unchanged}};
    QTest::newRow("unlike block") << lines("x\nfoo(a, b);\ny") << lines("x\nwhile (k < 3) k++;\ny")
                                  << std::vector<AlignedRow>{{0, 0, C::Unchanged},
                                                             {1, -1, C::Removed},
                                                             {-1, 1, C::Added},
                                                             {2, 2, C::Unchanged}};
  }
  void alignment() {
    QFETCH(QStringList, left);
    QFETCH(QStringList, right);
    QFETCH(std::vector<AlignedRow>, rows);
    const LineAlignment got = alignLines(left, right);
    QCOMPARE(got.rows.size(), rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      QVERIFY2(got.rows[i] == rows[i], qPrintable(QStringLiteral("row %1: got (%2,%3,%4)")
                                                      .arg(i)
                                                      .arg(got.rows[i].left)
                                                      .arg(got.rows[i].right)
                                                      .arg(int(got.rows[i].change))));
    }
  }

  void exactCompareSeesWhitespace() {
    const LineAlignment got = alignLines(lines("  x;"), lines("x;"), LineCompare::Exact);
    QCOMPARE(got.unchanged, 0);
    QCOMPARE(got.changed, 1);
  }

  // Random texts: rows list every line of each side once, in order; Unchanged rows really are equal;
  // the counts add up; and the number of unchanged rows is the LCS of the normalized lines.
  void randomAlignmentInvariants() {
    QRandomGenerator rng(7);
    const QStringList pool = {"int a = 0;",
                              "a += 1;",
                              "  a += 1;",
                              "float v = x[i];",
                              "float4 v = x[i];",
                              "}",
                              "for (int i = 0; i < n; i++) {",
                              "acc = acc + v;",
                              "",
                              "return;"};
    for (int iter = 0; iter < 500; ++iter) {
      QStringList left, right;
      for (int n = int(rng.bounded(30)); n > 0; --n) left << pool[rng.bounded(int(pool.size()))];
      for (int n = int(rng.bounded(30)); n > 0; --n) right << pool[rng.bounded(int(pool.size()))];
      const LineAlignment al = alignLines(left, right);
      int nextL = 0, nextR = 0, unchanged = 0, changed = 0, removed = 0, added = 0;
      for (const AlignedRow& row : al.rows) {
        QVERIFY(row.left >= 0 || row.right >= 0);
        if (row.left >= 0) QCOMPARE(row.left, nextL++);
        if (row.right >= 0) QCOMPARE(row.right, nextR++);
        switch (row.change) {
        case LineChange::Unchanged:
          ++unchanged;
          QCOMPARE(left[row.left].simplified(), right[row.right].simplified());
          break;
        case LineChange::Changed:
          ++changed;
          QVERIFY(row.left >= 0 && row.right >= 0);
          break;
        case LineChange::Removed:
          ++removed;
          QCOMPARE(row.right, -1);
          break;
        case LineChange::Added:
          ++added;
          QCOMPARE(row.left, -1);
          break;
        }
      }
      QCOMPARE(nextL, int(left.size()));
      QCOMPARE(nextR, int(right.size()));
      QCOMPARE(al.unchanged, unchanged);
      QCOMPARE(al.changed, changed);
      QCOMPARE(al.removed, removed);
      QCOMPARE(al.added, added);
      std::vector<int> a, b;
      QHash<QString, int> ids;
      auto id = [&](const QString& l) {
        if (!ids.contains(l.simplified())) ids.insert(l.simplified(), int(ids.size()));
        return ids.value(l.simplified());
      };
      for (const QString& l : left) a.push_back(id(l));
      for (const QString& l : right) b.push_back(id(l));
      QCOMPARE(unchanged, lcsLength(a, b));
    }
  }

  // A block too big to search pairs by position, and only lines that are alike.
  void largeBlockPairsByPosition() {
    QStringList left{"begin"}, right{"begin"};
    for (int i = 0; i < 600; ++i) {
      left << QString("acc%1 = acc%1 + val%1;").arg(i);
      right << (i % 2 ? QString("acc%1 = acc%1 + val%2;").arg(i).arg(i + 1) : QString("while (k%1) {}").arg(i));
    }
    left << "end";
    right << "end";
    const LineAlignment al = alignLines(left, right);
    QCOMPARE(al.unchanged, 2);
    QCOMPARE(al.changed, 300);
    QCOMPARE(al.removed, 300);
    QCOMPARE(al.added, 300);
    int nextL = 0, nextR = 0;
    for (const AlignedRow& row : al.rows) {
      if (row.left >= 0) QCOMPARE(row.left, nextL++);
      if (row.right >= 0) QCOMPARE(row.right, nextR++);
      if (row.change == LineChange::Changed) QVERIFY(lineSimilarity(left[row.left], right[row.right]) >= 0.5);
    }
    QCOMPARE(nextL, int(left.size()));
    QCOMPARE(nextR, int(right.size()));
  }

  void similarity() {
    QCOMPARE(lineSimilarity("", ""), 1.0);
    QCOMPARE(lineSimilarity("a b", "a b"), 1.0);
    QCOMPARE(lineSimilarity("abc", "xyz"), 0.0);
    QCOMPARE(lineSimilarity("acc0 = acc0;", "acc1 = acc0;"), 1.0); // numbered names share their stem
    // Words count, punctuation does not: float val data gidx ridx / float val global float data alu.
    QCOMPARE(lineSimilarity("float val1 = *(data2+(gidx0+(ridx0<<6)));",
                            "float4 val4 = *((__global float4*)((data2+alu3)));"),
             2.0 * 3 / 11);
    QCOMPARE(lineSimilarity("}", "}"), 1.0); // no words: punctuation decides
    QCOMPARE(lineSimilarity("}", "{"), 0.0);
  }

  void spans_data() {
    QTest::addColumn<QString>("left");
    QTest::addColumn<QString>("right");
    QTest::addColumn<Spans>("leftSpans");
    QTest::addColumn<Spans>("rightSpans");
    QTest::newRow("one word") << "float val0 = x;"
                              << "float4 val0 = x;" << Spans{} << Spans{{0, 6}};
    QTest::newRow("replaced number") << "a[17] = 0;"
                                     << "a[42] = 0;" << Spans{{2, 4}} << Spans{{2, 4}};
    QTest::newRow("partly changed number") << "i < 64;"
                                           << "i < 16;" << Spans{{4, 6}} << Spans{{4, 6}};
    QTest::newRow("operator only") << "a+b"
                                   << "a-b" << Spans{{1, 2}} << Spans{{1, 2}};
    // Two changes with a 1-char equal gap between them merge into one mark.
    QTest::newRow("merged") << "x+A-*B/z"
                            << "x+C-*D/z" << Spans{{2, 6}} << Spans{{2, 6}};
  }
  void spans() {
    QFETCH(QString, left);
    QFETCH(QString, right);
    QFETCH(Spans, leftSpans);
    QFETCH(Spans, rightSpans);
    const ChangedSpans got = changedSpans(left, right);
    QCOMPARE(got.left, leftSpans);
    QCOMPARE(got.right, rightSpans);
  }
};

QTEST_APPLESS_MAIN(TestCodeDiff)
#include "tst_code_diff.moc"
