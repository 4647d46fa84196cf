// Randomized differential tests of ShapeTracker against a brute-force array of offsets, and the
// `loupe-cli shapetracker` contract.
#include <QProcess>
#include <QtTest>

#include <random>

#include "ir/print.h"
#include "shape/shape_json.h"
#include "shape/shapetracker.h"
#include "support/error.h"
#include "tst_shapetracker_support.h"

using namespace loupe;
using loupe::testing::OffsetArray;

namespace {

struct Stats {
  int chains = 0, ops = 0, elements = 0, multi_view = 0, simplified_fewer = 0, max_views = 0;
};

std::string describe(const std::vector<int64_t>& start, const json::Value& ops) {
  return cat("start ", shape_str(start), " ops ", ops.dump());
}

} // namespace

class TestShapeTracker : public QObject {
  Q_OBJECT
private slots:
  void random_chains_data() {
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("chains");
    for (int seed = 1; seed <= 8; seed++) QTest::newRow(qPrintable(QString("seed %1").arg(seed))) << seed << 400;
  }
  // Random chains of 1-12 movement ops on random small shapes. The views' mapping must equal the
  // brute-force mapping on every element; simplify() must not change it; the index/valid
  // expressions (raw and simplified) must evaluate to it; the encoded arg must round-trip.
  void random_chains() {
    QFETCH(int, seed);
    QFETCH(int, chains);
    std::mt19937_64 rng(seed);
    auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    Stats stats;
    for (int c = 0; c < chains; c++) {
      std::vector<int64_t> start;
      int64_t nd = pick(1, 4);
      for (int64_t i = 0; i < nd; i++) start.push_back(pick(1, 4));
      ShapeTracker st = ShapeTracker::from_shape(start);
      OffsetArray truth = OffsetArray::iota(start);
      json::Value ops = json::Value::array();
      int64_t nops = pick(1, 12);
      for (int64_t k = 0; k < nops; k++) {
        json::Value op = loupe::testing::random_op(rng, truth.shape, 1024);
        ops.push_back(op);
        st = apply_json_op(st, op, size_t(k));
        truth = truth.apply(op);
        stats.ops++;
      }
      std::string what = describe(start, ops);
      QVERIFY2(to_ints(st.shape()) == truth.shape, what.c_str());
      std::vector<int64_t> got = st.mapping();
      if (got != truth.data) QFAIL(cat("views mapping differs: ", what, "\n  ", st.str()).c_str());
      ShapeTracker simple = st.simplify();
      if (simple.mapping() != truth.data)
        QFAIL(cat("simplify changed the mapping: ", what, "\n  ", st.str(), "\n  ", simple.str()).c_str());
      QVERIFY2(simple.views().size() <= st.views().size(), what.c_str());
      for (const ShapeTracker* t : {&st, &simple}) {
        for (bool simplified : {false, true}) {
          auto [idx, valid] = t->to_indexed(simplified);
          if (loupe::testing::mapping_from_exprs(*t, idx, valid) != truth.data)
            QFAIL(cat(simplified ? "simplified" : "raw", " index/valid differ: ", what, "\n  ", t->str(), "\n  index ",
                      render_expr(idx), "\n  valid ", render_expr(valid))
                      .c_str());
        }
      }
      QVERIFY2(ShapeTracker::decode(st.encode()) == st, what.c_str());
      // real_size covers every offset read
      int64_t hi = -1;
      for (int64_t o : truth.data) hi = std::max(hi, o);
      if (!truth.data.empty() && hi >= 0) QVERIFY2(st.real_size() > hi, what.c_str());
      stats.chains++;
      stats.elements += int(truth.data.size());
      stats.multi_view += st.views().size() > 1;
      stats.simplified_fewer += simple.views().size() < st.views().size();
      stats.max_views = std::max(stats.max_views, int(st.views().size()));
    }
    qInfo("seed %d: %d chains, %d ops, %d elements checked, %d with several views, %d fewer after simplify, max %d views",
          seed, stats.chains, stats.ops, stats.elements, stats.multi_view, stats.simplified_fewer, stats.max_views);
  }

  // Merging any two stacked views never changes what they read together.
  void random_merges() {
    std::mt19937_64 rng(99);
    int merged = 0, kept = 0;
    for (int c = 0; c < 3000; c++) {
      std::vector<int64_t> start = {std::uniform_int_distribution<int64_t>(1, 6)(rng), std::uniform_int_distribution<int64_t>(1, 6)(rng)};
      ShapeTracker st = ShapeTracker::from_shape(start);
      OffsetArray arr = OffsetArray::iota(start);
      for (int k = 0; k < 6; k++) {
        json::Value op = loupe::testing::random_op(rng, arr.shape, 512);
        st = apply_json_op(st, op, k);
        arr = arr.apply(op);
      }
      if (st.views().size() < 2) continue;
      const View& outer = st.views()[st.views().size() - 2];
      const View& inner = st.views().back();
      std::optional<View> m = outer.merge(inner);
      if (!m) {
        kept++;
        continue;
      }
      merged++;
      std::vector<View> vs(st.views().begin(), st.views().end() - 2);
      vs.push_back(*m);
      QCOMPARE(ShapeTracker(vs).mapping(), arr.data);
    }
    qInfo("random merges: %d merged, %d not mergeable", merged, kept);
    QVERIFY(merged > 100);
  }

