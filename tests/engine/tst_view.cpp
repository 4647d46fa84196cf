// View and ShapeTracker against facts verified with tinygrad v0.10.2 (reference map §7.6 and more):
// canonical creation, each movement op, composition, invert, minify, index/valid, real strides,
// and every kind of bad input.
#include <QtTest>

#include "ir/print.h"
#include "shape/shape_json.h"
#include "shape/shapetracker.h"
#include "support/error.h"
#include "support/json.h"
#include "tst_shapetracker_support.h"

using namespace loupe;
using loupe::testing::OffsetArray;

namespace {

// [shape, strides or null, offset, mask or null] -> View::create
View mkview(const json::Value& j) {
  const json::Array& a = j.as_array();
  std::optional<sints> strides;
  if (!a[1].is_null()) strides = to_sints(a[1].as_ints());
  std::optional<Ranges> mask;
  if (a.size() > 3 && !a[3].is_null()) mask = ranges_from_json(a[3], "mask");
  return View::create(to_sints(a[0].as_ints()), strides, a.size() > 2 ? sint(a[2].as_int()) : sint(0), mask);
}
View mkview(const char* text) { return mkview(json::parse(text)); }

ShapeTracker run_ops(const json::Value& start, const json::Value& ops) {
  ShapeTracker st = ShapeTracker::from_shape(start.as_ints());
  for (size_t k = 0; k < ops.size(); k++) st = apply_json_op(st, ops.as_array()[k], k);
  return st;
}

std::string strides_str(const std::vector<std::optional<sint>>& rs) {
  std::string s = "(";
  for (size_t i = 0; i < rs.size(); i++) s += (i ? ", " : "") + (rs[i] ? rs[i]->str() : std::string("None"));
  if (rs.size() == 1) s += ",";
  return s + ")";
}

std::string views_str(const ShapeTracker& st) { return st.str(); }

} // namespace

class TestView : public QObject {
  Q_OBJECT
private slots:
  void create_data() {
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("want");
    QTest::newRow("row-major, size-1 stride 0") << "[[2,1,3],null,0]"
                                                << "View(shape=(2, 1, 3), strides=(3, 0, 1), offset=0, mask=None, contiguous=True)";
    QTest::newRow("zero dim empties everything") << "[[2,0,3],[5,5,5],7,[[0,1],[0,0],[0,3]]]"
                                                 << "View(shape=(2, 0, 3), strides=(0, 0, 0), offset=0, mask=None, contiguous=True)";
    QTest::newRow("full mask dropped") << "[[4,4],[4,1],0,[[0,4],[0,4]]]"
                                       << "View(shape=(4, 4), strides=(4, 1), offset=0, mask=None, contiguous=True)";
    QTest::newRow("one-index mask folds into offset") << "[[4,4],[4,1],0,[[1,2],[0,4]]]"
                                                      << "View(shape=(4, 4), strides=(0, 1), offset=4, mask=((1, 2), (0, 4)), contiguous=False)";
    QTest::newRow("empty mask canonical") << "[[4,4],[4,1],3,[[1,3],[2,2]]]"
                                          << "View(shape=(4, 4), strides=(0, 0), offset=0, mask=((0, 0), (0, 0)), contiguous=False)";
    QTest::newRow("permuted strides") << "[[4,4],[1,4],0]"
                                      << "View(shape=(4, 4), strides=(1, 4), offset=0, mask=None, contiguous=False)";
    QTest::newRow("offset breaks contiguity") << "[[4,4],[4,1],1]"
                                              << "View(shape=(4, 4), strides=(4, 1), offset=1, mask=None, contiguous=False)";
    QTest::newRow("scalar") << "[[],null,0]" << "View(shape=(), strides=(), offset=0, mask=None, contiguous=True)";
    QTest::newRow("1-d one index") << "[[3],[1],0,[[1,2]]]"
                                   << "View(shape=(3,), strides=(0,), offset=1, mask=((1, 2),), contiguous=False)";
  }
  void create() {
    QFETCH(QString, view);
    QFETCH(QString, want);
    QCOMPARE(QString::fromStdString(mkview(view.toUtf8().constData()).str()), want);
  }

