// The session's models, each under QAbstractItemModelTester: the trace browser tree (and its filter
// proxy), the rule profiler and rule firings tables, the inspector. Plus the pure helpers behind
// them: kernel-name parsing and axis decoding (differential against the engine's Kernel), node shapes
// (differential against the tensor frontend), bounds text.
#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QtTest>

#include "codegen/kernel.h"
#include "schedule/schedule.h"
#include "session/inspectormodel.h"
#include "session/ruleprofilermodel.h"
#include "graph/uopgraphadapter.h"
#include "session/session.h"
#include "session/tracebrowsermodel.h"
#include "tensor/tensor.h"
#include "tst_session_traces.h"

using namespace loupe;
using namespace loupe::views;

Q_DECLARE_METATYPE(std::vector<int64_t>)

namespace {
// Collects a tree as indented lines "name | matches" (all rows, all levels).
void dump(const QAbstractItemModel& m, const QModelIndex& parent, int depth, QStringList& out) {
  for (int r = 0; r < m.rowCount(parent); r++) {
    QModelIndex i = m.index(r, 0, parent);
    out << QString(depth * 2, ' ') + i.data().toString() + " | " + m.index(r, 1, parent).data().toString();
    dump(m, i, depth + 1, out);
  }
}
void fetchAll(QAbstractItemModel& m, const QModelIndex& parent) {
  while (m.canFetchMore(parent)) m.fetchMore(parent);
  for (int r = 0; r < m.rowCount(parent); r++) fetchAll(m, m.index(r, 0, parent));
}
} // namespace

class TestModels : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString trace_;
  Session session_;

