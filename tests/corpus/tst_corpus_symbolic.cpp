// The symbolic corpus ($LOUPE_CORPUS/symbolic.jsonl, expressions simplified by tinygrad) through the
// C++ API: every simplified expression must equal its input on every assignment, its proven bounds
// must contain the true range, and at least 95% must be as small as tinygrad's with bounds as tight.
#include <QtTest>

#include <fstream>

#include "ir/eval.h"
#include "ir/print.h"
#include "support/error.h"
#include "support/json.h"
#include "symbolic/expr_parser.h"
#include "symbolic/symbolic.h"

using namespace loupe;

class TestCorpusSymbolic : public QObject {
  Q_OBJECT
private slots:
  void corpus() {
    QString dir = qEnvironmentVariable("LOUPE_CORPUS");
    std::string path = dir.toStdString() + "/symbolic.jsonl";
    std::ifstream in(path);
    if (dir.isEmpty() || !in) QFAIL(qPrintable("cannot open the symbolic corpus '" + QString::fromStdString(path) + "' (LOUPE_CORPUS)"));
    size_t cases = 0, pass = 0, assignments = 0;
    std::string line;
    while (std::getline(in, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      json::Value c = json::parse(line);
      std::string id = c.at("id").as_string();
      VarRanges vars;
      for (const auto& [name, r] : c.at("vars").as_object()) vars[name] = {r.as_array()[0].as_int(), r.as_array()[1].as_int()};
      UOpPtr e, s;
      try {
        e = parse_index_expr(c.at("expr").as_string(), vars);
        s = simplify(e);
      } catch (const std::exception& err) {
        QFAIL(qPrintable(QString::fromStdString(id + ": " + err.what())));
      }
      std::string ctx = id + ": " + render_expr(s);
      // every assignment, in the order of the variables
      std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> vs(vars.begin(), vars.end());
      std::vector<int64_t> cur;
      for (auto& v : vs) cur.push_back(v.second.first);
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      std::string failure;
      while (failure.empty()) {
        VarValues vals;
        for (size_t i = 0; i < vs.size(); i++) vals[vs[i].first] = cur[i];
        int64_t want = eval_int(e, vals);
        int64_t got = 0;
        try {
          got = eval_int(s, vals);
        } catch (const Error& err) {
          failure = ctx + ": " + err.what();
          break;
        }
        if (got != want) failure = ctx + ": got " + std::to_string(got) + " want " + std::to_string(want);
        lo = std::min(lo, want);
        hi = std::max(hi, want);
        assignments++;
        size_t i = 0;
        for (; i < vs.size(); i++) {
          if (++cur[i] <= vs[i].second.second) break;
          cur[i] = vs[i].second.first;
        }
        if (i == vs.size()) break;
      }
      if (!failure.empty()) QFAIL(failure.c_str());
      QVERIFY2(s->vmin() <= lo && s->vmax() >= hi, qPrintable(QString::fromStdString(ctx + ": unsound bounds")));
      // the corpus' own truth agrees with our evaluator
      auto num = [](const json::Value& v) { return v.is_bool() ? int64_t(v.as_bool()) : v.as_int(); };
      QCOMPARE(lo, num(c.at("true_min")));
      QCOMPARE(hi, num(c.at("true_max")));
      bool small = s->toposort().size() <= static_cast<size_t>(c.at("nodes_after").as_int());
      bool tight = s->vmin() >= num(c.at("vmin")) && s->vmax() <= num(c.at("vmax"));
      if (small && tight) pass++;
      else qInfo("weaker: %s (tinygrad %s)", ctx.c_str(), c.at("simplified").as_string().c_str());
      cases++;
    }
    qInfo("%zu cases, %zu assignments, all equivalent; %zu as small and tight as tinygrad (%.1f%%)", cases, assignments,
          pass, 100.0 * pass / std::max<size_t>(cases, 1));
    QVERIFY(cases > 0);
    QVERIFY(pass * 100 >= cases * 95);
  }
};

QTEST_APPLESS_MAIN(TestCorpusSymbolic)
#include "tst_corpus_symbolic.moc"