  // Reference map §7.6: views, real strides, and index/valid checked by evaluation.
  void verified_examples_data() {
    QTest::addColumn<QString>("start");
    QTest::addColumn<QString>("ops");
    QTest::addColumn<QString>("views");
    QTest::addColumn<QString>("real_strides");
    QTest::newRow("permute") << "[4,4]" << R"([["permute",[1,0]]])"
                             << "ShapeTracker(views=(View(shape=(4, 4), strides=(1, 4), offset=0, mask=None, contiguous=False),))" << "(1, 4)";
    QTest::newRow("permute+reshape merges") << "[2,3,4]" << R"([["permute",[2,0,1]],["reshape",[4,6]]])"
                                            << "ShapeTracker(views=(View(shape=(4, 6), strides=(1, 4), offset=0, mask=None, contiguous=False),))" << "(1, 4)";
    QTest::newRow("permute+flatten needs 2 views") << "[2,3,4]" << R"([["permute",[2,0,1]],["reshape",[24]]])"
                                                   << "ShapeTracker(views=(View(shape=(4, 2, 3), strides=(1, 12, 4), offset=0, mask=None, contiguous=False), "
                                                      "View(shape=(24,), strides=(1,), offset=0, mask=None, contiguous=True)))" << "(None,)";
    QTest::newRow("pad") << "[4]" << R"([["pad",[[1,1]]]])"
                         << "ShapeTracker(views=(View(shape=(6,), strides=(1,), offset=-1, mask=((1, 5),), contiguous=False),))" << "(None,)";
    QTest::newRow("expand") << "[1,4]" << R"([["expand",[3,4]]])"
                            << "ShapeTracker(views=(View(shape=(3, 4), strides=(0, 1), offset=0, mask=None, contiguous=False),))" << "(0, 1)";
    QTest::newRow("shrink") << "[8,8]" << R"([["shrink",[[2,6],[1,5]]]])"
                            << "ShapeTracker(views=(View(shape=(4, 4), strides=(8, 1), offset=17, mask=None, contiguous=False),))" << "(8, 1)";
    QTest::newRow("flip") << "[4,4]" << R"([["flip",[1]]])"
                          << "ShapeTracker(views=(View(shape=(4, 4), strides=(4, -1), offset=3, mask=None, contiguous=False),))" << "(4, -1)";
    QTest::newRow("mask-aware reshape") << "[4,1]" << R"([["pad",[[0,0],[0,3]]],["reshape",[2,2,4]]])"
                                        << "ShapeTracker(views=(View(shape=(2, 2, 4), strides=(2, 1, 0), offset=0, mask=((0, 2), (0, 2), (0, 1)), contiguous=False),))"
                                        << "(2, 1, None)";
    QTest::newRow("mask straddles a row") << "[6]" << R"([["pad",[[0,2]]],["reshape",[2,4]]])"
                                          << "ShapeTracker(views=(View(shape=(8,), strides=(1,), offset=0, mask=((0, 6),), contiguous=False), "
                                             "View(shape=(2, 4), strides=(4, 1), offset=0, mask=None, contiguous=True)))" << "(None, None)";
    QTest::newRow("pad then flatten") << "[2,3]" << R"([["pad",[[0,0],[1,1]]],["reshape",[10]]])"
                                      << "ShapeTracker(views=(View(shape=(2, 5), strides=(3, 1), offset=-1, mask=((0, 2), (1, 4)), contiguous=False), "
                                         "View(shape=(10,), strides=(1,), offset=0, mask=None, contiguous=True)))" << "(None,)";
    QTest::newRow("t[::2]") << "[10]" << R"([["reshape",[5,2]],["shrink",[[0,5],[0,1]]],["reshape",[5]]])"
                            << "ShapeTracker(views=(View(shape=(5,), strides=(2,), offset=0, mask=None, contiguous=False),))" << "(2,)";
  }
  void verified_examples() {
    QFETCH(QString, start);
    QFETCH(QString, ops);
    QFETCH(QString, views);
    QFETCH(QString, real_strides);
    json::Value s = json::parse(start.toStdString()), o = json::parse(ops.toStdString());
    ShapeTracker st = run_ops(s, o);
    QCOMPARE(QString::fromStdString(views_str(st)), views);
    QCOMPARE(QString::fromStdString(strides_str(st.real_strides())), real_strides);
    OffsetArray truth = OffsetArray::iota(s.as_ints());
    for (const json::Value& op : o.as_array()) truth = truth.apply(op);
    QCOMPARE(st.mapping(), truth.data);
    for (bool simplified : {false, true}) {
      auto [idx, valid] = st.to_indexed(simplified);
      QCOMPARE(loupe::testing::mapping_from_exprs(st, idx, valid), truth.data);
    }
  }

