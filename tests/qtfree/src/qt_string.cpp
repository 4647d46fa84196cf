#include "qtfree/qt_string.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

char lower(char c) { return char(std::tolower(static_cast<unsigned char>(c))); }

bool equal_at(const std::string& s, size_t pos, const std::string& x, Qt::CaseSensitivity cs) {
  if (pos + x.size() > s.size()) return false;
  for (size_t i = 0; i < x.size(); i++)
    if (cs == Qt::CaseSensitive ? s[pos + i] != x[i] : lower(s[pos + i]) != lower(x[i])) return false;
  return true;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) b++;
  while (e > b && is_space(s[e - 1])) e--;
  return s.substr(b, e - b);
}

// The position and length of every occurrence of the lowest %N marker (N in 1..99), and that N.
struct Markers {
  int number = 100;
  std::vector<std::pair<size_t, size_t>> at;
};

Markers lowest_markers(const std::string& s) {
  Markers m;
  for (size_t i = 0; i + 1 < s.size(); i++) {
    if (s[i] != '%' || !std::isdigit(static_cast<unsigned char>(s[i + 1]))) continue;
    int n = s[i + 1] - '0';
    size_t len = 2;
    if (i + 2 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 2]))) n = n * 10 + (s[i + 2] - '0'), len = 3;
    if (n == 0) continue;
    if (n < m.number) m.number = n, m.at.clear();
    if (n == m.number) m.at.push_back({i, len});
  }
  return m;
}

std::string padded(const std::string& s, int fieldWidth, char fill) {
  size_t w = size_t(std::abs(fieldWidth));
  if (s.size() >= w) return s;
  std::string pad(w - s.size(), fill);
  return fieldWidth > 0 ? pad + s : s + pad;
}

std::string digits(uint64_t n, int base) {
  if (n == 0) return "0";
  std::string r;
  for (; n; n /= uint64_t(base)) r.insert(r.begin(), "0123456789abcdefghijklmnopqrstuvwxyz"[n % uint64_t(base)]);
  return r;
}

} // namespace

QByteArray QByteArray::fromHex(const QByteArray& hex) {
  std::string out;
  int half = -1;
  for (char c : hex.s_) {
    int v = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
          : (lower(c) >= 'a' && lower(c) <= 'f') ? lower(c) - 'a' + 10 : -1;
    if (v < 0) continue;
    if (half < 0) half = v;
    else out += char(half * 16 + v), half = -1;
  }
  return fromStdString(out);
}

QByteArray QByteArray::trimmed() const { return fromStdString(trim(s_)); }

QString QString::number_signed(int64_t n, int base) {
  std::string d = digits(n < 0 ? uint64_t(0) - uint64_t(n) : uint64_t(n), base);
  return fromStdString(n < 0 ? "-" + d : d);
}

QString QString::number_unsigned(uint64_t n, int base) { return fromStdString(digits(n, base)); }

QString QString::number(double d, char format, int precision) {
  char fmt[8];
  std::snprintf(fmt, sizeof fmt, "%%.*%c", format);
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, precision < 0 ? 6 : precision, d);
  return QString(buf);
}

bool QString::startsWith(const QString& x, Qt::CaseSensitivity cs) const { return equal_at(s_, 0, x.s_, cs); }

bool QString::endsWith(const QString& x, Qt::CaseSensitivity cs) const {
  return s_.size() >= x.s_.size() && equal_at(s_, s_.size() - x.s_.size(), x.s_, cs);
}

qsizetype QString::indexOf(const QString& x, qsizetype from, Qt::CaseSensitivity cs) const {
  for (size_t i = size_t(std::max<qsizetype>(from, 0)); i + x.s_.size() <= s_.size(); i++)
    if (equal_at(s_, i, x.s_, cs)) return qsizetype(i);
  return -1;
}

qsizetype QString::lastIndexOf(const QString& x) const {
  size_t p = s_.rfind(x.s_);
  return p == std::string::npos ? -1 : qsizetype(p);
}

qsizetype QString::count(const QString& x) const {
  if (x.s_.empty()) return size() + 1;
  qsizetype n = 0;
  for (size_t p = s_.find(x.s_); p != std::string::npos; p = s_.find(x.s_, p + x.s_.size())) n++;
  return n;
}

QString QString::left(qsizetype n) const { return n < 0 ? *this : fromStdString(s_.substr(0, size_t(n))); }

QString QString::right(qsizetype n) const {
  return n < 0 || n >= size() ? *this : fromStdString(s_.substr(s_.size() - size_t(n)));
}

QString QString::mid(qsizetype pos, qsizetype n) const {
  if (pos >= size()) return {};
  pos = std::max<qsizetype>(pos, 0);
  return fromStdString(n < 0 ? s_.substr(size_t(pos)) : s_.substr(size_t(pos), size_t(n)));
}

QString QString::trimmed() const { return fromStdString(trim(s_)); }

QString QString::simplified() const {
  std::string out;
  for (char c : trim(s_)) {
    if (is_space(c)) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  return fromStdString(out);
}

QString QString::toLower() const {
  std::string r = s_;
  for (char& c : r) c = lower(c);
  return fromStdString(r);
}

QString QString::toUpper() const {
  std::string r = s_;
  for (char& c : r) c = char(std::toupper(static_cast<unsigned char>(c)));
  return fromStdString(r);
}

QString QString::repeated(qsizetype times) const {
  std::string r;
  for (qsizetype i = 0; i < times; i++) r += s_;
  return fromStdString(r);
}

QString QString::section(char sep, qsizetype start, qsizetype end) const {
  QStringList fields = split(sep);
  qsizetype n = fields.size();
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0 || start >= n || end < start) return {};
  QStringList kept;
  for (qsizetype i = start; i <= std::min(end, n - 1); i++) kept << fields[size_t(i)];
  return kept.join(QString(sep));
}

