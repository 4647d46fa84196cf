// The public corpus of tensor programs ($LOUPE_CORPUS/programs.jsonl, recorded from tinygrad), run
// in-process through the script interpreter and the engine: shape, dtype and values within each case's
// atol/rtol (nan matches nan, infinities exactly). Prints the pass rate per category and every failing
// id with its reason; fails when a category falls below its ratchet (set just under the rate reached).
#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>

#include "script/script_runner.h"
#include "script/value.h"
#include "support/error.h"
#include "support/json.h"

using namespace loupe;

namespace {

// Cases (of the category's total) that must pass; raise them as the engine improves, never lower.
const std::map<std::string, int>& ratchet() {
  static const std::map<std::string, int> r = {
      {"creation", 29}, {"unary", 44}, {"binary", 40}, {"intops", 31}, {"compare", 14}, {"cast", 24},
      {"movement", 48}, {"reduce", 42}, {"matmul", 21}, {"edge", 30},  {"weak", 4},
  };
  return r;
}

std::string corpus_path() {
  QByteArray dir = qgetenv("LOUPE_CORPUS");
  if (dir.isEmpty()) {
    QByteArray src = qgetenv("LOUPE_SOURCE_DIR");
    if (src.isEmpty()) return "";
    dir = src + "/../shared/corpus";
  }
  return (dir + "/programs.jsonl").toStdString();
}

std::string canon_dtype(std::string d) {
  static const std::map<std::string, std::string> alias = {
      {"float", "float32"}, {"half", "float16"}, {"double", "float64"}, {"int", "int32"}, {"long", "int64"},
      {"uint", "uint32"},   {"ulong", "uint64"}, {"char", "int8"},      {"uchar", "uint8"}, {"short", "int16"}, {"ushort", "uint16"}};
  if (d.rfind("dtypes.", 0) == 0) d = d.substr(7);
  auto it = alias.find(d);
  return it == alias.end() ? d : it->second;
}

// Empty when the answer holds; otherwise why not (the corpus-check tool's rules).
std::string check(const json::Value& c, const script::EvalResult& r) {
  std::vector<int64_t> shape = c.at("shape").as_ints("shape");
  if (shape != r.shape) return cat("shape ", shape_str(r.shape), " vs ", shape_str(shape));
  std::string want_dtype = canon_dtype(c.at("dtype").as_string());
  if (r.dtype.short_name() != want_dtype) return cat("dtype ", r.dtype.short_name(), " vs ", want_dtype);
  const json::Array& want = c.at("values").as_array("values");
  size_t n = r.dtype.is_float() ? r.floats.size() : r.ints.size();
  if (n != want.size()) return cat(n, " values vs ", want.size());
  double atol = c.find("atol") ? c.at("atol").as_double() : 1e-5, rtol = c.find("rtol") ? c.at("rtol").as_double() : 1e-5;
  for (size_t i = 0; i < n; i++) {
    const json::Value& w = want[i];
    if (!r.dtype.is_float() && w.is_int()) {  // integers exactly (the corpus's integer tolerances are 0)
      int64_t g = r.ints[i];
      if (std::fabs(double(g) - double(w.as_int())) > atol + rtol * std::fabs(double(w.as_int())) || (atol == 0 && g != w.as_int()))
        return cat("value ", i, ": ", g, " vs ", w.as_int());
      continue;
    }
    if (!r.dtype.is_float() && w.is_bool()) {
      if ((r.ints[i] != 0) != w.as_bool()) return cat("value ", i, ": ", r.ints[i] ? "true" : "false", " vs ", w.as_bool() ? "true" : "false");
      continue;
    }
    double g = r.dtype.is_float() ? r.floats[i] : r.dtype == dtypes::uint64 ? double(uint64_t(r.ints[i])) : double(r.ints[i]);
    double wv = w.number_or_nonfinite("value");
    if (std::isnan(wv)) {
      if (!std::isnan(g)) return cat("value ", i, ": ", script::float_repr(g), " vs nan");
      continue;
    }
    if (std::isinf(wv)) {
      if (g != wv) return cat("value ", i, ": ", script::float_repr(g), " vs ", script::float_repr(wv));
      continue;
    }
    if (!std::isfinite(g) || std::fabs(g - wv) > atol + rtol * std::fabs(wv))
      return cat("value ", i, ": ", script::float_repr(g), " vs ", script::float_repr(wv), " (atol ", atol, ", rtol ", rtol, ")");
  }
  return "";
}

} // namespace