  void index_rendering() {
    // Raw index/valid have tinygrad's structure: offset last, masks as (not (i<b)) and (i<e).
    ShapeTracker pad = ShapeTracker::from_shape(std::vector<int64_t>{4}).pad({{1, 1}});
    auto [idx, valid] = pad.to_indexed(false);
    QCOMPARE(render_expr(idx), std::string("(ridx0-1)"));
    QCOMPARE(render_expr(valid), std::string("((not (ridx0<1)) and (ridx0<5))"));
    ShapeTracker sh = ShapeTracker::from_shape(std::vector<int64_t>{8, 8}).shrink({{2, 6}, {1, 5}});
    QCOMPARE(render_expr(sh.to_indexed(false).first), std::string("(((ridx0*8)+ridx1)+17)"));
    QCOMPARE(render_expr(sh.to_indexed(false).second), std::string("True"));
    ShapeTracker ex = ShapeTracker::from_shape(std::vector<int64_t>{1, 4}).expand({3, 4});
    QCOMPARE(render_expr(ex.to_indexed(false).first), std::string("ridx1"));
    // Two views: the earlier view reads the flat position unravelled into its (minified) shape.
    ShapeTracker two = ShapeTracker::from_shape(std::vector<int64_t>{2, 3, 4}).permute({2, 0, 1}).reshape({24});
    QCOMPARE(render_expr(two.to_indexed(false).first), std::string("(((ridx0//6)%4)+((ridx0%6)*4))"));
  }

  void merge_data() {
    QTest::addColumn<QString>("outer");
    QTest::addColumn<QString>("inner");
    QTest::addColumn<QString>("want");
    QTest::newRow("contiguous outer") << "[[16],null,0]" << "[[4,4],[1,4],0]"
                                      << "View(shape=(4, 4), strides=(1, 4), offset=0, mask=None, contiguous=False)";
    QTest::newRow("reshape of contiguous inner") << "[[4,4],[4,1],0]" << "[[2,8],null,0]"
                                                 << "View(shape=(2, 8), strides=(8, 1), offset=0, mask=None, contiguous=True)";
    QTest::newRow("permuted flat read: none") << "[[4,4],[1,4],0]" << "[[16],null,0]" << "None";
    QTest::newRow("split rows") << "[[4,4],[1,4],0]" << "[[2,2,4],[8,4,1],0]"
                                << "View(shape=(2, 2, 4), strides=(2, 1, 4), offset=0, mask=None, contiguous=False)";
    QTest::newRow("strided window") << "[[4,4],[1,4],0]" << "[[2,2],[8,1],2]"
                                    << "View(shape=(2, 2), strides=(2, 4), offset=8, mask=None, contiguous=False)";
    QTest::newRow("outer mask projected") << "[[6],[1],-1,[[1,5]]]" << "[[3],[2],0]"
                                          << "View(shape=(3,), strides=(2,), offset=-1, mask=((1, 3),), contiguous=False)";
    QTest::newRow("outer mask projected, shifted") << "[[6],[1],-1,[[1,5]]]" << "[[3],[2],1]"
                                                   << "View(shape=(3,), strides=(2,), offset=0, mask=((0, 2),), contiguous=False)";
    QTest::newRow("mask across rows: none") << "[[2,5],[3,1],-1,[[0,2],[1,4]]]" << "[[10],null,0]" << "None";
    QTest::newRow("merge dims to reshape") << "[[4,2,3],[1,12,4],0]" << "[[4,6],[6,1],0]"
                                           << "View(shape=(4, 6), strides=(1, 4), offset=0, mask=None, contiguous=False)";
    QTest::newRow("undo permutation") << "[[4,2,3],[1,12,4],0]" << "[[6,4],[1,6],0]"
                                      << "View(shape=(6, 4), strides=(4, 1), offset=0, mask=None, contiguous=True)";
    QTest::newRow("masked flat, rows: none") << "[[8],[1],0,[[0,6]]]" << "[[2,4],null,0]" << "None";
    QTest::newRow("masked flat, narrow rows: none") << "[[8],[1],0,[[0,6]]]" << "[[2,3],[4,1],0]" << "None";
    QTest::newRow("flip+pad read with stride 3") << "[[12],[-1],9,[[0,10]]]" << "[[4],[3],0]"
                                                 << "View(shape=(4,), strides=(-3,), offset=9, mask=None, contiguous=False)";
    QTest::newRow("inner mask kept") << "[[3,4],[4,1],0]" << "[[5],[1],-1,[[1,4]]]"
                                     << "View(shape=(5,), strides=(1,), offset=-1, mask=((1, 4),), contiguous=False)";
    QTest::newRow("broadcast flat: none") << "[[2,2,3],[0,1,0],0]" << "[[12],null,0]" << "None";
    QTest::newRow("carry between dims: none") << "[[5,5],[1,5],0]" << "[[3,3],[6,1],6]" << "None";
  }
  void merge() {
    QFETCH(QString, outer);
    QFETCH(QString, inner);
    QFETCH(QString, want);
    View a = mkview(outer.toUtf8().constData()), b = mkview(inner.toUtf8().constData());
    std::optional<View> m = a + b;
    QCOMPARE(QString::fromStdString(m ? m->str() : "None"), want);
    if (!m) return;
    // The merged view reads what the two views read together, element for element.
    ShapeTracker two({a, b}), one({*m});
    QCOMPARE(one.mapping(), two.mapping());
  }

