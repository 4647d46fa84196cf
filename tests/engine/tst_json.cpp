// support/json: strict parsing with positions, exact integers, writing, non-finite numbers.
#include <QtTest>

#include <cmath>

#include "support/error.h"
#include "support/json.h"

using namespace loupe;

class TestJson : public QObject {
  Q_OBJECT
private slots:
  void round_trip_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("dumped");
    QTest::newRow("object") << R"({"a":1,"b":[true,false,null],"c":"x"})" << R"({"a": 1, "b": [true, false, null], "c": "x"})";
    QTest::newRow("nested empty") << "[[],{},[{}]]" << "[[], {}, [{}]]";
    QTest::newRow("int64 extremes") << "[9223372036854775807,-9223372036854775808]" << "[9223372036854775807, -9223372036854775808]";
    QTest::newRow("beyond int64 is a double") << "18446744073709551616" << "18446744073709551616.0";
    QTest::newRow("doubles") << "[0.5,-2.25e3,1E-2,2.0]" << "[0.5, -2250.0, 0.01, 2.0]";
    // (not a raw string: moc misreads a backslash-quote inside one)
    QTest::newRow("escapes") << "\"a\\\"b\\\\c\\/d\\n\\t\\u0041\\u00e9\\ud83d\\ude00\"" << "\"a\\\"b\\\\c/d\\n\\tA\u00e9\U0001F600\"";
    QTest::newRow("control char escaped") << R"("\u0001")" << R"("\u0001")";
    QTest::newRow("whitespace") << " \t\n[ 1 ,\r\n 2 ] \n" << "[1, 2]";
    QTest::newRow("utf8 kept") << "\"\xc3\xa9\xe2\x82\xac\"" << "\"\xc3\xa9\xe2\x82\xac\"";
  }
  void round_trip() {
    QFETCH(QString, text);
    QFETCH(QString, dumped);
    json::Value v = json::parse(text.toStdString());
    QCOMPARE(QString::fromStdString(v.dump()), dumped);
    QVERIFY(json::parse(v.dump()) == v);
  }

  void errors_data() {
    QTest::addColumn<QByteArray>("text");  // bytes: invalid UTF-8 must reach the parser
    QTest::addColumn<QString>("message");
    QTest::newRow("empty") << QByteArray("") << "unexpected end of input, expected a value at line 1, column 1";
    QTest::newRow("trailing comma") << QByteArray("[1,]") << "unexpected character ']', expected a value at line 1, column 4";
    QTest::newRow("second line") << QByteArray("{\"a\": 1,\n  \"b\" 2}") << "expected ':' after object key at line 2, column 7";
    QTest::newRow("leading zero") << QByteArray("012") << "leading zeros are not allowed";
    QTest::newRow("bare word") << QByteArray("[nul]") << "invalid literal (expected 'null') at line 1, column 2";
    QTest::newRow("unterminated") << QByteArray("\"abc") << "unterminated string at line 1, column 1";
    QTest::newRow("raw newline") << QByteArray("\"a\nb\"") << "control character in string";
    QTest::newRow("bad escape") << QByteArray(R"("\x")") << "invalid escape '\\x' in string at line 1, column 2";
    QTest::newRow("lone surrogate") << QByteArray(R"("\ud800")") << "unpaired surrogate";
    QTest::newRow("bad utf8") << QByteArray("\"\xff\"") << "invalid UTF-8 in string";
    QTest::newRow("overlong utf8") << QByteArray("\"\xc0\xaf\"") << "invalid UTF-8 in string";
    QTest::newRow("after value") << QByteArray("[1] x") << "unexpected text after the value at line 1, column 5";
    QTest::newRow("duplicate key") << QByteArray(R"({"a":1,"a":2})") << "duplicate key \"a\" at line 1, column 8";
    QTest::newRow("missing bracket") << QByteArray("[1, 2") << "unexpected end of input in array";
    QTest::newRow("exponent") << QByteArray("1e") << "expected a digit in the exponent";
    QTest::newRow("huge exponent") << QByteArray("1e999") << "number out of range";
    QTest::newRow("nan literal") << QByteArray("NaN") << "unexpected character 'N'";
    QTest::newRow("deep") << QByteArray(2000, '[') << "nesting too deep";
  }
  void errors() {
    QFETCH(QByteArray, text);
    QFETCH(QString, message);
    try {
      json::parse(std::string_view(text.constData(), text.size()));
      QFAIL("no error");
    } catch (const Error& e) {
      QString got = QString::fromUtf8(e.what());
      if (!got.contains(message)) qWarning() << got;
      QVERIFY(got.startsWith("JSON: "));
      QVERIFY(got.contains(message));
    }
  }

  void accessors() {
    json::Value v = json::parse(R"({"n": 3, "f": 2.0, "g": 2.5, "s": "x", "a": [1, 2], "nan": "nan", "inf": "-inf"})");
    QCOMPARE(v.at("n").as_int(), int64_t(3));
    QCOMPARE(v.at("f").as_int(), int64_t(2));  // an integral double is an integer
    QCOMPARE(v.at("a").as_ints(), (std::vector<int64_t>{1, 2}));
    QVERIFY(std::isnan(v.at("nan").number_or_nonfinite()));
    QCOMPARE(v.at("inf").number_or_nonfinite(), -INFINITY);
    QCOMPARE(v.at("g").number_or_nonfinite(), 2.5);
    QVERIFY(v.find("zzz") == nullptr);
    auto throws = [](auto fn, const char* msg) {
      try {
        fn();
      } catch (const Error& e) {
        if (!QString(e.what()).contains(msg)) qWarning() << e.what();
        return QString(e.what()).contains(msg);
      }
      return false;
    };
    QVERIFY(throws([&] { v.at("zzz"); }, "missing field \"zzz\""));
    QVERIFY(throws([&] { v.at("g").as_int("field g"); }, "field g must be an integer, not 2.5"));
    QVERIFY(throws([&] { v.at("s").as_int("field s"); }, "field s must be an integer, not string"));
    QVERIFY(throws([&] { v.at("a").as_string("a"); }, "a must be a string, not array"));
    QVERIFY(throws([&] { json::parse(R"([1, "x"])").as_ints("dims"); }, "dims[1] must be an integer, not string"));
    QVERIFY(throws([&] { v.at("s").number_or_nonfinite("s"); }, "s must be a number or"));
  }

  void writing() {
    json::Value o = json::Value::object();
    o.set("id", "a\"b");
    o.set("x", json::Value::array({1, 2.5, NAN, INFINITY, -INFINITY, nullptr, true}));
    o.set("id", 7);  // replaces, keeps position
    QCOMPARE(o.dump(), std::string(R"({"id": 7, "x": [1, 2.5, "nan", "inf", "-inf", null, true]})"));
    // copies are independent (copy on write)
    json::Value a = json::Value::array({1});
    json::Value b = a;
    b.push_back(2);
    QCOMPARE(a.size(), size_t(1));
    QCOMPARE(b.size(), size_t(2));
    QCOMPARE(json::quote("tab\there\x01"), std::string(R"("tab\there\u0001")"));
    QVERIFY(json::parse("1") == json::parse("1.0"));
    QCOMPARE(json::Value(uint64_t(1) << 63).dump(), std::string("9223372036854775808.0"));
    QCOMPARE(json::Value(size_t(5)).dump(), std::string("5"));
    QCOMPARE(json::Value(-3LL).dump(), std::string("-3"));
    QCOMPARE(json::Value(short(-2)).dump(), std::string("-2"));
    QVERIFY(!(json::parse("[1]") == json::parse("[1, 1]")));
  }
};

QTEST_APPLESS_MAIN(TestJson)
#include "tst_json.moc"
