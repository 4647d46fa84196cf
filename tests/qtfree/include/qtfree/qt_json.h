// QJsonValue, QJsonArray, QJsonObject, QJsonDocument as the engine's tests read the CLI's JSON: parsed
// with the engine's own strict parser (support/json.h), read with Qt's forgiving accessors (a missing
// key is undefined, toInt of a non-integer gives the default).
#pragma once
#include <utility>

#include "qtfree/qt_string.h"
#include "support/json.h"

class QJsonArray;
class QJsonObject;

class QJsonValue {
public:
  enum Type { Null, Bool, Double, String, Array, Object, Undefined };
  QJsonValue() = default;
  QJsonValue(std::nullptr_t) {}
  QJsonValue(bool b) : v_(b) {}
  QJsonValue(int i) : v_(i) {}
  QJsonValue(qint64 i) : v_(i) {}
  QJsonValue(double d) : v_(d) {}
  QJsonValue(const char* s) : v_(s) {}
  QJsonValue(const QString& s) : v_(s.toStdString()) {}
  QJsonValue(const QJsonArray& a);
  QJsonValue(const QJsonObject& o);
  explicit QJsonValue(loupe::json::Value v) : v_(std::move(v)) {}
  static QJsonValue undefined() { QJsonValue u; u.undefined_ = true; return u; }

  Type type() const;
  bool isNull() const { return !undefined_ && v_.is_null(); }
  bool isUndefined() const { return undefined_; }
  bool isBool() const { return type() == Bool; }
  bool isDouble() const { return type() == Double; }
  bool isString() const { return type() == String; }
  bool isArray() const { return type() == Array; }
  bool isObject() const { return type() == Object; }
  bool toBool(bool fallback = false) const { return isBool() ? v_.as_bool() : fallback; }
  int toInt(int fallback = 0) const;  // an integral number within int, else the fallback
  qint64 toInteger(qint64 fallback = 0) const;
  double toDouble(double fallback = 0) const { return isDouble() ? v_.as_double() : fallback; }
  QString toString() const { return isString() ? QString::fromStdString(v_.as_string()) : QString(); }
  QJsonArray toArray() const;
  QJsonObject toObject() const;
  const loupe::json::Value& json() const { return v_; }
  friend bool operator==(const QJsonValue& a, const QJsonValue& b);
  friend bool operator!=(const QJsonValue& a, const QJsonValue& b) { return !(a == b); }

private:
  loupe::json::Value v_;
  bool undefined_ = false;
};

class QJsonArray : public QList<QJsonValue> {
public:
  using QList<QJsonValue>::QList;
  QJsonArray() = default;
  QJsonArray(std::initializer_list<QJsonValue> l) : QList<QJsonValue>(l) {}
  loupe::json::Value json() const;
};

class QJsonObject {
public:
  QJsonObject() = default;
  QJsonObject(std::initializer_list<std::pair<QString, QJsonValue>> members);
  QJsonValue value(const QString& key) const;  // undefined when absent
  QJsonValue operator[](const QString& key) const { return value(key); }
  bool contains(const QString& key) const;
  void insert(const QString& key, const QJsonValue& v);
  QStringList keys() const;
  qsizetype size() const { return qsizetype(members_.size()); }
  bool isEmpty() const { return members_.empty(); }
  loupe::json::Value json() const;
  friend bool operator==(const QJsonObject& a, const QJsonObject& b) { return a.json() == b.json(); }

private:
  std::vector<std::pair<std::string, QJsonValue>> members_;
};

struct QJsonParseError {
  enum ParseError { NoError, IllegalValue };
  ParseError error = NoError;
  QString message;
  QString errorString() const { return error == NoError ? QString("no error occurred") : message; }
};

class QJsonDocument {
public:
  enum JsonFormat { Indented, Compact };
  QJsonDocument() = default;
  explicit QJsonDocument(const QJsonObject& o) : v_(o) {}
  explicit QJsonDocument(const QJsonArray& a) : v_(a) {}
  // A document that is null when the text is not one JSON object or array (`error` says why).
  static QJsonDocument fromJson(const QByteArray& text, QJsonParseError* error = nullptr);
  bool isNull() const { return v_.isNull(); }
  bool isObject() const { return v_.isObject(); }
  bool isArray() const { return v_.isArray(); }
  QJsonObject object() const { return v_.toObject(); }
  QJsonArray array() const { return v_.toArray(); }
  QByteArray toJson(JsonFormat format = Indented) const;

private:
  QJsonValue v_;
};