  void invert_and_minify_data() {
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("arg");  // out_shape for invert, "minify" for minify
    QTest::addColumn<QString>("want");
    QTest::newRow("invert transpose") << "[[4,3],[1,4],0]" << "[3,4]"
                                      << "View(shape=(3, 4), strides=(1, 3), offset=0, mask=None, contiguous=False)";
    QTest::newRow("invert flipped transpose") << "[[4,3],[-1,4],3]" << "[3,4]"
                                              << "View(shape=(3, 4), strides=(1, -3), offset=9, mask=None, contiguous=False)";
    QTest::newRow("invert broadcast") << "[[4,3],[0,1],0]" << "[3,4]"
                                      << "View(shape=(3, 4), strides=(1, 3), offset=0, mask=None, contiguous=False)";
    QTest::newRow("invert masked") << "[[4,3],[1,4],0,[[1,3],[0,3]]]" << "[2,3]"
                                   << "View(shape=(3, 2), strides=(1, 3), offset=3, mask=None, contiguous=False)";
    QTest::newRow("invert size mismatch") << "[[4,3],[1,4],0]" << "[5,4]" << "None";
    QTest::newRow("minify contiguous+offset") << "[[2,3,4],[12,4,1],5]" << "minify"
                                              << "View(shape=(24,), strides=(1,), offset=5, mask=None, contiguous=False)";
    QTest::newRow("minify partial") << "[[2,3,4],[1,8,2],0]" << "minify"
                                    << "View(shape=(2, 12), strides=(1, 2), offset=0, mask=None, contiguous=False)";
    QTest::newRow("minify broadcast") << "[[2,3,4,1],[0,4,1,0],0]" << "minify"
                                      << "View(shape=(2, 12), strides=(0, 1), offset=0, mask=None, contiguous=False)";
  }
  void invert_and_minify() {
    QFETCH(QString, view);
    QFETCH(QString, arg);
    QFETCH(QString, want);
    View v = mkview(view.toUtf8().constData());
    if (arg == "minify") {
      QCOMPARE(QString::fromStdString(v.minify().str()), want);
      QCOMPARE(ShapeTracker({v.minify()}).mapping().size(), ShapeTracker({v}).mapping().size());
      QCOMPARE(ShapeTracker({v.minify()}).reshape(v.shape).mapping(), ShapeTracker({v}).mapping());
      return;
    }
    std::optional<View> inv = v.invert(to_sints(json::parse(arg.toStdString()).as_ints()));
    QCOMPARE(QString::fromStdString(inv ? inv->str() : "None"), want);
  }

  void shapetracker_invert() {
    // A permuted copy: writing through the inverse puts every element back where it came from.
    ShapeTracker st = ShapeTracker::from_shape(std::vector<int64_t>{2, 3, 4}).permute({2, 0, 1});
    std::optional<ShapeTracker> inv = st.invert(to_sints({2, 3, 4}));
    QVERIFY(inv);
    std::vector<int64_t> fwd = st.mapping(), back = inv->mapping();
    for (size_t i = 0; i < back.size(); i++) QCOMPARE(fwd[back[i]], int64_t(i));
  }