  // Growing an axis without a mask (PADTO on a kernel's output axis): the old elements read what they
  // read, every new one reads inside the view below (or the buffer), and an unmasked single view is
  // refused only where some new element would read outside the buffer.
  void extended_axes_read_inside() {
    std::mt19937_64 rng(7);
    auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    int extended = 0, refused = 0;
    for (int c = 0; c < 4000; c++) {
      std::vector<int64_t> start = {pick(1, 6), pick(1, 6)};
      ShapeTracker st = ShapeTracker::from_shape(start);
      const int64_t buffer = start[0] * start[1];
      OffsetArray arr = OffsetArray::iota(start);
      for (int64_t k = pick(0, 5); k > 0; k--) {
        json::Value op = loupe::testing::random_op(rng, arr.shape, 256);
        st = apply_json_op(st, op, 0);
        arr = arr.apply(op);
      }
      if (st.ndim() == 0 || st.size() == 0) continue;
      const size_t axis = static_cast<size_t>(pick(0, static_cast<int64_t>(st.ndim()) - 1));
      const int64_t old = st.shape()[axis].as_int(), grown = old + pick(1, 3);
      std::optional<ShapeTracker> e = st.extended(axis, grown, buffer);
      const View& last = st.views().back();
      const int64_t below = st.views().size() > 1 ? st.views()[st.views().size() - 2].size() : buffer;
      std::vector<int64_t> shape;
      for (const sint& d : st.shape()) shape.push_back(d.as_int());
      shape[axis] = grown;
      // every index of the grown shape, with the last view's raw offset there
      bool some_outside = false;
      std::vector<int64_t> idx(shape.size(), 0);
      for (bool more = true; more;) {
        int64_t raw = last.offset.as_int();
        for (size_t i = 0; i < idx.size(); i++) raw += idx[i] * last.strides[i].as_int();
        some_outside = some_outside || raw < 0 || raw >= below;
        if (e) {
          const int64_t got = e->offset_of(idx);
          if (idx[axis] < old) QCOMPARE(got, st.offset_of(idx));
          else QVERIFY2(got >= -1 && got < buffer && raw >= 0 && raw < below, st.str().c_str());
        }
        more = false;
        for (size_t i = idx.size(); i-- > 0;) {
          if (++idx[i] < shape[i]) {
            more = true;
            break;
          }
          idx[i] = 0;
        }
      }
      if (e) {
        extended++;
        QCOMPARE(e->shape()[axis].as_int(), grown);
      } else {
        refused++;
        if (!last.mask) QVERIFY2(some_outside, cat(st.str(), " axis ", axis, " to ", grown).c_str());
      }
    }
    qInfo("extended axes: %d extended, %d refused", extended, refused);
    QVERIFY(extended > 200 && refused > 200);
  }

  void cli_jsonl() {
    QString cli = qEnvironmentVariable("LOUPE_CLI");
    if (cli.isEmpty()) QSKIP("LOUPE_CLI not set");
    QProcess p;
    p.start(cli, {"shapetracker", "--jsonl"});
    QVERIFY(p.waitForStarted());
    p.write(R"({"id": 1, "start": [2, 3], "ops": [["permute", [1, 0]], ["reshape", [6]]]})" "\n");
    p.write("not json\n");
    p.write(R"({"id": "bad", "start": [2, 3], "ops": [["expand", [4, 3]]]})" "\n");
    p.write("\n");
    p.write(R"({"id": [3], "start": [4], "ops": [["pad", [[1, 1]]]]})" "\n");
    p.closeWriteChannel();
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    QStringList lines = QString::fromUtf8(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 4);
    json::Value a = json::parse(lines[0].toStdString());
    QCOMPARE(a.at("id").as_int(), int64_t(1));
    QCOMPARE(a.at("final_shape").as_ints(), std::vector<int64_t>{6});
    QCOMPARE(a.at("mapping").as_ints(), (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
    QCOMPARE(a.at("views").size(), size_t(2));
    QCOMPARE(a.at("views").as_array()[0].at("strides").as_ints(), (std::vector<int64_t>{1, 3}));
    json::Value b = json::parse(lines[1].toStdString());
    QVERIFY(b.at("id").is_null());
    QVERIFY(b.at("error").as_string().find("JSON") != std::string::npos);
    json::Value c = json::parse(lines[2].toStdString());
    QCOMPARE(c.at("id").as_string(), std::string("bad"));
    QVERIFY(c.at("error").as_string().find("expand: cannot expand (2, 3) to (4, 3)") != std::string::npos);
    json::Value d = json::parse(lines[3].toStdString());
    QCOMPARE(d.at("id"), json::Value::ints({3}));
    QCOMPARE(d.at("mapping").as_ints(), (std::vector<int64_t>{-1, 0, 1, 2, 3, -1}));
    QCOMPARE(d.at("index").as_string(), std::string("(ridx0-1)"));
    QCOMPARE(d.at("views").as_array()[0].at("mask"), json::parse("[[1, 5]]"));
  }

  void cli_single() {
    QString cli = qEnvironmentVariable("LOUPE_CLI");
    if (cli.isEmpty()) QSKIP("LOUPE_CLI not set");
    QProcess p;
    p.start(cli, {"shapetracker", R"({"start": [4, 4], "ops": [["flip", [1]]]})"});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    json::Value a = json::parse(p.readAllStandardOutput().toStdString());
    QCOMPARE(a.at("views").as_array()[0].at("offset").as_int(), int64_t(3));
    QProcess bad;
    bad.start(cli, {"shapetracker", R"({"start": [4, 4], "ops": [["permute", [0]]]})"});
    QVERIFY(bad.waitForFinished(30000));
    QCOMPARE(bad.exitCode(), 1);
    QVERIFY(QString::fromUtf8(bad.readAllStandardError()).contains("permute: (0,) is not a permutation"));
  }
};

QTEST_APPLESS_MAIN(TestShapeTracker)
#include "tst_shapetracker.moc"
