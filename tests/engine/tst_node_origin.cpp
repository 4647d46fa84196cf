// Provenance in a trace (issue 23): the rewrite that built a node (node_origin) checked against the
// recorded matches of a real program - the origin is never later than the node's first use and its
// replacement holds the node - and a line of the user's program found in the trace (search_trace's
// "from line" hits: the kernels computing its ops, the rewrites that built its nodes).
#include <QTemporaryDir>
#include <QtTest>

#include "ir/metadata.h"
#include "tensor/tensor.h"
#include "trace/node_origin.h"
#include "trace/trace_reader.h"
#include "trace/trace_search.h"
#include "trace/trace_session.h"

using namespace loupe;

namespace {

bool holds(const UOpPtr& root, const UOpPtr& node) {
  for (const UOp* n : root->toposort())
    if (n == node.get()) return true;
  return false;
}

} // namespace

class TestNodeOrigin : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  QString path_;

private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    path_ = dir_.filePath("prov.loupe");
    TraceSession::start(path_.toStdString());
    auto at = [](const char* op, int line) { return intern_metadata({op, "/home/u/model.py", line, "forward"}); };
    std::optional<Tensor> r, e;
    {
      MetadataScope s(at("relu", 12));
      Tensor a = Tensor::arange(64).reshape({8, 8}).cast(dtypes::float32) * 0.01;
      r = a.matmul(a).relu();
    }
    {
      MetadataScope s(at("exp", 13));
      e = r->exp().sum({1});
    }
    e->realize();
    TraceSession::finish();
  }

  void parseSourceLine_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("line");
    QTest::newRow("name") << "model.py:12" << "model.py" << 12;
    QTest::newRow("path") << "/home/u/model.py:7" << "/home/u/model.py" << 7;
    QTest::newRow("no line") << "model.py" << "" << 0;
    QTest::newRow("not a number") << "model.py:x1" << "" << 0;
    QTest::newRow("a rule's file:line with spaces") << "lower load:12" << "" << 0;
    QTest::newRow("nothing before") << ":12" << "" << 0;
  }
  void parseSourceLine() {
    QFETCH(QString, text);
    QFETCH(QString, file);
    QFETCH(int, line);
    auto spec = parse_source_line(text.toStdString());
    QCOMPARE(spec.has_value(), !file.isEmpty());
    if (spec) {
      QCOMPARE(QString::fromStdString(spec->file), file);
      QCOMPARE(spec->line, line);
    }
  }

  // Every match's replacement: its origin is a recorded rewrite or pass input no later than that match,
  // and holds the node.
  void originIsTheFirstRecordThatHoldsTheNode() {
    TraceReader reader(path_.toStdString());
    int checked = 0, byRewrite = 0, asInput = 0;
    for (const TraceContext& c : reader.contexts()) {
      for (const TracePass& p : reader.passes(c.id)) {
        std::vector<std::pair<int64_t, int64_t>> nodes{{p.input_id, -1}};  // (node, the match index that shows it)
        for (const TraceMatch& m : reader.matches(p.id)) nodes.push_back({m.after_id, m.index});
        for (auto [node, index] : nodes) {
          if (checked >= 400) break;
          std::optional<NodeOrigin> o = node_origin(reader, node);
          QVERIFY2(o, qPrintable(QString("node %1 has no origin").arg(node)));
          // recording order: (pass, step) of the origin <= where this record shows the node
          const bool earlier = o->pass_id < p.id || (o->pass_id == p.id && o->step <= index + 1);
          QVERIFY2(earlier, qPrintable(QString("node %1: origin pass %2 step %3 is after pass %4 step %5").arg(node).arg(o->pass_id).arg(o->step).arg(p.id).arg(index + 1)));
          if (o->by_rewrite) {
            byRewrite++;
            const TraceMatch om = reader.match(o->pass_id, o->step - 1);
            QVERIFY(holds(reader.node(om.after_id), reader.node(node)));
            QCOMPARE(om.before_id, o->replaced_id);
            QVERIFY(!o->rule_name.empty());
          } else {
            asInput++;
            QVERIFY(holds(reader.node(reader.pass(o->pass_id).input_id), reader.node(node)));
          }
          checked++;
        }
      }
    }
    QVERIFY2(checked >= 60 && byRewrite > 10 && asInput > 3, qPrintable(QString("%1 %2 %3").arg(checked).arg(byRewrite).arg(asInput)));
    // the key finds the same stored node
    const UOpPtr some = reader.node(reader.passes(reader.contexts().back().id).back().input_id);
    QCOMPARE(node_id_by_key(reader, some->key().hex()).value_or(-1), reader.passes(reader.contexts().back().id).back().input_id);
    QVERIFY(!node_id_by_key(reader, "0123").has_value());
  }

  void aUserLineFindsItsKernelsAndRewrites() {
    TraceReader reader(path_.toStdString());
    auto from = [&](const std::string& text) {
      std::vector<TraceSearchHit> hits;
      for (const TraceSearchHit& h : search_trace(reader, text).hits)
        if (h.kind == TraceSearchHit::Kind::Source) hits.push_back(h);
      return hits;
    };
    const auto exp = from("model.py:13");
    int kernels = 0, rewrites = 0;
    for (const TraceSearchHit& h : exp) {
      if (h.kernel_id >= 0) {
        kernels++;
        QVERIFY2(h.detail.find("exp") != std::string::npos, h.detail.c_str());
      } else {
        rewrites++;
        QVERIFY(h.pass_id >= 0 && h.step >= 1);
        const TraceMatch m = reader.match(h.pass_id, h.step - 1);
        const UOpPtr made = reader.node(m.after_id);
        bool fromLine = false;
        for (const UOp* n : made->toposort()) fromLine |= n->metadata() && metadata_of(n->metadata()).line == 13;
        QVERIFY(fromLine);
      }
    }
    QVERIFY2(kernels >= 1 && rewrites >= 1, qPrintable(QString("%1 kernels, %2 rewrites").arg(kernels).arg(rewrites)));
    QVERIFY(!from("/home/u/model.py:12").empty());  // a path too
    QVERIFY(from("model.py:99").empty());
    QVERIFY(from("odel.py:13").empty());  // the file's whole name, not the end of another's
  }
};

QTEST_GUILESS_MAIN(TestNodeOrigin)
#include "tst_node_origin.moc"