  // tinygrad-verified random chains (v0.10.2): views as the ops leave them and after simplify().
  void tinygrad_chains_data() {
    QTest::addColumn<QString>("start");
    QTest::addColumn<QString>("ops");
    QTest::addColumn<QString>("views");
    QTest::addColumn<QString>("simplified");
#include "tst_view_chains.inc"
  }
  void tinygrad_chains() {
    QFETCH(QString, start);
    QFETCH(QString, ops);
    QFETCH(QString, views);
    QFETCH(QString, simplified);
    json::Value s = json::parse(start.toStdString()), o = json::parse(ops.toStdString());
    ShapeTracker st = run_ops(s, o);
    QCOMPARE(QString::fromStdString(st.str()), views);
    QCOMPARE(QString::fromStdString(st.simplify().str()), simplified);
    OffsetArray truth = OffsetArray::iota(s.as_ints());
    for (const json::Value& op : o.as_array()) truth = truth.apply(op);
    QCOMPARE(st.mapping(), truth.data);
    QCOMPARE(st.simplify().mapping(), truth.data);
  }

  void bad_input_data() {
    QTest::addColumn<QString>("start");
    QTest::addColumn<QString>("ops");
    QTest::addColumn<QString>("message");  // must appear in the error
    QTest::newRow("reshape size") << "[2,3]" << R"([["reshape",[4,2]]])"
                                  << "reshape: cannot reshape (2, 3) (6 elements) to (4, 2) (8 elements)";
    QTest::newRow("reshape negative") << "[2,3]" << R"([["reshape",[-2,-3]]])" << "reshape: negative dimension in (-2, -3)";
    QTest::newRow("reshape after pad") << "[2,3]" << R"([["pad",[[1,1],[0,0]]],["reshape",[6]]])"
                                       << "reshape: cannot reshape (4, 3) (12 elements) to (6,) (6 elements)";
    QTest::newRow("permute repeated") << "[2,3]" << R"([["permute",[0,0]]])"
                                      << "permute: (0, 0) is not a permutation of the 2 dims of shape (2, 3)";
    QTest::newRow("permute short") << "[2,3,4]" << R"([["permute",[1,0]]])"
                                   << "permute: (1, 0) is not a permutation of the 3 dims of shape (2, 3, 4)";
    QTest::newRow("permute out of range") << "[2,3]" << R"([["permute",[1,2]]])"
                                          << "permute: (1, 2) is not a permutation of the 2 dims of shape (2, 3)";
    QTest::newRow("shrink past end") << "[2,3]" << R"([["shrink",[[0,2],[1,4]]]])"
                                     << "shrink: ((0, 2), (1, 4)) is out of bounds for shape (2, 3) (dim 1: [1, 4) not within [0, 3])";
    QTest::newRow("shrink reversed") << "[2,3]" << R"([["shrink",[[1,0],[0,3]]]])" << "is out of bounds for shape (2, 3)";
    QTest::newRow("shrink negative") << "[2,3]" << R"([["shrink",[[-1,1],[0,3]]]])" << "is out of bounds for shape (2, 3)";
    QTest::newRow("shrink dims") << "[2,3]" << R"([["shrink",[[0,1]]]])"
                                 << "shrink: ((0, 1),) has 1 (begin, end) pairs for shape (2, 3) with 2 dims";
    QTest::newRow("expand non-1") << "[2,3]" << R"([["expand",[4,3]]])"
                                  << "expand: cannot expand (2, 3) to (4, 3) (dim 0 has size 2; only size-1 dims can be expanded)";
    QTest::newRow("expand dims") << "[1,3]" << R"([["expand",[2,1,3]]])" << "expand: (1, 3) to (2, 1, 3): expand keeps the number of dims";
    QTest::newRow("expand negative") << "[1,3]" << R"([["expand",[-1,3]]])" << "expand: negative dimension in (-1, 3)";
    QTest::newRow("pad negative") << "[2,3]" << R"([["pad",[[0,-1],[0,0]]]])" << "pad: negative padding ((0, -1), (0, 0)) for shape (2, 3)";
    QTest::newRow("pad dims") << "[2,3]" << R"([["pad",[[0,1]]]])" << "pad: ((0, 1),) has 1 (before, after) pairs for shape (2, 3) with 2 dims";
    QTest::newRow("flip axis") << "[2,3]" << R"([["flip",[2]]])" << "flip: axis 2 out of range for shape (2, 3)";
    QTest::newRow("flip repeated") << "[2,3]" << R"([["flip",[1,-1]]])" << "flip: axis -1 repeated in (1, -1)";
    QTest::newRow("unknown op") << "[2,3]" << R"([["twist",[1]]])" << "ops[0]: unknown movement op \"twist\"";
    QTest::newRow("op not a pair") << "[2,3]" << R"([["reshape"]])" << "ops[0] must be [name, argument]";
    QTest::newRow("arg type") << "[2,3]" << R"([["reshape",[6,"x"]]])" << "ops[0] (reshape) argument[1] must be an integer";
    QTest::newRow("later op named") << "[2,3]" << R"([["permute",[1,0]],["reshape",[5]]])"
                                    << "ops[1] reshape [5] on shape (3, 2): reshape: cannot reshape (3, 2)";
    QTest::newRow("too large") << "[3000000000,3000000000,3000000000]" << "[]" << "has too many elements";
    QTest::newRow("negative start") << "[-2,3]" << "[]" << "View: negative dimension in shape (-2, 3)";
  }
  void bad_input() {
    QFETCH(QString, start);
    QFETCH(QString, ops);
    QFETCH(QString, message);
    try {
      run_ops(json::parse(start.toStdString()), json::parse(ops.toStdString()));
      QFAIL("no error");
    } catch (const Error& e) {
      QString got = QString::fromUtf8(e.what());
      if (!got.contains(message)) qWarning() << "error was:" << got;
      QVERIFY(got.contains(message));
    }
  }