class TestCorpusPrograms : public QObject {
  Q_OBJECT
  std::map<std::string, std::vector<json::Value>> cases_;  // by category
  int total_ = 0, pass_ = 0, kernels_ok_ = 0;

private slots:
  void initTestCase() {
    std::string path = corpus_path();
    std::ifstream f(path);
    if (path.empty() || !f) QSKIP("no corpus: set LOUPE_CORPUS to the folder holding programs.jsonl");
    std::string line;
    while (std::getline(f, line)) {
      if (line.empty()) continue;
      json::Value c = json::parse(line);
      std::string category = c.at("category").as_string();
      if (ratchet().count(category)) cases_[category].push_back(c);
    }
    QCOMPARE(cases_.size(), ratchet().size());  // every category is in the corpus
  }

  void programs_data() {
    QTest::addColumn<QString>("category");
    for (const auto& [category, floor] : ratchet()) QTest::newRow(category.c_str()) << QString::fromStdString(category);
  }
  void programs() {
    QFETCH(QString, category);
    const std::vector<json::Value>& cases = cases_[category.toStdString()];
    int pass = 0, kernels_ok = 0;
    for (const json::Value& c : cases) {
      std::string id = c.at("id").as_string();
      std::string why;
      script::EvalResult r;
      try {
        r = script::evaluate(c.at("program").as_string());
        why = check(c, r);
      } catch (const Error& e) {
        why = cat("error: ", e.what());
      } catch (const std::exception& e) {
        why = cat("internal error: ", e.what());
      }
      if (!why.empty()) {
        qInfo().noquote() << QString::fromStdString("  " + id + ": " + why);
        continue;
      }
      pass++;
      int64_t ref = c.at("kernels").as_int() - (c.find("copies") ? c.at("copies").as_int() : 0);
      if (r.kernels <= ref) kernels_ok++;
      else qInfo().noquote() << QString::fromStdString(cat("  ", id, ": correct, but ", r.kernels, " kernels vs tinygrad's ", ref));
    }
    int floor = ratchet().at(category.toStdString());
    int n = int(cases.size());
    qInfo().noquote() << QString("%1 %2/%3 correct (%4%), %5 with no more kernels than tinygrad; ratchet %6")
                             .arg(category, -9)
                             .arg(pass)
                             .arg(n)
                             .arg(100.0 * pass / std::max(1, n), 0, 'f', 1)
                             .arg(kernels_ok)
                             .arg(floor);
    total_ += n;
    pass_ += pass;
    kernels_ok_ += kernels_ok;
    QVERIFY2(pass >= floor, qPrintable(QString("%1 fell below its ratchet: %2 < %3 correct (failing cases listed above)")
                                           .arg(category).arg(pass).arg(floor)));
    if (pass > floor) qInfo().noquote() << QString("%1: %2 correct now, raise its ratchet from %3").arg(category).arg(pass).arg(floor);
  }

  void cleanupTestCase() {
    if (total_ == 0) return;
    qInfo().noquote() << QString("all: %1/%2 correct (%3%), %4 of them with no more kernels than tinygrad")
                             .arg(pass_)
                             .arg(total_)
                             .arg(100.0 * pass_ / total_, 0, 'f', 1)
                             .arg(kernels_ok_);
  }
};

// Cold compile caches make a category take minutes on a small machine: more than Qt Test's default
// 5-minute watchdog per test function.
int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QTEST_FUNCTION_TIMEOUT")) qputenv("QTEST_FUNCTION_TIMEOUT", "1800000");
  TestCorpusPrograms t;
  return QTest::qExec(&t, argc, argv);
}
#include "tst_corpus_programs.moc"
