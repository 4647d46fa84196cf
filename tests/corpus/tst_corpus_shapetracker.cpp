// The tinygrad v0.10.2 ShapeTracker corpus through the C++ API: every mapping exact (from the views
// and from the index/valid expressions), the unsimplified views identical to tinygrad's, and the
// simplified tracker never needing more views.
#include <QtTest>

#include <fstream>

#include "shape/shape_json.h"
#include "shape/shapetracker.h"
#include "support/error.h"
#include "support/json.h"
#include "../engine/tst_shapetracker_support.h"

using namespace loupe;

class TestCorpusShapeTracker : public QObject {
  Q_OBJECT
private slots:
  void corpus() {
    QByteArray dir = qgetenv("LOUPE_CORPUS");
    const std::string path = std::string(dir.constData()) + "/shapetracker.jsonl";
    std::ifstream in(path);
    QVERIFY2(!dir.isEmpty() && in.good(), ("cannot open the ShapeTracker corpus '" + path + "' (LOUPE_CORPUS)").c_str());
    std::string line;
    int cases = 0, exact_views = 0, fewer_views = 0, more_views = 0, mappings = 0, expr_checked = 0;
    QStringList failures;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      json::Value c = json::parse(line);
      std::string id = c.at("id").as_string();
      cases++;
      try {
        ShapeTracker st = ShapeTracker::from_shape(c.at("start").as_ints());
        const json::Array& ops = c.at("ops").as_array();
        for (size_t k = 0; k < ops.size(); k++) st = apply_json_op(st, ops[k], k);
        if (to_ints(st.shape()) != c.at("final_shape").as_ints()) {
          failures << QString::fromStdString(id + ": final shape " + shape_str(st.shape()));
          continue;
        }
        json::Value views = json::Value::array();
        for (const View& v : st.views()) views.push_back(view_to_json(v));
        if (views == c.at("views")) exact_views++;
        else failures << QString::fromStdString(id + ": views " + views.dump() + " vs " + c.at("views").dump());
        ShapeTracker simple = st.simplify();
        int64_t nviews = c.at("nviews").as_int();
        if (int64_t(simple.views().size()) < nviews) fewer_views++;
        if (int64_t(simple.views().size()) > nviews) more_views++;
        if (const json::Value* m = c.find("mapping")) {
          std::vector<int64_t> want = m->as_ints();
          mappings++;
          if (st.mapping() != want) failures << QString::fromStdString(id + ": mapping differs");
          if (simple.mapping() != want) failures << QString::fromStdString(id + ": simplified mapping differs");
          if (want.size() <= 4096) {
            auto [idx, valid] = simple.to_indexed();
            if (loupe::testing::mapping_from_exprs(simple, idx, valid) != want)
              failures << QString::fromStdString(id + ": index/valid mapping differs");
            expr_checked++;
          }
        }
      } catch (const std::exception& e) {
        failures << QString::fromStdString(id + ": " + e.what());
      }
    }
    qInfo("%d cases: %d views identical to tinygrad's, %d mappings exact-checked (%d via index/valid), "
          "simplified: %d with fewer views, %d with more",
          cases, exact_views, mappings, expr_checked, fewer_views, more_views);
    for (const QString& f : failures) qWarning().noquote() << f;
    QVERIFY(cases >= 180);
    QVERIFY(failures.isEmpty());
    QCOMPARE(more_views, 0);
  }
};

QTEST_APPLESS_MAIN(TestCorpusShapeTracker)
#include "tst_corpus_shapetracker.moc"
