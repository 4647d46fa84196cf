// qDebug/qInfo/qWarning, printf-style or streamed, written as Qt Test's plain log writes them
// ("QWARN  : TestClass::function(tag) text"). Streaming puts a space between items and quotes strings
// unless noquote() is asked for, as QDebug does.
#pragma once
#include <sstream>
#include <type_traits>

#include "qtfree/qt_string.h"

namespace qtfree {

enum class MessageKind { Debug, Info, Warning, Critical };
void emit_message(MessageKind kind, const std::string& text);

} // namespace qtfree

class QDebug {
public:
  explicit QDebug(qtfree::MessageKind kind) : kind_(kind) {}
  QDebug(const QDebug&) = delete;
  QDebug(QDebug&& o) noexcept : kind_(o.kind_), text_(std::move(o.text_)), quote_(o.quote_), live_(o.live_) { o.live_ = false; }
  ~QDebug() {
    if (live_) qtfree::emit_message(kind_, text_.str());
  }
  QDebug& noquote() { quote_ = false; return *this; }
  QDebug& quote() { quote_ = true; return *this; }
  QDebug& nospace() { space_ = false; return *this; }
  QDebug& space() { space_ = true; return *this; }
  QDebug& operator<<(const QString& s) { return item(quote_ ? "\"" + s.str() + "\"" : s.str()); }
  QDebug& operator<<(const QByteArray& b) { return item(quote_ ? "\"" + b.str() + "\"" : b.str()); }
  QDebug& operator<<(const char* s) { return item(s ? s : "(null)"); }
  QDebug& operator<<(bool b) { return item(b ? "true" : "false"); }
  QDebug& operator<<(char c) { return item(std::string(1, c)); }
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T> || std::is_pointer_v<T>, int> = 0>
  QDebug& operator<<(T v) {
    std::ostringstream os;
    os << v;
    return item(os.str());
  }

private:
  QDebug& item(const std::string& s) {
    if (!first_ && space_) text_ << ' ';
    text_ << s;
    first_ = false;
    return *this;
  }
  qtfree::MessageKind kind_;
  std::ostringstream text_;
  bool quote_ = true, space_ = true, first_ = true, live_ = true;
};

namespace qtfree {

class MessageLogger {
public:
  QDebug debug() const { return QDebug(MessageKind::Debug); }
  QDebug info() const { return QDebug(MessageKind::Info); }
  QDebug warning() const { return QDebug(MessageKind::Warning); }
  QDebug critical() const { return QDebug(MessageKind::Critical); }
  void debug(const char* format, ...) const __attribute__((format(printf, 2, 3)));
  void info(const char* format, ...) const __attribute__((format(printf, 2, 3)));
  void warning(const char* format, ...) const __attribute__((format(printf, 2, 3)));
  void critical(const char* format, ...) const __attribute__((format(printf, 2, 3)));
};

} // namespace qtfree

#define qDebug ::qtfree::MessageLogger().debug
#define qInfo ::qtfree::MessageLogger().info
#define qWarning ::qtfree::MessageLogger().warning
#define qCritical ::qtfree::MessageLogger().critical
