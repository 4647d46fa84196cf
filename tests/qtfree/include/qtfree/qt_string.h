// QString, QByteArray, QList/QVector, QStringList, QMap and the environment functions, as far as the
// engine's tests use them, over std::string (UTF-8) and std::vector. A QString here counts bytes where
// Qt counts UTF-16 units: the tests' texts are ASCII, where both agree.
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

using qint64 = long long;  // Qt's types, so data columns match as they do under Qt
using qsizetype = qint64;
using qlonglong = long long;
using qulonglong = unsigned long long;
using quint64 = unsigned long long;
using qint32 = int32_t;
using quint32 = uint32_t;
using uint = unsigned int;
using qreal = double;

namespace Qt {
enum SplitBehaviorFlags { KeepEmptyParts, SkipEmptyParts };
enum CaseSensitivity { CaseInsensitive, CaseSensitive };
} // namespace Qt

class QString;

// A vector with Qt's signed sizes and the few QList members the tests call.
template <typename T>
class QList : public std::vector<T> {
public:
  using std::vector<T>::vector;
  QList() = default;
  QList(const std::vector<T>& v) : std::vector<T>(v) {}
  qsizetype size() const { return qsizetype(std::vector<T>::size()); }
  qsizetype count() const { return size(); }
  qsizetype length() const { return size(); }
  bool isEmpty() const { return this->empty(); }
  const T& at(qsizetype i) const { return (*this)[size_t(i)]; }
  const T& first() const { return this->front(); }
  const T& last() const { return this->back(); }
  T value(qsizetype i, const T& fallback = T()) const { return i >= 0 && i < size() ? at(i) : fallback; }
  bool contains(const T& v) const { return std::find(this->begin(), this->end(), v) != this->end(); }
  qsizetype indexOf(const T& v) const {
    auto it = std::find(this->begin(), this->end(), v);
    return it == this->end() ? -1 : qsizetype(it - this->begin());
  }
  void append(const T& v) { this->push_back(v); }
  void append(const QList& v) { this->insert(this->end(), v.begin(), v.end()); }
  void removeAt(qsizetype i) { this->erase(this->begin() + i); }
  QList& operator<<(const T& v) { this->push_back(v); return *this; }
  QList& operator<<(const QList& v) { append(v); return *this; }
  QList& operator+=(const T& v) { this->push_back(v); return *this; }
  QList& operator+=(const QList& v) { append(v); return *this; }
  QList operator+(const QList& v) const { QList r = *this; r.append(v); return r; }
};
template <typename T>
using QVector = QList<T>;

class QByteArray {
public:
  QByteArray() = default;
  QByteArray(const char* s) : s_(s ? s : "") {}
  QByteArray(const char* s, qsizetype n) : s_(s, n < 0 ? std::char_traits<char>::length(s) : size_t(n)) {}
  QByteArray(qsizetype n, char c) : s_(size_t(n), c) {}
  static QByteArray fromStdString(const std::string& s) { return QByteArray(s.data(), qsizetype(s.size())); }
  static QByteArray fromHex(const QByteArray& hex);  // pairs of hex digits; others are skipped, as in Qt
  std::string toStdString() const { return s_; }
  const std::string& str() const { return s_; }
  qsizetype size() const { return qsizetype(s_.size()); }
  qsizetype length() const { return size(); }
  bool isEmpty() const { return s_.empty(); }
  bool isNull() const { return null_; }
  const char* constData() const { return s_.c_str(); }
  const char* data() const { return s_.c_str(); }
  char* data() { return s_.data(); }
  operator const char*() const { return s_.c_str(); }  // as in Qt without QT_NO_CAST_FROM_BYTEARRAY
  auto begin() const { return s_.begin(); }
  auto end() const { return s_.end(); }
  auto begin() { return s_.begin(); }
  auto end() { return s_.end(); }
  char at(qsizetype i) const { return s_[size_t(i)]; }
  char operator[](qsizetype i) const { return s_[size_t(i)]; }
  char& operator[](qsizetype i) { return s_[size_t(i)]; }
  void resize(qsizetype n) { s_.resize(size_t(n)); }
  void clear() { s_.clear(); }
  bool contains(const QByteArray& x) const { return s_.find(x.s_) != std::string::npos; }
  bool startsWith(const QByteArray& x) const { return s_.compare(0, x.s_.size(), x.s_) == 0; }
  bool endsWith(const QByteArray& x) const {
    return s_.size() >= x.s_.size() && s_.compare(s_.size() - x.s_.size(), x.s_.size(), x.s_) == 0;
  }
  QByteArray& replace(qsizetype pos, qsizetype len, const QByteArray& with) {
    s_.replace(size_t(pos), size_t(len), with.s_);
    return *this;
  }
  QByteArray trimmed() const;
  QByteArray left(qsizetype n) const { return fromStdString(s_.substr(0, size_t(std::max<qsizetype>(n, 0)))); }
  QByteArray right(qsizetype n) const {
    return n < 0 || n >= size() ? *this : fromStdString(s_.substr(s_.size() - size_t(n)));
  }
  QByteArray& append(const QByteArray& x) { s_ += x.s_; return *this; }
  QByteArray& operator+=(const QByteArray& x) { s_ += x.s_; return *this; }
  QByteArray& operator+=(char c) { s_ += c; return *this; }
  friend QByteArray operator+(QByteArray a, const QByteArray& b) { return a += b; }
  friend QByteArray operator+(QByteArray a, const char* b) { return a += QByteArray(b); }
  friend bool operator==(const QByteArray& a, const QByteArray& b) { return a.s_ == b.s_; }
  friend bool operator!=(const QByteArray& a, const QByteArray& b) { return a.s_ != b.s_; }
  friend bool operator<(const QByteArray& a, const QByteArray& b) { return a.s_ < b.s_; }
  static QByteArray null_value() { QByteArray b; b.null_ = true; return b; }

private:
  std::string s_;
  bool null_ = false;  // qgetenv of an unset variable
};

