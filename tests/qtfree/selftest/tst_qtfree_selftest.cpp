// The Qt-free harness's QtCore subset behaves as Qt's does where the engine's tests rely on it. (That a
// failing check fails is checked from outside the harness: check_fixture.cmake.)
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

class TestQtFreeSelftest : public QObject {
  Q_OBJECT
private slots:
  void string_arg_data() {
    QTest::addColumn<QString>("got");
    QTest::addColumn<QString>("want");
    QTest::newRow("lowest marker, every occurrence") << QString("%2 %1 %1").arg("a") << "%2 a a";
    QTest::newRow("chained") << QString("%1-%2").arg(3).arg("x") << "3-x";
    QTest::newRow("multi") << QString("%2/%1").arg("a", "b") << "b/a";
    QTest::newRow("double g") << QString("%1").arg(0.1 + 0.2) << "0.3";
    QTest::newRow("double precision") << QString("%1").arg(1.0 / 3, 0, 'g', 12) << "0.333333333333";
    QTest::newRow("hex") << QString("%1").arg(255, 0, 16) << "ff";
    QTest::newRow("field width") << QString("[%1]").arg(7, 3) << "[  7]";
    QTest::newRow("number") << QString::number(-12) + QString::number(2.5) << "-122.5";
    QTest::newRow("section") << QString("a\nb\nc").section('\n', 1) << "b\nc";
    QTest::newRow("trimmed") << QString("  x y \n").trimmed() << "x y";
    QTest::newRow("right") << QString("abcdef").right(2) << "ef";
    QTest::newRow("repeated") << QString("ab").repeated(3) << "ababab";
    QTest::newRow("join") << QStringList{"a", "", "c"}.join(",") << "a,,c";
  }
  void string_arg() {
    QFETCH(QString, got);
    QFETCH(QString, want);
    QCOMPARE(got, want);
  }
  void string_split() {
    QCOMPARE(QString("a,,b,").split(',').size(), 4);
    QCOMPARE(QString("a,,b,").split(',', Qt::SkipEmptyParts), (QStringList{"a", "b"}));
    QVERIFY(QString("Hello").contains("ELL", Qt::CaseInsensitive));
    QVERIFY(!QString("Hello").contains("ELL"));
    QCOMPARE(QString("x").toInt(), 0);
    QCOMPARE(QString(" 42 ").toInt(), 42);
    QVERIFY(qgetenv("LOUPE_QTFREE_SURELY_UNSET").isNull());
  }
  void json() {
    QJsonParseError err;
    QJsonDocument d = QJsonDocument::fromJson(R"({"a": [1, 2.5, "s"], "b": {"c": true}})", &err);
    QCOMPARE(err.error, QJsonParseError::NoError);
    QJsonObject o = d.object();
    QCOMPARE(o["a"].toArray().size(), 3);
    QCOMPARE(o["a"].toArray()[0].toInt(), 1);
    QCOMPARE(o["a"].toArray()[1].toInt(-1), -1);  // not integral: the default, as in Qt
    QCOMPARE(o["a"].toArray()[1].toDouble(), 2.5);
    QCOMPARE(o["b"].toObject()["c"].toBool(), true);
    QVERIFY(o["missing"].isUndefined());
    QCOMPARE(QJsonValue(1), QJsonValue(1.0));
    QJsonObject built{{"id", QString::number(3)}, {"n", 2}};
    QCOMPARE(QJsonDocument(built).toJson(QJsonDocument::Compact), QByteArray(R"({"id":"3","n":2})"));
    QVERIFY(QJsonDocument::fromJson("[1,", &err).isNull());
    QVERIFY(err.error != QJsonParseError::NoError);
  }
  void process() {
    QProcess p;
    p.start("/bin/sh", {"-c", "cat; echo err >&2; exit 3"});
    QVERIFY(p.waitForStarted());
    QByteArray big(1 << 20, 'x');  // more than a pipe holds: stdin and stdout must move together
    p.write(big);
    p.closeWriteChannel();
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 3);
    QCOMPARE(p.readAllStandardOutput().size(), big.size());
    QCOMPARE(p.readAllStandardError(), QByteArray("err\n"));
    QProcess missing;
    missing.start("/nonexistent/loupe-program");
    QVERIFY(!missing.waitForStarted());
    QVERIFY(!missing.waitForFinished(1000));
    QProcess merged;
    merged.setProcessChannelMode(QProcess::MergedChannels);
    merged.start("/bin/sh", {"-c", "echo a; echo b >&2"});
    QVERIFY(merged.waitForFinished(30000));
    QCOMPARE(merged.readAll(), QByteArray("a\nb\n"));
    QProcess withEnv;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("LOUPE_QTFREE_PROBE", "seen");
    withEnv.setProcessEnvironment(env);
    withEnv.start("/bin/sh", {"-c", "printf %s \"$LOUPE_QTFREE_PROBE\""});
    QVERIFY(withEnv.waitForFinished(30000));
    QCOMPARE(withEnv.readAllStandardOutput(), QByteArray("seen"));
    QVERIFY(qgetenv("LOUPE_QTFREE_PROBE").isNull());  // the child's, not ours
  }
  void files() {
    QString kept;
    {
      QTemporaryDir dir;
      QVERIFY(dir.isValid());
      kept = dir.path();
      QFile f(dir.filePath("b.txt"));
      QVERIFY(f.open(QIODevice::WriteOnly));
      QCOMPARE(f.write("hello"), qint64(5));
      f.close();
      QFile(dir.filePath("a.cl")).open(QIODevice::WriteOnly);
      QCOMPARE(QDir(dir.path()).entryList({"*.txt", "*.cl"}), (QStringList{"a.cl", "b.txt"}));
      QVERIFY(f.open(QIODevice::ReadOnly));
      QCOMPARE(f.readAll(), QByteArray("hello"));
    }
    QVERIFY(!QFile::exists(kept));  // removed with what it held
    {
      QTemporaryFile t;
      QVERIFY(t.open());
      QCOMPARE(t.write("abc"), qint64(3));
      QVERIFY(t.flush());
      kept = t.fileName();
      QFile back(kept);
      QVERIFY(back.open(QIODevice::ReadOnly));
      QCOMPARE(back.readAll(), QByteArray("abc"));
    }
    QVERIFY(!QFileInfo::exists(kept));
  }
  void fuzzy() {
    QVERIFY(qtfree::fuzzy_equal(1e9, 1e9 + 1e-4));
    QVERIFY(!qtfree::fuzzy_equal(1e9, 1e9 + 1e-2));
    QVERIFY(qtfree::fuzzy_equal(0.0, 1e-13));  // expected near zero: actual must be near zero too
    QVERIFY(!qtfree::fuzzy_equal(0.0, 1e-11));
    QVERIFY(qtfree::fuzzy_equal(std::nan(""), std::nan("")));
    QVERIFY(!qtfree::fuzzy_equal(1.0, std::nan("")));
    QVERIFY(!qtfree::fuzzy_equal(-INFINITY, INFINITY));
  }
};

QTEST_APPLESS_MAIN(TestQtFreeSelftest)
#include "tst_qtfree_selftest.moc"