QStringList QString::split(const QString& sep, Qt::SplitBehaviorFlags behavior) const {
  QStringList out;
  auto add = [&](std::string part) {
    if (behavior == Qt::KeepEmptyParts || !part.empty()) out << fromStdString(std::move(part));
  };
  if (sep.s_.empty()) {  // Qt: an empty separator splits between characters, with an empty field at each end
    add("");
    for (char c : s_) add(std::string(1, c));
    add("");
    return out;
  }
  size_t from = 0;
  for (size_t p = s_.find(sep.s_); p != std::string::npos; p = s_.find(sep.s_, from)) {
    add(s_.substr(from, p - from));
    from = p + sep.s_.size();
  }
  add(s_.substr(from));
  return out;
}

QStringList QString::split(char sep, Qt::SplitBehaviorFlags behavior) const { return split(QString(sep), behavior); }

QString& QString::replace(const QString& before, const QString& after) {
  if (before.s_.empty()) return *this;
  std::string out;
  size_t from = 0;
  for (size_t p = s_.find(before.s_); p != std::string::npos; p = s_.find(before.s_, from)) {
    out += s_.substr(from, p - from) + after.s_;
    from = p + before.s_.size();
  }
  s_ = out + s_.substr(from);
  return *this;
}

int QString::toInt(bool* ok, int base) const { return int(toLongLong(ok, base)); }

qint64 QString::toLongLong(bool* ok, int base) const {
  std::string t = trim(s_);
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(t.c_str(), &end, base);
  bool good = !t.empty() && end && *end == '\0' && errno == 0;
  if (ok) *ok = good;
  return good ? v : 0;
}

quint64 QString::toULongLong(bool* ok, int base) const {
  std::string t = trim(s_);
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(t.c_str(), &end, base);
  bool good = !t.empty() && t[0] != '-' && end && *end == '\0' && errno == 0;
  if (ok) *ok = good;
  return good ? v : 0;
}

double QString::toDouble(bool* ok) const {
  std::string t = trim(s_);
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  bool good = !t.empty() && end && *end == '\0';
  if (ok) *ok = good;
  return good ? v : 0.0;
}

QString QString::arg(const QString& a, int fieldWidth, char fill) const {
  Markers m = lowest_markers(s_);
  if (m.at.empty()) {
    std::fprintf(stderr, "QString::arg: Argument missing: \"%s\", %s\n", s_.c_str(), a.s_.c_str());
    return *this;
  }
  std::string value = padded(a.s_, fieldWidth, fill), out;
  size_t from = 0;
  for (auto [pos, len] : m.at) {
    out += s_.substr(from, pos - from) + value;
    from = pos + len;
  }
  return fromStdString(out + s_.substr(from));
}

QString QString::arg(double d, int fieldWidth, char format, int precision, char fill) const {
  return arg(number(d, format, precision), fieldWidth, fill);
}

QString QString::multi_arg(const std::vector<QString>& args) const {
  QString r = *this;
  for (const QString& a : args) r = r.arg(a);
  return r;
}

QString QStringList::join(const QString& sep) const {
  std::string r;
  for (size_t i = 0; i < std::vector<QString>::size(); i++) r += (i ? sep.str() : "") + (*this)[i].str();
  return QString::fromStdString(r);
}

bool QStringList::contains(const QString& s, Qt::CaseSensitivity cs) const {
  for (const QString& x : *this)
    if (x.size() == s.size() && x.startsWith(s, cs)) return true;
  return false;
}

QStringList QStringList::filter(const QString& s) const {
  QStringList r;
  for (const QString& x : *this)
    if (x.contains(s)) r << x;
  return r;
}

QByteArray qgetenv(const char* name) {
  const char* v = std::getenv(name);
  return v ? QByteArray(v) : QByteArray::null_value();
}

QString qEnvironmentVariable(const char* name, const QString& fallback) {
  const char* v = std::getenv(name);
  return v ? QString(v) : fallback;
}

int qEnvironmentVariableIntValue(const char* name, bool* ok) {
  const char* v = std::getenv(name);
  bool good = false;
  int n = v ? QString(v).toInt(&good, 0) : 0;
  if (ok) *ok = good;
  return good ? n : 0;
}

bool qEnvironmentVariableIsSet(const char* name) { return std::getenv(name) != nullptr; }

bool qEnvironmentVariableIsEmpty(const char* name) {
  const char* v = std::getenv(name);
  return !v || !*v;
}

bool qputenv(const char* name, const QByteArray& value) { return setenv(name, value.constData(), 1) == 0; }

bool qunsetenv(const char* name) { return unsetenv(name) == 0; }

size_t qHash(const QString& s, size_t seed) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char c : s.str()) h = (h ^ c) * 1099511628211ull;
  return size_t(h);
}

std::ostream& operator<<(std::ostream& os, const QString& s) { return os << s.str(); }
std::ostream& operator<<(std::ostream& os, const QByteArray& b) { return os << b.str(); }