  void symbolic_dims() {
    // v0.10.2 allows variable dims on contiguous views: creation, reshape, expand, shrink bounds.
    UOpPtr n = UOp::variable("n", 1, 10);
    sint N(n);
    View v = View::create({N, 3});
    QCOMPARE(v.strides[0], sint(3));
    QVERIFY(v.contiguous);
    View t = View::create({3, N});
    QVERIFY(t.strides[0] == N);
    QCOMPARE(t.size(), int64_t(30));

    ShapeTracker st = ShapeTracker::from_shape(sints{N, 3});
    ShapeTracker r = st.reshape({N * 3});
    QCOMPARE(r.views().size(), size_t(1));
    QVERIFY(r.shape()[0] == N * 3);
    ShapeTracker e = ShapeTracker::from_shape(std::vector<int64_t>{1, 3}).expand({N, 3});
    QVERIFY(e.views()[0].strides[0] == 0);
    QVERIFY(e.shape()[0] == N);
    ShapeTracker s = ShapeTracker::from_shape(std::vector<int64_t>{8, 3}).shrink({{0, N}, {0, 3}});
    QVERIFY(s.shape()[0] == N);
    QCOMPARE(s.real_size(), int64_t(30));  // n <= 10 rows of 3
    QCOMPARE(s.vars().size(), size_t(1));

    // Its index expression evaluates right for each value of n.
    auto [idx, valid] = s.to_indexed(false);
    for (int64_t nv = 1; nv <= 8; nv++)
      for (int64_t i = 0; i < nv; i++)
        for (int64_t j = 0; j < 3; j++) QCOMPARE(eval_int(idx, {{"n", nv}, {"ridx0", i}, {"ridx1", j}}), i * 3 + j);

    // A symbolic reshape of a non-contiguous view names exactly its dims, or it is an error.
    UOpPtr bound = UOp::make(Ops::BIND, dtypes::index, {n, UOp::cnst_int(dtypes::index, 4)});
    ShapeTracker perm = ShapeTracker::from_shape(std::vector<int64_t>{3, 4}).permute({1, 0});
    ShapeTracker named = perm.reshape({sint(bound), 3});
    QVERIFY(named.shape()[0] == sint(bound));
    QCOMPARE(named.views()[0].strides, perm.views()[0].strides);
    QVERIFY_THROWS_EXCEPTION(Error, perm.reshape({sint(bound), 1, 3}));
    auto [unbound, values] = named.unbind();
    QCOMPARE(values.size(), size_t(1));
    QVERIFY(values[0].first == n);
    QCOMPARE(values[0].second, int64_t(4));
    QVERIFY(unbound.shape()[0] == N);
  }