private Q_SLOTS:
  void initTestCase() {
    trace_ = dir_.filePath("models.loupe");
    session_traces::recordMatmulTrace(trace_);
    QString error;
    QVERIFY2(session_.openNow(trace_, &error), qPrintable(error));
  }

  // ---- trace browser ----

  void browserTreeHasContextsPassesSteps() {
    TraceBrowserModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto snap = session_.snapshot();
    int fetches = 0;
    model.setTrace(snap, [&](int64_t pass) {
      fetches++;
      return session_.matches(pass);
    });
    // top level: the contexts without a parent, in order
    int topContexts = 0;
    for (const TraceContext& c : snap->contexts) topContexts += c.parent_id < 0;
    QCOMPARE(model.rowCount(), topContexts);
    QCOMPARE(fetches, 0);  // nothing read before a pass is expanded
    fetchAll(model, {});
    QVERIFY(fetches > 0);
    // every pass appears once, under its context or its parent pass; steps under their pass
    int passes = 0, steps = 0;
    std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
      for (int r = 0; r < model.rowCount(parent); r++) {
        QModelIndex i = model.index(r, 0, parent);
        const int kind = i.data(TraceBrowserModel::KindRole).toInt();
        if (kind == TraceBrowserModel::PassItem) {
          passes++;
          const TracePass* p = snap->pass(i.data(TraceBrowserModel::PassIdRole).toLongLong());
          QVERIFY(p);
          if (p->parent_id >= 0) QCOMPARE(parent.data(TraceBrowserModel::PassIdRole).toLongLong(), p->parent_id);
          else QCOMPARE(parent.data(TraceBrowserModel::ContextIdRole).toLongLong(), p->context_id);
          QCOMPARE(model.index(r, 1, parent).data().toString(), QString::number(p->match_count));
          QCOMPARE(model.indexForPass(p->id), i);
        } else if (kind == TraceBrowserModel::StepItem) {
          steps++;
          const int64_t pass = i.data(TraceBrowserModel::PassIdRole).toLongLong();
          const int64_t step = i.data(TraceBrowserModel::StepRole).toLongLong();
          QCOMPARE(parent.data(TraceBrowserModel::PassIdRole).toLongLong(), pass);
          const TraceMatch& m = session_.matches(pass).at(size_t(step - 1));
          QVERIFY(i.data().toString().endsWith(QString::fromStdString(m.rule_name)));
          QVERIFY(i.data().toString().startsWith(QString::number(step) + "  "));
          QCOMPARE(model.indexForStep(pass, step), i);
        } else {
          const int64_t ctx = i.data(TraceBrowserModel::ContextIdRole).toLongLong();
          QCOMPARE(model.indexForContext(ctx), i);
          const int64_t k = snap->kernelOfContext.value(ctx, -1);
          if (k >= 0) {
            QCOMPARE(i.data(TraceBrowserModel::KernelIdRole).toLongLong(), k);
            QCOMPARE(i.data().toString(), QString::fromStdString(snap->kernel(k)->name));
            auto parts = i.data(TraceBrowserModel::KernelNameRole).value<KernelNameParts>();
            QVERIFY(parts.decoded);
            QVERIFY(i.data(Qt::ToolTipRole).toString().contains("<span style=\"color:"));
          }
        }
        walk(i);
      }
    };
    walk({});
    QCOMPARE(passes, int(snap->passes.size()));
    QCOMPARE(int64_t(steps), snap->totalMatches());
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  void browserStepsAreLazy() {
    TraceBrowserModel model;  // no tester at first: it fetches everything to check it
    auto snap = session_.snapshot();
    model.setTrace(snap, [&](int64_t pass) { return session_.matches(pass); });
    const TracePass* busy = nullptr;
    for (const TracePass& p : snap->passes)
      if (p.match_count > 0 && p.parent_id < 0) {
        busy = &p;
        break;
      }
    QVERIFY(busy);
    QModelIndex pi = model.indexForPass(busy->id);
    QVERIFY(model.hasChildren(pi));
    QVERIFY(model.canFetchMore(pi));
    const int before = model.rowCount(pi);
    QModelIndex last = model.indexForStep(busy->id, busy->match_count);  // fetches
    QVERIFY(!model.canFetchMore(pi));
    QCOMPARE(model.rowCount(pi), before + int(busy->match_count));
    QCOMPARE(last.data(TraceBrowserModel::StepRole).toLongLong(), busy->match_count);
    QCOMPARE(model.indexForStep(busy->id, 0), pi);
    QCOMPARE(model.indexForStep(busy->id, busy->match_count + 5), pi);  // out of range: the pass
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  }

  void filterProxy_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("hideEmpty");
    QTest::newRow("everything") << QString() << false;
    QTest::newRow("hide empty passes") << QString() << true;
    QTest::newRow("pass name") << QStringLiteral("lowerer") << false;
    QTest::newRow("pass name, upper case") << QStringLiteral("LOWERER") << true;
    QTest::newRow("kernel name") << QStringLiteral("r_16_16") << true;
    QTest::newRow("no hit") << QStringLiteral("no such thing") << false;
    QTest::newRow("rule name") << QStringLiteral("LOWER_") << true;  // lower_load, lower_store...: in no pass name
  }

  void filterProxy() {
    QFETCH(QString, text);
    QFETCH(bool, hideEmpty);
    TraceBrowserModel model;
    model.setTrace(session_.snapshot(), [&](int64_t pass) { return session_.matches(pass); });
    TraceFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setHideEmptyPasses(hideEmpty);
    proxy.setFilterText(text);
    QStringList shown;
    dump(proxy, {}, 0, shown);
    QStringList all;
    dump(model, {}, 0, all);
    int passesShown = 0;
    std::function<void(const QModelIndex&, bool)> walk = [&](const QModelIndex& parent, bool ancestorHit) {
      for (int r = 0; r < proxy.rowCount(parent); r++) {
        QModelIndex i = proxy.index(r, 0, parent);
        const bool ruleHit = i.data(TraceBrowserModel::KindRole).toInt() == TraceBrowserModel::PassItem &&
                             session_.trace().passFiredRuleMatching(i.data(TraceBrowserModel::PassIdRole).toLongLong(), text);
        const bool hit = i.data().toString().contains(text, Qt::CaseInsensitive);
        if (i.data(TraceBrowserModel::KindRole).toInt() == TraceBrowserModel::PassItem) {
          passesShown++;
          if (hideEmpty) QVERIFY2(!i.data(TraceBrowserModel::EmptyPassRole).toBool(), qPrintable(i.data().toString()));
        }
        // a row is shown for its own hit, an ancestor's hit, or a descendant's hit
        bool descendantHit = false;
        std::function<void(const QModelIndex&)> below = [&](const QModelIndex& p) {
          for (int k = 0; k < proxy.rowCount(p) && !descendantHit; k++) {
            QModelIndex c = proxy.index(k, 0, p);
            descendantHit = c.data().toString().contains(text, Qt::CaseInsensitive) ||
                            (c.data(TraceBrowserModel::KindRole).toInt() == TraceBrowserModel::PassItem &&
                             session_.trace().passFiredRuleMatching(c.data(TraceBrowserModel::PassIdRole).toLongLong(), text));
            below(c);
          }
        };
        below(i);
        QVERIFY2(text.isEmpty() || hit || ruleHit || ancestorHit || descendantHit, qPrintable(i.data().toString()));
        walk(i, ancestorHit || hit);
      }
    };
    walk({}, false);
    if (text == "no such thing") QCOMPARE(proxy.rowCount(), 0);
    if (text.isEmpty() && !hideEmpty) QCOMPARE(shown, all);
    if (text.isEmpty() && hideEmpty) {
      int nonEmpty = 0;
      for (const TracePass& p : session_.trace().passes) nonEmpty += p.match_count > 0;
      QVERIFY(passesShown >= nonEmpty);
      QVERIFY(passesShown < int(session_.trace().passes.size()));
    }
    if (text.compare("lowerer", Qt::CaseInsensitive) == 0) QVERIFY(passesShown >= 3);
    if (text == "LOWER_") {
      // every pass where a lower_* rule fired, found without expanding (fetching) any pass
      int firing = 0;
      for (const TracePass& p : session_.trace().passes) firing += session_.trace().passFiredRuleMatching(p.id, text);
      QVERIFY(firing >= 2);
      QVERIFY(passesShown >= firing);
    }
  }

  // ---- rule profiler ----

  void ruleProfiler() {
    RuleProfilerModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRules(session_.trace().rules);
    QCOMPARE(model.rowCount(), int(session_.trace().rules.size()));
    QCOMPARE(model.columnCount(), int(RuleProfilerModel::ColumnCount));
    QVERIFY(model.hasAttempts());
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(RuleProfilerModel::SortRole);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    for (int col : {int(RuleProfilerModel::MatchesColumn), int(RuleProfilerModel::AttemptsColumn),
                    int(RuleProfilerModel::MatchTimeColumn), int(RuleProfilerModel::HitRateColumn)}) {
      proxy.sort(col, Qt::DescendingOrder);
      for (int r = 1; r < proxy.rowCount(); r++)
        QVERIFY(proxy.index(r - 1, col).data(RuleProfilerModel::SortRole).toDouble() >=
                proxy.index(r, col).data(RuleProfilerModel::SortRole).toDouble());
    }
    proxy.sort(RuleProfilerModel::RuleColumn, Qt::AscendingOrder);
    for (int r = 1; r < proxy.rowCount(); r++)
      QVERIFY(proxy.index(r - 1, 0).data().toString() <= proxy.index(r, 0).data().toString());
    // each row shows its rule
    for (int r = 0; r < model.rowCount(); r++) {
      const TraceRule& rule = session_.trace().rules[size_t(r)];
      QCOMPARE(model.index(r, RuleProfilerModel::MatchesColumn).data().toString(), QString::number(rule.matches));
      QCOMPARE(model.index(r, 0).data(RuleProfilerModel::RuleIdRole).toLongLong(), rule.id);
      QVERIFY(model.index(r, RuleProfilerModel::LocationColumn).data().toString().endsWith(":" + QString::number(rule.line)));
      QVERIFY(model.index(r, RuleProfilerModel::LocationColumn).data().toString().startsWith("engine/"));
      QCOMPARE(model.rowOfRule(rule.id), r);
    }
    // a trace without attempt counts shows dashes, not zeros
    std::vector<TraceRule> rules = session_.trace().rules;
    for (TraceRule& r : rules) r.attempts = r.attempt_ns = 0;
    model.setRules(rules);
    QVERIFY(!model.hasAttempts());
    QCOMPARE(model.index(0, RuleProfilerModel::AttemptsColumn).data().toString(), QStringLiteral("—"));
    QCOMPARE(model.index(0, RuleProfilerModel::HitRateColumn).data().toString(), QStringLiteral("—"));
  }

  void ruleFirings() {
    RuleFiringsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const TraceRule* busiest = &session_.trace().rules.front();
    for (const TraceRule& r : session_.trace().rules)
      if (r.matches > busiest->matches) busiest = &r;
    model.setFirings(session_.snapshot(), session_.firingsOfRule(busiest->id));
    QCOMPARE(int64_t(model.rowCount()), busiest->matches);
    for (int r = 0; r < model.rowCount(); r++) {
      const int64_t pass = model.index(r, 0).data(RuleFiringsModel::PassIdRole).toLongLong();
      const int64_t step = model.index(r, 0).data(RuleFiringsModel::StepRole).toLongLong();
      QCOMPARE(model.index(r, RuleFiringsModel::StepColumn).data().toString(), QString::number(step));
      QCOMPARE(model.index(r, RuleFiringsModel::PassColumn).data().toString(),
               QString::fromStdString(session_.trace().pass(pass)->name));
      QCOMPARE(session_.matches(pass).at(size_t(step - 1)).rule_id, busiest->id);
    }
    model.setFirings(nullptr, {});
    QCOMPARE(model.rowCount(), 0);
  }

  // ---- inspector ----

  void inspectorOnAKernelLoad() {
    // a buffer access of the first kernel's AST (a STORE, LOAD or IOTA) carries a ShapeTracker
    const TraceKernel& k = session_.trace().kernels.front();
    UOpPtr ast = session_.node(k.ast_id);
    QVERIFY(ast);
    UOpPtr load;
    for (const UOp* u : ast->toposort())
      if (u->op != Ops::VIEW && nodeShapeTracker(u->ptr())) load = u->ptr();
    QVERIFY(load);
    InspectorModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setNode(load, ast);
    QCOMPARE(model.findRow("op").siblingAtColumn(1).data().toString(), QString::fromStdString(std::string(op_name(load->op))));
    const ShapeTracker* st = nodeShapeTracker(load);
    QVERIFY(st);
    QModelIndex str = model.findRow("ShapeTracker");
    QVERIFY(str.isValid());
    QCOMPARE(model.rowCount(str), int(st->views().size()) + 2);  // views, index, valid
    QModelIndex view0 = model.index(0, 0, str);
    QCOMPARE(model.rowCount(view0), 5);
    QCOMPARE(model.index(1, 0, view0).data().toString(), QStringLiteral("strides"));
    QModelIndex shape = model.findRow("shape");
    QVERIFY(shape.isValid());
    QStringList dims;
    for (const sint& d : st->shape()) dims << QString::fromStdString(d.str());
    QCOMPARE(shape.siblingAtColumn(1).data().toString(), "(" + dims.join(", ") + (dims.size() == 1 ? ",)" : ")"));
    // sources lead to nodes; users are found in the graph
    QModelIndex srcs = model.findRow("sources");
    QCOMPARE(model.rowCount(srcs), int(load->src.size()));
    for (int i = 0; i < model.rowCount(srcs); i++)
      QCOMPARE(model.index(i, 0, srcs).data(InspectorModel::NodeIdRole).toULongLong(), uopNodeId(*load->src[size_t(i)]));
    QModelIndex users = model.findRow("users");
    QVERIFY(model.rowCount(users) >= 1);
    QVERIFY(model.index(0, 0, users).data(InspectorModel::NodeIdRole).toULongLong() != 0);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  void inspectorRange_data() {
    QTest::addColumn<int64_t>("lo");
    QTest::addColumn<int64_t>("hi");
    QTest::addColumn<int64_t>("mul");
    QTest::addColumn<int64_t>("add");
    QTest::newRow("small") << int64_t(0) << int64_t(10) << int64_t(3) << int64_t(1);
    QTest::newRow("negative") << int64_t(-5) << int64_t(5) << int64_t(-2) << int64_t(7);
    QTest::newRow("wide") << int64_t(-1000000) << int64_t(1000000) << int64_t(1000) << int64_t(-3);
  }

  void inspectorRange() {
    QFETCH(int64_t, lo);
    QFETCH(int64_t, hi);
    QFETCH(int64_t, mul);
    QFETCH(int64_t, add);
    UOpPtr x = UOp::variable("x", lo, hi) * mul + add;
    InspectorModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setNode(x, nullptr);
    const int64_t a = lo * mul + add, b = hi * mul + add;
    QCOMPARE(model.findRow("range").siblingAtColumn(1).data().toString(),
             QStringLiteral("[%1, %2]").arg(std::min(a, b)).arg(std::max(a, b)));
    QVERIFY(!model.findRow("users").isValid());  // no graph given
    QVERIFY(!model.findRow("ShapeTracker").isValid());
  }

  void boundText_data() {
    QTest::addColumn<qint64>("hi");
    QTest::addColumn<qint64>("lo");
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << qint64(0) << qint64(0) << "0";
    QTest::newRow("negative") << qint64(0) << qint64(-42) << "-42";
    QTest::newRow("int64 max") << qint64(0) << std::numeric_limits<qint64>::max() << "9223372036854775807";
    QTest::newRow("2^64") << qint64(1) << qint64(0) << "18446744073709551616";
    QTest::newRow("huge") << (qint64(1) << 40) << qint64(0) << "inf";
    QTest::newRow("-huge") << -(qint64(1) << 40) << qint64(0) << "-inf";
  }

  void boundText() {
    QFETCH(qint64, hi);
    QFETCH(qint64, lo);
    QFETCH(QString, text);
    const __int128 v = (__int128(hi) << 64) + (lo < 0 && hi == 0 ? __int128(lo) : __int128(uint64_t(lo)));
    QCOMPARE(loupe::views::boundText(v), text);
  }

  // nodeShape agrees with the tensor frontend's shapes for movement chains and reductions
  void nodeShapeMatchesTensors() {
    std::vector<std::pair<QString, Tensor>> cases;
    Tensor a = Tensor::arange(24).reshape({2, 3, 4});
    cases.emplace_back("reshape", a);
    cases.emplace_back("permute", a.permute({2, 0, 1}));
    cases.emplace_back("pad", a.pad(PadSpec{std::pair<int64_t, int64_t>{1, 2}, std::pair<int64_t, int64_t>{0, 1},
                                            std::pair<int64_t, int64_t>{3, 0}}));
    cases.emplace_back("shrink", a.shrink(PadSpec{std::pair<int64_t, int64_t>{0, 1}, std::pair<int64_t, int64_t>{1, 3},
                                                  std::nullopt}));
    cases.emplace_back("expand", a.reshape({2, 3, 4, 1}).expand({2, 3, 4, 5}));
    cases.emplace_back("sum", a.sum({1}, true));
    cases.emplace_back("max", a.max({0, 2}, true));
    cases.emplace_back("add", a + a.permute({0, 1, 2}) * 2);
    cases.emplace_back("where", a.lt(Tensor(5)).where(a, a * 3));
    for (auto& [name, t] : cases) {
      auto s = nodeShape(t.uop());
      QVERIFY2(s, qPrintable(name));
      QCOMPARE(*s, std::vector<int64_t>(t.shape().begin(), t.shape().end()));
    }
  }

  // ---- kernel names ----

  void parseKernelName_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("parsed");
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<QStringList>("sizes");
    QTest::addColumn<QString>("suffix");
    QTest::newRow("reduce") << "r_16_8_4" << true << "r" << QStringList{"16", "8", "4"} << "";
    QTest::newRow("elementwise") << "E_4096" << true << "E" << QStringList{"4096"} << "";
    QTest::newRow("numbered") << "r_16_16_4n2" << true << "r" << QStringList{"16", "16", "4"} << "n2";
    QTest::newRow("multi output") << "r2_3_4" << true << "r2" << QStringList{"3", "4"} << "";
    QTest::newRow("symbolic") << "E_n_4" << true << "E" << QStringList{"n", "4"} << "";
    QTest::newRow("copy") << "copy 4096, CPU <- PYTHON" << false << "" << QStringList{} << "";
    QTest::newRow("no axes") << "E" << false << "" << QStringList{} << "";
    QTest::newRow("empty axis") << "E__4" << false << "" << QStringList{} << "";
  }

  void parseKernelName() {
    QFETCH(QString, name);
    QFETCH(bool, parsed);
    QFETCH(QString, prefix);
    QFETCH(QStringList, sizes);
    QFETCH(QString, suffix);
    KernelNameParts p = loupe::views::parseKernelName(name);
    QCOMPARE(p.parsed, parsed);
    QCOMPARE(p.name, name);
    QCOMPARE(p.prefix, prefix);
    QStringList got;
    for (const KernelNameAxis& a : p.axes) got << a.size;
    QCOMPARE(got, sizes);
    QCOMPARE(p.suffix, suffix);
    QVERIFY(!p.decoded);
    // the rich text always spells the name
    QString text = kernelNameHtml(p, false);
    text.remove(QRegularExpression("<[^>]*>"));
    QCOMPARE(text.replace("&lt;", "<").replace("&gt;", ">"), name);
  }

  // The decoder reads the same axis kinds from an optimized AST as the engine's Kernel holds.
  void axisKindsMatchTheEngine_data() {
    QTest::addColumn<int>("program");
    QTest::addColumn<QString>("opts");  // "UPCAST:0:4,LOCAL:1:2" ...
    QTest::addColumn<bool>("locals");
    const char* programs[] = {"matmul", "rowsum", "colsum", "elementwise"};
    const QStringList optLists = {"", "UPCAST:0:4", "UNROLL:0:4", "LOCAL:0:4", "LOCAL:0:2,UPCAST:0:2",
                                  "GROUP:0:4", "GROUPTOP:0:8", "UPCAST:1:4,UNROLL:0:4", "NOLOCALS:0:0"};
    for (int p = 0; p < 4; p++)
      for (const QString& o : optLists) {
        // opts on reduce axes need a reduce; the second axis of a row or column sum is gone after the reduce
        if (p == 3 && (o.contains("UNROLL") || o.contains("GROUP"))) continue;
        if (p != 0 && o.contains("UPCAST:1")) continue;
        QTest::addRow("%s %s", programs[p], qPrintable(o.isEmpty() ? "(none)" : o)) << p << o << true;
        if (o.startsWith("UPCAST") || o.startsWith("UNROLL") || o.isEmpty())
          QTest::addRow("%s %s no locals", programs[p], qPrintable(o.isEmpty() ? "(none)" : o)) << p << o << false;
      }
  }

  void axisKindsMatchTheEngine() {
    QFETCH(int, program);
    QFETCH(QString, opts);
    QFETCH(bool, locals);
    Tensor a = Tensor::arange(64 * 32).reshape({64, 32}).cast(dtypes::float32);
    Tensor b = Tensor::arange(32 * 16).reshape({32, 16}).cast(dtypes::float32);
    Tensor out = program == 0 ? a.matmul(b) : program == 1 ? a.sum({1}) : program == 2 ? a.sum({0}) : (a * 2 + 1);
    Schedule s = create_schedule({out.uop()});
    QVERIFY(!s.items.empty());
    Kernel k(s.items.back().ast, KernelTarget{locals, locals, locals ? 49152 : 0});
    int groups = 0;
    for (const QString& o : opts.split(',', Qt::SkipEmptyParts)) {
      QStringList f = o.split(':');
      static const QMap<QString, OptOp> ops{{"UPCAST", OptOp::UPCAST}, {"UNROLL", OptOp::UNROLL}, {"LOCAL", OptOp::LOCAL},
                                            {"GROUP", OptOp::GROUP},   {"GROUPTOP", OptOp::GROUPTOP}, {"NOLOCALS", OptOp::NOLOCALS}};
      try {
        k.apply_opt(Opt{ops.value(f[0]), f[1].toLongLong(), f[2].toLongLong()});
        groups += f[0].startsWith("GROUP");
      } catch (const KernelOptError&) {
        QSKIP("the opt does not apply to this kernel");
      }
    }
    QCOMPARE(int(k.group_for_reduces()), groups);
    std::vector<AxisKind> expected = k.axis_kinds();
    std::vector<std::string> recorded;  // as the execution layer records them (KernelRecord::axis_kinds)
    for (AxisKind a : expected) recorded.push_back(axis_kind_name(a));
    KernelNameParts p = decodeKernelName(QString::fromStdString(k.name()), recorded, k.dont_use_locals());
    QVERIFY(p.decoded);
    QCOMPARE(p.axes.size(), int(expected.size()));
    for (int i = 0; i < p.axes.size(); i++) {
      QCOMPARE(*p.axes[i].kind, expected[size_t(i)]);
      QCOMPARE(p.axes[i].size, QString::number(k.full_shape()[size_t(i)]));
    }
    QCOMPARE(p.dontUseLocals, k.dont_use_locals());
    // the tooltip names every axis kind in its colour
    const QString tip = kernelNameTooltip(p, true);
    for (AxisKind kind : expected) {
      QVERIFY(tip.contains(axisKindTitle(kind)));
      QVERIFY(tip.contains(axisColour(kind, true).name()));
    }
  }

  void decodingFallsBackWithoutRecordedKinds() {
    KernelNameParts p = decodeKernelName("r_4_4", {}, false);  // a trace from before the kinds were recorded
    QVERIFY(p.parsed);
    QVERIFY(!p.decoded);
    QVERIFY(kernelNameTooltip(p, false).contains("unknown"));
    // kinds that disagree with the name's axes, or that are not kinds, are not trusted
    QVERIFY(!decodeKernelName("r_4_4_4", {"global", "reduce"}, false).decoded);
    QVERIFY(!decodeKernelName("r_4_4", {"global", "sideways"}, false).decoded);
    QVERIFY(decodeKernelName("r_4_4", {"global", "reduce"}, false).decoded);
    // distinct, readable colours per kind in both palettes
    for (bool dark : {false, true}) {
      QSet<QRgb> seen;
      for (AxisKind kind : {AxisKind::Global, AxisKind::Local, AxisKind::GroupReduce, AxisKind::Reduce, AxisKind::Upcast,
                            AxisKind::Unroll}) {
        QColor c = axisColour(kind, dark);
        seen.insert(c.rgb());
        QVERIFY(dark ? c.lightness() > 120 : c.lightness() < 140);
      }
      QCOMPARE(seen.size(), 6);
    }
  }
};

QTEST_GUILESS_MAIN(TestModels)
#include "tst_models.moc"
