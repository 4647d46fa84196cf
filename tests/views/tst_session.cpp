// Session: loading (sync and off the GUI thread), selection signals, keyboard-style stepping across
// matches, passes and kernels (checked against an independent replay of the same trace), node
// selection, reloading a growing trace, corrupt and missing files.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <set>

#include "graph/uopgraphadapter.h"
#include "session/session.h"
#include "trace/graph_at_step.h"
#include "rewrite/graph_rewrite.h"
#include "trace/trace_writer.h"
#include "tst_session_traces.h"

using namespace loupe;
using namespace loupe::views;

class TestSession : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString trace_;

  // Every (pass, step) with step >= 1 in trace order: what nextMatch must visit.
  static std::vector<std::pair<int64_t, int64_t>> allMatches(const TraceSnapshot& s) {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (const TracePass& p : s.passes)
      for (int64_t k = 1; k <= p.match_count; k++) out.emplace_back(p.id, k);
    return out;
  }

private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    trace_ = dir_.filePath("matmul.loupe");
    session_traces::recordMatmulTrace(trace_);
  }

  void openNowReadsEverything() {
    Session s;
    QSignalSpy loaded(&s, &Session::loaded), failed(&s, &Session::loadFailed), step(&s, &Session::stepChanged);
    QString error;
    QVERIFY2(s.openNow(trace_, &error), qPrintable(error));
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(failed.count(), 0);
    QVERIFY(step.count() >= 1);
    const TraceSnapshot& t = s.trace();
    QVERIFY(t.finished);
    QCOMPARE(int(t.kernels.size()), 3);
    // one run per kernel; the runtime's allocations and host copies come as events of their own kinds
    QCOMPARE(int(std::count_if(t.profile.begin(), t.profile.end(), [](const auto& e) { return e.kind == "kernel"; })), 3);
    QVERIFY(std::any_of(t.profile.begin(), t.profile.end(), [](const auto& e) { return e.kind == "alloc"; }));
    QVERIFY(t.contexts.size() >= 5);
    QVERIFY2(t.totalMatches() >= 50, qPrintable(QString::number(t.totalMatches())));
    QVERIFY(!t.rules.empty());
    QCOMPARE(int(t.peaks.size()), 1);
    QCOMPARE(QString::fromStdString(t.runInfo.at("script_path")), QStringLiteral("example.py"));
    // every kernel is tied to its context and its name decoded from the axis kinds the trace recorded
    for (const TraceKernel& k : t.kernels) {
      QVERIFY(k.context_id >= 0);
      QCOMPARE(t.kernelForContext(k.context_id), k.id);
      const KernelNameParts& parts = t.kernelNames.value(k.id);
      QCOMPARE(parts.name, QString::fromStdString(k.name));
      QVERIFY2(parts.decoded, qPrintable(parts.name));
      QCOMPARE(parts.globalSize.size(), int(k.global_size.size()));
    }
    // a matmul kernel has a reduce (or an unrolled reduce) axis
    const KernelNameParts& mm = t.kernelNames.value(t.kernels.front().id);
    bool reduces = false;
    for (const KernelNameAxis& a : mm.axes)
      reduces = reduces || a.kind == AxisKind::Reduce || a.kind == AxisKind::Unroll || a.kind == AxisKind::GroupReduce;
    QVERIFY(reduces);
    // the initial selection: the first kernel, the pass whose input is its AST (its whole graph), step 0
    const Selection& sel = s.selection();
    QCOMPARE(sel.kernel, t.kernels.front().id);
    QCOMPARE(sel.context, t.kernels.front().context_id);
    QVERIFY(t.pass(sel.pass));
    QCOMPARE(t.pass(sel.pass)->context_id, sel.context);
    QCOMPARE(t.pass(sel.pass)->input_id, t.kernels.front().ast_id);
    QCOMPARE(sel.step, int64_t(0));
    QVERIFY(s.currentStep().valid());
    QVERIFY(!s.currentStep().match);
  }

  void openLoadsOffTheGuiThread() {
    Session s;
    QSignalSpy started(&s, &Session::loadStarted), loaded(&s, &Session::loaded);
    s.open(trace_);
    QVERIFY(s.isLoading());
    QCOMPARE(started.count(), 1);
    QCOMPARE(loaded.count(), 0);  // nothing arrives before the event loop runs
    QVERIFY(s.waitForLoad());
    QCOMPARE(loaded.count(), 1);
    QVERIFY(s.hasTrace());
    QCOMPARE(s.path(), trace_);
  }

  void supersededLoadIsDropped() {
    Session s;
    QSignalSpy loaded(&s, &Session::loaded), failed(&s, &Session::loadFailed);
    s.open(dir_.filePath("does-not-exist.loupe"));
    s.open(trace_);  // the second request wins; the first one's failure is never reported
    QVERIFY(s.waitForLoad());
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(failed.count(), 0);
  }

  void nextMatchVisitsEveryMatchInOrder() {
    Session s;
    QVERIFY(s.openNow(trace_));
    TraceReader independent(trace_.toStdString());
    const auto expected = allMatches(s.trace());
    // start at the first pass with matches, step 0
    s.selectPass(expected.front().first, 0);
    QVERIFY(s.waitForStep());
    QSignalSpy stepSpy(&s, &Session::stepChanged), readySpy(&s, &Session::stepReady);
    std::map<int64_t, std::unique_ptr<PassReplay>> replays;
    size_t i = 0;
    for (; i < expected.size(); i++) {
      QVERIFY(s.nextMatch());
      QCOMPARE(s.selection().pass, expected[i].first);
      QCOMPARE(s.selection().step, expected[i].second);
      // the selection moves at once; the graph is rebuilt off the GUI thread and follows
      QVERIFY(s.isStepPending());
      QVERIFY(s.waitForStep());
      const StepInfo& st = s.currentStep();
      QVERIFY2(st.valid(), qPrintable(st.error));
      QVERIFY(st.match.has_value());
      QCOMPARE(st.match->index, expected[i].second - 1);
      auto& r = replays[expected[i].first];
      if (!r) r = std::make_unique<PassReplay>(independent, expected[i].first);
      // the same graph as an independent replay (nodes are hash-consed: equal means identical)
      QCOMPARE(st.graph.get(), r->graph_at(expected[i].second).get());
      QCOMPARE(st.before.get(), r->graph_at(expected[i].second - 1).get());
      QCOMPARE(st.changes.after.get(), r->changes_at(expected[i].second).after.get());
    }
    QCOMPARE(stepSpy.count(), int(expected.size()));
    QCOMPARE(readySpy.count(), int(expected.size()));
    QVERIFY(!s.nextMatch());  // at the very last match
    // and back again
    for (size_t j = expected.size() - 1; j-- > 0;) {
      QVERIFY(s.previousMatch());
      QCOMPARE(s.selection().pass, expected[j].first);
      QCOMPARE(s.selection().step, expected[j].second);
    }
    QVERIFY(!s.previousMatch());
  }

  void passAndKernelStepping() {
    Session s;
    QVERIFY(s.openNow(trace_));
    const TraceSnapshot& t = s.trace();
    s.selectPass(t.passes.front().id, 3);
    QCOMPARE(s.selection().step, qMin<int64_t>(3, t.passes.front().match_count));
    QSignalSpy passSpy(&s, &Session::passChanged), kernelSpy(&s, &Session::kernelChanged);
    for (size_t i = 1; i < t.passes.size(); i++) {
      QVERIFY(s.nextPass());
      QCOMPARE(s.selection().pass, t.passes[i].id);
      QCOMPARE(s.selection().step, int64_t(0));
      QCOMPARE(s.selection().context, t.passes[i].context_id);
      const int64_t k = t.kernelForContext(t.passes[i].context_id);
      if (k >= 0) QCOMPARE(s.selection().kernel, k);
    }
    QVERIFY(!s.nextPass());
    QCOMPARE(passSpy.count(), int(t.passes.size()) - 1);
    QVERIFY(kernelSpy.count() >= 2);
    QVERIFY(s.previousPass());
    QCOMPARE(s.selection().pass, t.passes[t.passes.size() - 2].id);

    // kernels in compile order, each selecting the pass that starts from its AST
    s.selectKernel(t.kernels.front().id);
    for (size_t i = 1; i < t.kernels.size(); i++) {
      QVERIFY(s.nextKernel());
      QCOMPARE(s.selection().kernel, t.kernels[i].id);
      QCOMPARE(s.selection().context, t.kernels[i].context_id);
      QCOMPARE(t.pass(s.selection().pass)->input_id, t.kernels[i].ast_id);
    }
    QVERIFY(!s.nextKernel());
    QVERIFY(s.previousKernel());
    QCOMPARE(s.selection().kernel, t.kernels[t.kernels.size() - 2].id);
    // selecting the kernel whose pass is shown keeps the pass
    const int64_t pass = s.selection().pass;
    s.selectPass(pass, 1);
    s.selectKernel(s.selection().kernel);
    QCOMPARE(s.selection().pass, pass);
    QCOMPARE(s.selection().step, int64_t(1));
  }

  // Issue 24 #10.4: a kernel with a nested reduce opens on the lowerer's graph (the whole kernel), not
  // on the first pass with matches, a "nested reduce index" rewrite of a few index nodes.
  void kernelWithNestedReduceOpensOnTheLowerer() {
    const QString path = dir_.filePath("nested.loupe");
    session_traces::recordNestedReduceTrace(path);
    Session s;
    QVERIFY(s.openNow(path));
    const TraceSnapshot& t = s.trace();
    QCOMPARE(int(t.kernels.size()), 1);
    const std::vector<const TracePass*> ps = t.passesOf(t.kernels.front().context_id);
    QVERIFY(!ps.empty());
    QCOMPARE(ps.front()->name, std::string("nested reduce index"));  // what the old choice landed on
    const TracePass* p = t.pass(s.selection().pass);
    QVERIFY(p);
    QCOMPARE(p->name, std::string("lowerer"));
    QCOMPARE(p->depth, 0);
    QVERIFY(s.currentStep().valid());
    // the kernel's whole graph: the SINK named after the kernel, with more nodes than the index passes'
    QVERIFY(s.currentStep().graph->op == loupe::Ops::SINK);
    const size_t wholeNodes = s.currentStep().graph->toposort().size();
    s.selectPass(ps.front()->id, 0);
    QVERIFY(s.waitForStep());
    QVERIFY(s.currentStep().valid());
    QVERIFY(s.currentStep().graph->toposort().size() < wholeNodes);
  }

  // Issue 24 #5: with the browser's Hide empty on, Up/Down never land on a hidden pass ("step 0/0").
  void passSteppingSkipsEmptyPasses() {
    Session s;
    QVERIFY(s.openNow(trace_));
    const TraceSnapshot& t = s.trace();
    std::vector<int64_t> shown;  // what the browser shows with Hide empty on, in trace order
    for (const TracePass& p : t.passes) {
      // empty: no matches in it, nor in any pass nested under it
      bool nonEmpty = p.match_count > 0;
      for (const TracePass& q : t.passes)
        for (const TracePass* up = &q; up && !nonEmpty; up = t.pass(up->parent_id))
          nonEmpty = up->id == p.id && q.match_count > 0;
      QCOMPARE(t.passIsEmpty(p.id), !nonEmpty);
      if (nonEmpty) shown.push_back(p.id);
    }
    QVERIFY2(shown.size() >= 2 && shown.size() < t.passes.size(), "the trace needs empty and non-empty passes");
    s.setSkipEmptyPasses(true);
    s.selectPass(t.passes.front().id);
    std::vector<int64_t> visited;
    if (!t.passIsEmpty(s.selection().pass)) visited.push_back(s.selection().pass);
    while (s.nextPass()) {
      QVERIFY2(!t.passIsEmpty(s.selection().pass), t.pass(s.selection().pass)->name.c_str());
      visited.push_back(s.selection().pass);
    }
    QCOMPARE(visited, shown);
    std::vector<int64_t> back{s.selection().pass};
    while (s.previousPass()) back.push_back(s.selection().pass);
    std::reverse(back.begin(), back.end());
    QCOMPARE(back, shown);
    // off again: every pass
    s.setSkipEmptyPasses(false);
    s.selectPass(shown.front());
    QVERIFY(s.nextPass());
    QCOMPARE(s.selection().pass, t.passes[size_t(t.passIndex.value(shown.front()) + 1)].id);
  }

  // The filter searches the rules that fired in each pass: the snapshot knows them without reading steps.
  void snapshotKnowsTheRulesOfEachPass() {
    Session s;
    QVERIFY(s.openNow(trace_));
    const TraceSnapshot& t = s.trace();
    int checked = 0;
    for (const TracePass& p : t.passes) {
      std::set<int64_t> fired;
      for (const TraceMatch& m : s.matches(p.id)) fired.insert(m.rule_id);
      const QList<qint64> known = t.rulesOfPass.value(p.id);
      QCOMPARE(std::set<int64_t>(known.begin(), known.end()), fired);
      for (int64_t id : fired) {
        const QString name = QString::fromStdString(t.rule(id)->name);
        QVERIFY(t.passFiredRuleMatching(p.id, name.toUpper()));
        checked++;
      }
    }
    QVERIFY(checked > 3);
    QVERIFY(!t.passFiredRuleMatching(t.passes.front().id, QStringLiteral("no such rule")));
  }

  void nodeSelectionFollowsTheGraph() {
    Session s;
    QVERIFY(s.openNow(trace_));
    QVERIFY(s.nextMatch());
    QVERIFY(s.waitForStep());
    const StepInfo& st = s.currentStep();
    QVERIFY(st.match);
    // the node the step removed is in the graph before, not after
    UOpPtr gone = st.changes.before;
    QVERIFY(gone);
    QSignalSpy nodeSpy(&s, &Session::nodeChanged);
    QVERIFY(s.selectNodeById(uopNodeId(*gone)));
    QCOMPARE(s.selectedNode().get(), gone.get());
    QCOMPARE(nodeSpy.count(), 1);
    QCOMPARE(nodeSpy.first().first().toULongLong(), uopNodeId(*gone));
    QVERIFY(!s.selectNodeById(0x1234));  // not in this step
    // the graph's root survives many steps; a node that disappears is deselected
    QVERIFY(s.selectNodeById(uopNodeId(*st.graph)));
    QVERIFY(s.selectedNode());
    s.selectNode(nullptr);
    QCOMPARE(s.selection().node, quint64(0));
    QVERIFY(s.selectNodeById(uopNodeId(*gone)));
    for (int i = 0; i < 3 && s.selectedNode(); i++) {
      s.nextMatch();
      QVERIFY(s.waitForStep());
    }
    QVERIFY(!s.selectedNode());
    QCOMPARE(s.selection().node, quint64(0));
  }

  // Stepping faster than the graphs rebuild (a held key): only the step the user stops on is shown,
  // once, and it is the same graph a synchronous replay gives.
  void staleRebuildsAreSkipped() {
    Session s;
    s.setStepDrawer(drawGraphStep);  // as the Graph panel does: the model comes with the step
    QVERIFY(s.openNow(trace_));
    const auto expected = allMatches(s.trace());
    QVERIFY(expected.size() > 20);
    s.selectPass(expected.front().first, 0);
    QSignalSpy ready(&s, &Session::stepReady), changed(&s, &Session::stepChanged);
    for (int i = 0; i < 20; i++) QVERIFY(s.nextMatch());  // no events processed in between
    QCOMPARE(changed.count(), 20);
    QCOMPARE(ready.count(), 0);  // nothing is adopted before the event loop runs
    QVERIFY(s.waitForStep());
    QCOMPARE(ready.count(), 1);
    const auto [pass, step] = expected[19];
    QCOMPARE(s.currentStep().pass, pass);
    QCOMPARE(s.currentStep().step, step);
    TraceReader independent(trace_.toStdString());
    PassReplay replay(independent, pass);
    QCOMPARE(s.currentStep().graph.get(), replay.graph_at(step).get());
    QVERIFY(graphModelOf(s.currentStep()) && !graphModelOf(s.currentStep())->isEmpty());
    // closing while a rebuild is queued drops it
    QVERIFY(s.nextMatch());
    s.close();
    QVERIFY(s.waitForStep());
    QTest::qWait(50);
    QCOMPARE(ready.count(), 1);
    QVERIFY(!s.currentStep().valid());
  }

  void firingsOfRuleMatchTheRuleTable() {
    Session s;
    QVERIFY(s.openNow(trace_));
    int checked = 0;
    for (const TraceRule& r : s.trace().rules) {
      std::vector<RuleFiring> f = s.firingsOfRule(r.id);
      QCOMPARE(int64_t(f.size()), r.matches);
      for (const RuleFiring& x : f) {
        const TraceMatch& m = s.matches(x.pass).at(size_t(x.step - 1));
        QCOMPARE(m.rule_id, r.id);
      }
      checked += r.matches > 0;
    }
    QVERIFY(checked >= 3);
    QVERIFY(s.firingsOfRule(s.trace().rules.front().id, 1).size() <= 1);  // the limit holds
  }

  void kernelDetailsHaveSources() {
    Session s;
    QVERIFY(s.openNow(trace_));
    for (const TraceKernel& k : s.trace().kernels) {
      auto d = s.kernelDetails(k.id);
      QVERIFY(d);
      QVERIFY(d->source("opt"));
      QVERIFY(d->source("noopt"));
      QVERIFY(!d->buffers.empty());
    }
    QVERIFY(!s.kernelDetails(987654));
  }

  void corruptTraceKeepsWhatWasOpen() {
    Session s;
    QVERIFY(s.openNow(trace_));
    s.nextMatch();
    const Selection before = s.selection();
    const QString bad = dir_.filePath("corrupt.loupe");
    session_traces::writeCorruptTrace(bad, trace_);
    QSignalSpy failed(&s, &Session::loadFailed), loaded(&s, &Session::loaded);
    QString error;
    QVERIFY(!s.openNow(bad, &error));
    QCOMPARE(failed.count(), 1);
    QCOMPARE(loaded.count(), 0);
    QVERIFY2(error.contains(bad), qPrintable(error));  // the message names the file
    QCOMPARE(failed.first().at(0).toString(), bad);
    QVERIFY(s.hasTrace());
    QCOMPARE(s.path(), trace_);
    QVERIFY(s.selection() == before);
    QVERIFY(s.nextMatch());  // still usable

    // asynchronously, and for files that are not traces at all
    const QString text = dir_.filePath("notes.loupe");
    QFile f(text);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not a trace\n");
    f.close();
    for (const QString& p : {bad, text, dir_.filePath("missing.loupe")}) {
      failed.clear();
      s.open(p);
      QVERIFY(s.waitForLoad());
      QCOMPARE(failed.count(), 1);
      QVERIFY(!failed.first().at(1).toString().isEmpty());
      QCOMPARE(s.path(), trace_);
    }
  }

  void reloadSeesAGrowingTrace() {
    const QString path = dir_.filePath("growing.loupe");
    auto writer = std::make_unique<TraceWriter>(path.toStdString());
    PatternMatcher pm{rule("add_zero", UPat::var("x") + 0, [](const Match& m) { return m["x"]; })};
    auto scope = std::make_unique<ListenerScope>(writer.get());
    UOpPtr a = UOp::variable("a", 0, 10);
    writer->begin_context("kernel", "first");
    graph_rewrite((a + 0) * (a + 0) + 0, pm, {.name = "strip zeros"});
    writer->end_context();
    writer->flush();

    Session s;
    QVERIFY(s.openNow(path));
    QVERIFY(!s.trace().finished);
    const int64_t matches = s.trace().totalMatches();
    QVERIFY(matches >= 2);
    s.nextMatch();
    const Selection sel = s.selection();

    writer->begin_context("kernel", "second");
    graph_rewrite(a + 0, pm, {.name = "strip more"});
    writer->end_context();
    writer->flush();

    QSignalSpy updated(&s, &Session::updated), loaded(&s, &Session::loaded);
    QVERIFY(s.reloadNow());
    QCOMPARE(updated.count(), 1);
    QCOMPARE(loaded.count(), 0);
    QCOMPARE(s.trace().totalMatches(), matches + 1);
    QCOMPARE(s.selection().pass, sel.pass);  // the selection survives
    QCOMPARE(s.selection().step, sel.step);
    QVERIFY(s.currentStep().valid());
    scope.reset();
    writer.reset();
    s.reload();
    QVERIFY(s.waitForLoad());
    QCOMPARE(updated.count(), 2);
    QVERIFY(s.trace().finished);
  }

  void closeClearsEverything() {
    Session s;
    QVERIFY(s.openNow(trace_));
    QSignalSpy closed(&s, &Session::closed);
    s.close();
    QCOMPARE(closed.count(), 1);
    QVERIFY(!s.hasTrace());
    QVERIFY(s.trace().passes.empty());
    QVERIFY(!s.nextMatch());
    QVERIFY(!s.nextKernel());
    QVERIFY(!s.currentStep().valid());
  }
};

QTEST_GUILESS_MAIN(TestSession)
#include "tst_session.moc"