class QStringList;

class QString {
  template <typename T>
  static constexpr bool is_text = std::is_convertible_v<const T&, const char*> || std::is_same_v<T, QString>;

public:
  QString() = default;
  QString(const char* s) : s_(s ? s : "") {}
  QString(qsizetype n, char c) : s_(size_t(n), c) {}
  QString(char c) : s_(1, c) {}
  static QString fromStdString(const std::string& s) { QString r; r.s_ = s; return r; }
  static QString fromUtf8(const QByteArray& b) { return fromStdString(b.str()); }
  static QString fromUtf8(const char* s, qsizetype n = -1) { return fromUtf8(QByteArray(s, n)); }
  static QString fromLocal8Bit(const QByteArray& b) { return fromUtf8(b); }
  static QString fromLatin1(const char* s) { return QString(s); }
  // QString::number: integers in `base`; doubles printf-style ('g', 'f', 'e') at `precision`.
  template <typename I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  static QString number(I n, int base = 10) {
    return std::is_signed_v<I> ? number_signed(int64_t(n), base) : number_unsigned(uint64_t(n), base);
  }
  static QString number(double d, char format = 'g', int precision = 6);
  std::string toStdString() const { return s_; }
  const std::string& str() const { return s_; }
  QByteArray toUtf8() const { return QByteArray::fromStdString(s_); }
  QByteArray toLocal8Bit() const { return toUtf8(); }
  QByteArray toLatin1() const { return toUtf8(); }

  qsizetype size() const { return qsizetype(s_.size()); }
  qsizetype length() const { return size(); }
  bool isEmpty() const { return s_.empty(); }
  bool isNull() const { return s_.empty(); }
  char at(qsizetype i) const { return s_[size_t(i)]; }
  char operator[](qsizetype i) const { return s_[size_t(i)]; }
  char front() const { return s_.front(); }
  char back() const { return s_.back(); }
  auto begin() const { return s_.begin(); }
  auto end() const { return s_.end(); }
  void clear() { s_.clear(); }
  void resize(qsizetype n) { s_.resize(size_t(n)); }
  void push_back(char c) { s_ += c; }

  bool contains(const QString& x, Qt::CaseSensitivity cs = Qt::CaseSensitive) const { return indexOf(x, 0, cs) >= 0; }
  bool contains(char c) const { return s_.find(c) != std::string::npos; }
  bool startsWith(const QString& x, Qt::CaseSensitivity cs = Qt::CaseSensitive) const;
  bool endsWith(const QString& x, Qt::CaseSensitivity cs = Qt::CaseSensitive) const;
  qsizetype indexOf(const QString& x, qsizetype from = 0, Qt::CaseSensitivity cs = Qt::CaseSensitive) const;
  qsizetype lastIndexOf(const QString& x) const;
  qsizetype count(const QString& x) const;  // non-overlapping occurrences
  QString left(qsizetype n) const;
  QString right(qsizetype n) const;
  QString mid(qsizetype pos, qsizetype n = -1) const;
  QString trimmed() const;
  QString simplified() const;
  QString toLower() const;
  QString toUpper() const;
  QString repeated(qsizetype times) const;
  // The fields between `sep` from `start` to `end` (negative: from the right), joined by sep again.
  QString section(char sep, qsizetype start, qsizetype end = -1) const;
  QStringList split(const QString& sep, Qt::SplitBehaviorFlags behavior = Qt::KeepEmptyParts) const;
  QStringList split(char sep, Qt::SplitBehaviorFlags behavior = Qt::KeepEmptyParts) const;
  QString& replace(const QString& before, const QString& after);
  QString& append(const QString& x) { s_ += x.s_; return *this; }
  QString& prepend(const QString& x) { s_ = x.s_ + s_; return *this; }
  void chop(qsizetype n) { s_.resize(n >= size() ? 0 : s_.size() - size_t(n)); }
  int toInt(bool* ok = nullptr, int base = 10) const;
  qint64 toLongLong(bool* ok = nullptr, int base = 10) const;
  quint64 toULongLong(bool* ok = nullptr, int base = 10) const;
  double toDouble(bool* ok = nullptr) const;

