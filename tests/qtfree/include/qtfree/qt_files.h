// QFile, QDir, QFileInfo, QTemporaryDir, QStandardPaths, QElapsedTimer, QCoreApplication's pid and
// QRegularExpression, as far as the engine's tests use them, over <filesystem>, <fstream> and <regex>.
#pragma once
#include <chrono>
#include <cstdio>
#include <regex>

#include "qtfree/qt_string.h"

class QIODevice {
public:
  enum OpenModeFlag { NotOpen = 0, ReadOnly = 1, WriteOnly = 2, ReadWrite = 3, Append = 4, Truncate = 8, Text = 16 };
  using OpenMode = int;
};

class QFile {
public:
  enum Permission { ReadOwner = 0x4000, WriteOwner = 0x2000, ExeOwner = 0x1000 };
  using Permissions = int;
  explicit QFile(const QString& path) : path_(path) {}
  ~QFile() { close(); }
  QFile(const QFile&) = delete;
  QFile& operator=(const QFile&) = delete;
  bool open(QIODevice::OpenMode mode);
  bool isOpen() const { return f_ != nullptr; }
  qint64 write(const QByteArray& data);
  qint64 write(const char* data) { return write(QByteArray(data)); }
  QByteArray readAll();
  QByteArray read(qint64 maxSize);
  void close();
  QString fileName() const { return path_; }
  QString errorString() const { return error_; }
  bool exists() const { return exists(path_); }
  bool setPermissions(Permissions p);
  static bool exists(const QString& path);
  static bool remove(const QString& path);

private:
  QString path_, error_;
  std::FILE* f_ = nullptr;
};

class QDir {
public:
  QDir(const QString& path = ".") : path_(path) {}
  QString path() const { return path_; }
  QString absolutePath() const;
  QString filePath(const QString& name) const;  // name itself when absolute, else path/name
  QString absoluteFilePath(const QString& name) const { return QDir(absolutePath()).filePath(name); }
  bool exists() const;
  bool mkpath(const QString& path) const;
  // The names in the folder that match one of the wildcard filters (all when none), sorted by name.
  QStringList entryList(const QStringList& nameFilters = {}) const;
  static QString tempPath();  // $TMPDIR, else /tmp
  static QDir temp() { return QDir(tempPath()); }
  static QString currentPath();

private:
  QString path_;
};

class QFileInfo {
public:
  explicit QFileInfo(const QString& path) : path_(path) {}
  bool exists() const;
  static bool exists(const QString& path);
  bool isExecutable() const;
  bool isFile() const;
  bool isDir() const;
  QString fileName() const;

private:
  QString path_;
};

// A fresh folder under the temporary path, removed with what it holds when this goes.
class QTemporaryDir {
public:
  QTemporaryDir();
  ~QTemporaryDir();
  QTemporaryDir(const QTemporaryDir&) = delete;
  QTemporaryDir& operator=(const QTemporaryDir&) = delete;
  bool isValid() const { return !path_.isEmpty(); }
  QString path() const { return path_; }
  QString filePath(const QString& name) const { return QDir(path_).filePath(name); }
  bool autoRemove() const { return auto_remove_; }
  void setAutoRemove(bool b) { auto_remove_ = b; }
  bool remove();
  QString errorString() const { return error_; }

private:
  QString path_, error_;
  bool auto_remove_ = true;
};

// A file under the temporary path made by open(), removed when this goes.
class QTemporaryFile {
public:
  QTemporaryFile() = default;
  ~QTemporaryFile();
  QTemporaryFile(const QTemporaryFile&) = delete;
  QTemporaryFile& operator=(const QTemporaryFile&) = delete;
  bool open();
  qint64 write(const QByteArray& data);
  qint64 write(const char* data) { return write(QByteArray(data)); }
  bool flush();
  QString fileName() const { return path_; }

private:
  QString path_;
  std::FILE* f_ = nullptr;
};

namespace QStandardPaths {
// The full path of an executable found in `paths`, or on PATH when `paths` is empty; empty when none.
QString findExecutable(const QString& name, const QStringList& paths = {});
} // namespace QStandardPaths

class QElapsedTimer {
public:
  void start() { t0_ = std::chrono::steady_clock::now(); }
  qint64 restart() { qint64 ms = elapsed(); start(); return ms; }
  qint64 nsecsElapsed() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0_).count();
  }
  qint64 elapsed() const { return nsecsElapsed() / 1000000; }
  bool isValid() const { return t0_ != std::chrono::steady_clock::time_point{}; }

private:
  std::chrono::steady_clock::time_point t0_{};
};

namespace QCoreApplication {
qint64 applicationPid();
} // namespace QCoreApplication

// ECMAScript regular expressions (std::regex): the tests' patterns mean the same in PCRE.
class QRegularExpressionMatch {
public:
  explicit QRegularExpressionMatch(std::vector<std::string> captures) : captures_(std::move(captures)) {}
  bool hasMatch() const { return !captures_.empty(); }
  QString captured(int i = 0) const {
    return i >= 0 && size_t(i) < captures_.size() ? QString::fromStdString(captures_[size_t(i)]) : QString();
  }

private:
  std::vector<std::string> captures_;  // empty: no match
};

class QRegularExpression {
public:
  explicit QRegularExpression(const QString& pattern) : re_(pattern.toStdString()) {}
  QRegularExpressionMatch match(const QString& text) const;

private:
  std::regex re_;
};
