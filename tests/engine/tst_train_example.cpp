// The bundled training example (resources/examples/train_cnn.py): it parses, runs through the engine
// and through loupe-cli, and its loss falls over the 20 SGD steps.
#include <QtTest>

#include <cmath>

#include "script/script_runner.h"
#include "support/error.h"

using namespace loupe;

namespace {

QString example_path() {
  QString root = qEnvironmentVariable("LOUPE_SOURCE_DIR");
  if (root.isEmpty()) root = QFileInfo(QStringLiteral(__FILE__)).absoluteDir().filePath("../..");
  return QDir(root).filePath("resources/examples/train_cnn.py");
}

QByteArray example_source() {
  QFile f(example_path());
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll();
}

// The 20 losses real tinygrad computes for the same script (current tinygrad on its default device here, OpenCL; float32):
//   from tinygrad import Tensor, dtypes; exec(open("train_cnn.py").read()); print(out.tolist())
const std::vector<double> kTinygradLosses = {
    0.7117822170257568, 0.5883809924125671, 0.45493581891059875, 0.3392499089241028, 0.28980886936187744,
    0.243624746799469, 0.17992709577083588, 0.12481016665697098, 0.08481696993112564, 0.057591572403907776,
    0.04113323614001274, 0.03068138286471367, 0.0239978339523077, 0.019410572946071625, 0.01610020361840725,
    0.013638941571116447, 0.011746314354240894, 0.010262704454362392, 0.00907535944133997, 0.008112510666251183};

} // namespace

class TestTrainExample : public QObject {
  Q_OBJECT
private slots:
  void loss_falls() {
    QByteArray src = example_source();
    QVERIFY2(!src.isEmpty(), qPrintable("cannot read " + example_path()));
    script::EvalResult r;
    try {
      r = script::evaluate(src.toStdString());
    } catch (const Error& e) {
      QFAIL(e.what());
    }
    QCOMPARE(r.shape, (Shape{20}));
    QCOMPARE(r.dtype, dtypes::float32);
    const std::vector<double>& loss = r.floats;
    QCOMPARE(loss.size(), size_t(20));
    for (double l : loss) QVERIFY2(std::isfinite(l) && l > 0, qPrintable(QString::number(l)));
    // two balanced classes: an untrained model starts near ln 2
    QVERIFY2(std::abs(loss.front() - std::log(2.0)) < 0.1, qPrintable(QString::number(loss.front())));
    // the honest bound: the last loss is under 0.7x the first, and the curve mostly goes down
    QVERIFY2(loss.back() < 0.7 * loss.front(), qPrintable(QString("%1 -> %2").arg(loss.front()).arg(loss.back())));
    int down = 0;
    for (size_t i = 1; i < loss.size(); i++) down += loss[i] < loss[i - 1];
    QVERIFY2(down >= 15, qPrintable(QString("only %1 of 19 steps lowered the loss").arg(down)));
    // the same numbers as tinygrad, up to float32 rounding (the engine may sum in another order)
    for (size_t i = 0; i < loss.size(); i++)
      QVERIFY2(std::abs(loss[i] - kTinygradLosses[i]) <= 1e-6 + 1e-4 * kTinygradLosses[i],
               qPrintable(QString("step %1: %2, tinygrad %3").arg(i + 1).arg(loss[i], 0, 'g', 10).arg(kTinygradLosses[i], 0, 'g', 10)));
  }

  void runs_through_the_cli() {
    QString cli = qEnvironmentVariable("LOUPE_CLI");
    if (cli.isEmpty()) QSKIP("LOUPE_CLI is not set (CTest sets it)");
    QProcess p;
    p.start(cli, {"eval", example_path(), "--json"});
    QVERIFY(p.waitForFinished(600000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    QJsonObject o = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    QCOMPARE(o.value("dtype").toString(), QString("float32"));
    QJsonArray values = o.value("values").toArray();
    QCOMPARE(values.size(), 20);
    QVERIFY(values.last().toDouble() < 0.7 * values.first().toDouble());
  }
};

QTEST_APPLESS_MAIN(TestTrainExample)
#include "tst_train_example.moc"
