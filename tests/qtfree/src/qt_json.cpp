#include "qtfree/qt_json.h"

#include <cmath>
#include <exception>

namespace json = loupe::json;

QJsonValue::QJsonValue(const QJsonArray& a) : v_(a.json()) {}
QJsonValue::QJsonValue(const QJsonObject& o) : v_(o.json()) {}

QJsonValue::Type QJsonValue::type() const {
  if (undefined_) return Undefined;
  switch (v_.type()) {
  case json::Type::Null: return Null;
  case json::Type::Bool: return Bool;
  case json::Type::Int:
  case json::Type::Double: return Double;
  case json::Type::String: return String;
  case json::Type::Array: return Array;
  case json::Type::Object: return Object;
  }
  return Undefined;
}

qint64 QJsonValue::toInteger(qint64 fallback) const {
  if (!isDouble()) return fallback;
  if (v_.is_int()) return v_.as_int();
  double d = v_.as_double();
  return std::trunc(d) == d && std::fabs(d) < 9.2e18 ? qint64(d) : fallback;
}

int QJsonValue::toInt(int fallback) const {
  qint64 i = toInteger(qint64(INT32_MAX) + 1);
  return i >= INT32_MIN && i <= INT32_MAX ? int(i) : fallback;
}

QJsonArray QJsonValue::toArray() const {
  QJsonArray a;
  if (isArray())
    for (const json::Value& e : v_.as_array()) a.push_back(QJsonValue(e));
  return a;
}

QJsonObject QJsonValue::toObject() const {
  QJsonObject o;
  if (isObject())
    for (const auto& [k, e] : v_.as_object()) o.insert(QString::fromStdString(k), QJsonValue(e));
  return o;
}

bool operator==(const QJsonValue& a, const QJsonValue& b) {
  if (a.type() != b.type()) return false;
  if (a.isUndefined()) return true;
  if (a.isDouble()) return a.v_.as_double() == b.v_.as_double();  // 1 == 1.0, as in Qt
  return a.v_ == b.v_;
}

json::Value QJsonArray::json() const {
  json::Array a;
  for (const QJsonValue& v : *this) a.push_back(v.json());
  return json::Value(std::move(a));
}

QJsonObject::QJsonObject(std::initializer_list<std::pair<QString, QJsonValue>> members) {
  for (const auto& [k, v] : members) insert(k, v);
}

QJsonValue QJsonObject::value(const QString& key) const {
  for (const auto& [k, v] : members_)
    if (k == key.str()) return v;
  return QJsonValue::undefined();
}

bool QJsonObject::contains(const QString& key) const { return !value(key).isUndefined(); }

void QJsonObject::insert(const QString& key, const QJsonValue& v) {
  for (auto& [k, old] : members_)
    if (k == key.str()) {
      old = v;
      return;
    }
  members_.push_back({key.str(), v});
}

QStringList QJsonObject::keys() const {
  QStringList r;
  for (const auto& m : members_) r << QString::fromStdString(m.first);
  r.sort();  // Qt keeps an object's keys sorted
  return r;
}

json::Value QJsonObject::json() const {
  json::Object o;
  for (const auto& [k, v] : members_) o.push_back({k, v.json()});
  return json::Value(std::move(o));
}

QJsonDocument QJsonDocument::fromJson(const QByteArray& text, QJsonParseError* error) {
  QJsonDocument d;
  if (error) *error = {};
  try {
    json::Value v = json::parse(text.str());
    if (v.is_object() || v.is_array()) d.v_ = QJsonValue(std::move(v));
    else if (error) *error = {QJsonParseError::IllegalValue, "the document is not an object or an array"};
  } catch (const std::exception& e) {
    if (error) *error = {QJsonParseError::IllegalValue, QString(e.what())};
  }
  return d;
}

namespace {

// Qt's layouts: Compact has no spaces at all; Indented puts each member on a line, four spaces a level.
void write(const json::Value& v, bool indented, int depth, std::string& out) {
  std::string pad = indented ? std::string(size_t(4 * (depth + 1)), ' ') : "";
  std::string close_pad = indented ? std::string(size_t(4 * depth), ' ') : "";
  const char* nl = indented ? "\n" : "";
  if (v.is_array() && v.size() > 0) {
    out += std::string("[") + nl;
    const json::Array& a = v.as_array();
    for (size_t i = 0; i < a.size(); i++) {
      out += pad;
      write(a[i], indented, depth + 1, out);
      out += std::string(i + 1 < a.size() ? "," : "") + nl;
    }
    out += close_pad + "]";
  } else if (v.is_object() && v.size() > 0) {
    out += std::string("{") + nl;
    const json::Object& o = v.as_object();
    for (size_t i = 0; i < o.size(); i++) {
      out += pad + json::quote(o[i].first) + (indented ? ": " : ":");
      write(o[i].second, indented, depth + 1, out);
      out += std::string(i + 1 < o.size() ? "," : "") + nl;
    }
    out += close_pad + "}";
  } else {
    out += v.dump();  // scalars and empty containers: [] and {}
  }
}

} // namespace

QByteArray QJsonDocument::toJson(JsonFormat format) const {
  std::string out;
  if (!v_.isNull() && !v_.isUndefined()) write(v_.json(), format == Indented, 0, out);
  if (format == Indented && !out.empty()) out += "\n";
  return QByteArray::fromStdString(out);
}
