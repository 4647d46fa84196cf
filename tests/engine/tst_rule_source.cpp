// A rule's text as written: the call expression found by name and line in a source (parentheses in
// strings, characters and comments do not count), the engine's rule sources embedded in the library,
// and the trace storing every rule's text so the app shows it without the source tree.
#include <QTemporaryDir>
#include <QtTest>

#include "ir/uop.h"
#include "rewrite/graph_rewrite.h"
#include "rewrite/rule_source.h"
#include "symbolic/symbolic.h"
#include "trace/trace_reader.h"
#include "trace/trace_session.h"

using namespace loupe;

class TestRuleSource : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void callTextAt_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("want");
    QTest::newRow("one line") << "pm{\n  rule(\"a\", x + 0, [](auto& m) { return m[\"x\"]; }),\n};\n" << 2 << "a"
                              << "rule(\"a\", x + 0, [](auto& m) { return m[\"x\"]; })";
    QTest::newRow("continued lines lose the call's indent")
        << "    rule(\"b\", UPat::op(Ops::ADD),\n         [](const Match& m) {\n           return f(m);\n         }),\n" << 1 << "b"
        << "rule(\"b\", UPat::op(Ops::ADD),\n     [](const Match& m) {\n       return f(m);\n     })";
    QTest::newRow("parens in strings, chars and comments")
        << "frule(\"c\", p, [](auto&) { // a ) here\n  /* and ( there */ return g(\")\", ')'); }) + 1;\n" << 1 << "c"
        << "frule(\"c\", p, [](auto&) { // a ) here\n  /* and ( there */ return g(\")\", ')'); })";
    QTest::newRow("name on the next line") << "x = loupe::rule(\n    \"d\", p, fn);\n" << 1 << "d" << "loupe::rule(\n    \"d\", p, fn)";
    QTest::newRow("another rule's name") << "rule(\"e\", p, fn);\n" << 1 << "f" << "";
    QTest::newRow("name too far below") << "rule(\n\n\n  \"g\", p, fn);\n" << 1 << "g" << "";
    QTest::newRow("line past the end") << "rule(\"h\", p, fn);\n" << 9 << "h" << "";
    QTest::newRow("unbalanced") << "rule(\"i\", p, fn(\n" << 1 << "i" << "";
  }
  void callTextAt() {
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(QString, name);
    QFETCH(QString, want);
    QCOMPARE(QString::fromStdString(call_text_at(text.toStdString(), line, name.toStdString())), want);
  }

  // Every rule of the engine that fires in a symbolic pass has its text in the trace, found from the
  // location the compiler recorded, starting at its call and naming it.
  void traceStoresEveryRulesText() {
    QVERIFY(!detail::embedded_rule_sources().empty());
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("rules.loupe")).toStdString();
    TraceSession::start(path);
    auto x = UOp::variable("x", 0, 10), y = UOp::variable("y", 1, 8);
    graph_rewrite(UOp::make(Ops::SINK, dtypes::void_,
                            {floormod(floordiv(x * 4 + y * 4, 4), 16), (x + 0) * 1, lt(floordiv(x * 3 + 3, 3), 5)}),
                  symbolic());
    TraceSession::finish();
    TraceReader r(path);
    int withText = 0;
    for (const TraceRule& rule : r.rules()) {
      QVERIFY2(!rule.source.empty(), rule.name.c_str());
      QVERIFY2(rule.source.find("\"" + rule.name + "\"") != std::string::npos, rule.source.c_str());
      QCOMPARE(rule.source.back(), ')');
      withText++;
    }
    QVERIFY(withText >= 3);
    // a path that is not an engine file finds nothing
    QCOMPARE(rule_source_text("/elsewhere/not_an_engine_file.cpp", 1, "x"), std::string());
  }
};

QTEST_APPLESS_MAIN(TestRuleSource)
#include "tst_rule_source.moc"