  void arg_object() {
    ShapeTracker st = ShapeTracker::from_shape(std::vector<int64_t>{4, 1}).pad({{0, 0}, {0, 3}}).reshape({2, 2, 4});
    UOpPtr u = st.to_uop();
    QCOMPARE(u->op, Ops::VIEW);
    QVERIFY(u == st.to_uop());  // structural hash-consing through the arg
    QVERIFY(u != ShapeTracker::from_shape(std::vector<int64_t>{2, 2, 4}).to_uop());
    const ShapeTracker* back = u->arg.object<ShapeTracker>();
    QVERIFY(back && *back == st);
    QCOMPARE(u->arg.str(), st.str());
    auto decoded = decode_arg_object("ShapeTracker", st.encode());
    QVERIFY(decoded->equals(st));
    // symbolic parts survive the round trip
    UOpPtr n = UOp::variable("n", 1, 10);
    ShapeTracker sym = ShapeTracker::from_shape(sints{3, sint(n)}).shrink({{0, 2}, {0, sint(n)}});
    QVERIFY(decode_arg_object("ShapeTracker", sym.encode())->equals(sym));
    QVERIFY_THROWS_EXCEPTION(Error, decode_arg_object("ShapeTracker", "[{\"shape\": [2]}]"));
    QVERIFY_THROWS_EXCEPTION(Error, decode_arg_object("ShapeTracker", "[]"));
    QVERIFY_THROWS_EXCEPTION(Error, decode_arg_object("ShapeTracker", "{"));
    QVERIFY_THROWS_EXCEPTION(Error, ShapeTracker::decode(R"([{"shape":[2],"strides":[1,1],"offset":0,"mask":null,"contiguous":true}])"));
  }

  void queries() {
    ShapeTracker padded = ShapeTracker::from_shape(std::vector<int64_t>{4, 4}).pad({{0, 0}, {1, 1}});
    QVERIFY(!padded.axis_is_masked(0));
    QVERIFY(padded.axis_is_masked(1));
    QCOMPARE(padded.unit_stride_axes(), std::vector<int64_t>{});
    QCOMPARE(padded.unit_stride_axes(true), std::vector<int64_t>{1});
    QCOMPARE(padded.real_size(), int64_t(16));
    ShapeTracker shrunk = ShapeTracker::from_shape(std::vector<int64_t>{8, 8}).shrink({{2, 6}, {1, 5}});
    QCOMPARE(shrunk.real_size(), int64_t(5 * 8 + 5));
    QCOMPARE(shrunk.unit_stride_axes(), std::vector<int64_t>{1});
    QVERIFY(ShapeTracker::from_shape(std::vector<int64_t>{3, 4}).contiguous());
    QVERIFY(shrunk.shrink({{0, 4}, {0, 4}}).consecutive() == false);
    QVERIFY(ShapeTracker::from_shape(std::vector<int64_t>{3, 0}).real_size() == 0);
    QCOMPARE(ShapeTracker::from_shape(std::vector<int64_t>{3, 4}).reduce({1}), to_sints({3, 1}));
    QVERIFY_THROWS_EXCEPTION(Error, padded.axis_is_masked(2));
    QVERIFY(ShapeTracker::from_shape(std::vector<int64_t>{2, 3}).flip({true, false}).movement(Ops::FLIP, Arg(Arg::Tuple{true, false})) ==
            ShapeTracker::from_shape(std::vector<int64_t>{2, 3}));
  }

  void composition() {
    // st + other applies other's views on top, simplifying each time.
    ShapeTracker a = ShapeTracker::from_shape(std::vector<int64_t>{4, 4}).permute({1, 0});
    ShapeTracker b = ShapeTracker({View::create({2, 2}, sints{8, 1}, 2)});
    ShapeTracker c = a + b;
    QCOMPARE(c.views().size(), size_t(1));
    QCOMPARE(QString::fromStdString(c.views()[0].str()),
             QString("View(shape=(2, 2), strides=(2, 4), offset=8, mask=None, contiguous=False)"));
  }
};

QTEST_APPLESS_MAIN(TestView)
#include "tst_view.moc"