  // arg: replaces every occurrence of the lowest-numbered %N marker (N in 1..99), as Qt does.
  QString arg(const QString& a, int fieldWidth = 0, char fill = ' ') const;
  QString arg(const char* a, int fieldWidth = 0, char fill = ' ') const { return arg(QString(a), fieldWidth, fill); }
  QString arg(char c) const { return arg(QString(c)); }
  QString arg(double d, int fieldWidth = 0, char format = 'g', int precision = -1, char fill = ' ') const;
  template <typename I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, char> && !std::is_same_v<I, bool>, int> = 0>
  QString arg(I n, int fieldWidth = 0, int base = 10, char fill = ' ') const {
    return arg(number(n, base), fieldWidth, fill);
  }
  // Several strings at once: %1, %2, ... (in the order of their numbers) take them in turn.
  template <typename A, typename B, typename... More,
            std::enable_if_t<(is_text<A> && is_text<B> && (true && ... && is_text<More>)), int> = 0>
  QString arg(const A& a, const B& b, const More&... more) const {
    return multi_arg({QString(a), QString(b), QString(more)...});
  }

  QString& operator+=(const QString& x) { s_ += x.s_; return *this; }
  QString& operator+=(char c) { s_ += c; return *this; }
  friend QString operator+(QString a, const QString& b) { return a += b; }
  friend QString operator+(QString a, const char* b) { return a += QString(b); }
  friend QString operator+(const char* a, const QString& b) { return QString(a) += b; }
  friend QString operator+(QString a, char b) { return a += b; }
  friend bool operator==(const QString& a, const QString& b) { return a.s_ == b.s_; }
  friend bool operator==(const QString& a, const char* b) { return a.s_ == (b ? b : ""); }
  friend bool operator==(const char* a, const QString& b) { return b == a; }
  friend bool operator!=(const QString& a, const QString& b) { return a.s_ != b.s_; }
  friend bool operator!=(const QString& a, const char* b) { return !(a == b); }
  friend bool operator<(const QString& a, const QString& b) { return a.s_ < b.s_; }
  friend bool operator>(const QString& a, const QString& b) { return a.s_ > b.s_; }

private:
  static QString number_signed(int64_t n, int base);
  static QString number_unsigned(uint64_t n, int base);
  QString multi_arg(const std::vector<QString>& args) const;
  std::string s_;
};

class QStringList : public QList<QString> {
public:
  using QList<QString>::QList;
  QStringList() = default;
  QStringList(const QList<QString>& l) : QList<QString>(l) {}
  QStringList(std::initializer_list<QString> l) : QList<QString>(l) {}
  QStringList(const QString& s) : QList<QString>{s} {}
  QString join(const QString& sep) const;
  bool contains(const QString& s, Qt::CaseSensitivity cs = Qt::CaseSensitive) const;
  QStringList filter(const QString& s) const;
  void sort() { std::sort(begin(), end()); }
  QStringList& operator<<(const QString& s) { push_back(s); return *this; }
  QStringList& operator<<(const QStringList& l) { append(l); return *this; }
  QStringList operator+(const QStringList& l) const { QStringList r = *this; r.append(l); return r; }
};

template <typename K, typename V>
class QMap : public std::map<K, V> {
public:
  V value(const K& k, const V& fallback = V()) const {
    auto it = this->find(k);
    return it == this->end() ? fallback : it->second;
  }
  bool contains(const K& k) const { return this->count(k) > 0; }
  bool isEmpty() const { return this->empty(); }
};

// What qPrintable returns lives to the end of the full expression, as in Qt.
#define qPrintable(s) (QString(s).toStdString().c_str())
#define qUtf8Printable(s) qPrintable(s)
#define QStringLiteral(s) QString(s)

QByteArray qgetenv(const char* name);  // a null QByteArray when unset
QString qEnvironmentVariable(const char* name, const QString& fallback = {});
int qEnvironmentVariableIntValue(const char* name, bool* ok = nullptr);
bool qEnvironmentVariableIsSet(const char* name);
bool qEnvironmentVariableIsEmpty(const char* name);
bool qputenv(const char* name, const QByteArray& value);
bool qunsetenv(const char* name);
size_t qHash(const QString& s, size_t seed = 0);  // FNV-1a: stable across runs, not Qt's values

std::ostream& operator<<(std::ostream& os, const QString& s);
std::ostream& operator<<(std::ostream& os, const QByteArray& b);
