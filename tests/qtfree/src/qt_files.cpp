#include "qtfree/qt_files.h"

#include <fnmatch.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>

namespace fs = std::filesystem;

namespace {

// argv[0]'s file name, for temporary folders named like Qt's ("tst_x-AbCdEf").
std::string program_name() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("qtfree") : exe.filename().string();
}

} // namespace

bool QFile::open(QIODevice::OpenMode mode) {
  close();
  const char* how = (mode & QIODevice::Append) ? "ab" : (mode & QIODevice::WriteOnly) ? ((mode & QIODevice::ReadOnly) ? "w+b" : "wb") : "rb";
  f_ = std::fopen(path_.toStdString().c_str(), how);
  if (!f_) error_ = QString::fromStdString(std::strerror(errno));
  return f_ != nullptr;
}

qint64 QFile::write(const QByteArray& data) {
  if (!f_) return -1;
  size_t n = std::fwrite(data.constData(), 1, size_t(data.size()), f_);
  return n == size_t(data.size()) ? qint64(n) : -1;
}

QByteArray QFile::readAll() {
  if (!f_) return {};
  std::string out;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f_)) > 0;) out.append(buf, n);
  return QByteArray::fromStdString(out);
}

QByteArray QFile::read(qint64 maxSize) {
  if (!f_ || maxSize <= 0) return {};
  std::string out(size_t(maxSize), '\0');
  out.resize(std::fread(out.data(), 1, out.size(), f_));
  return QByteArray::fromStdString(out);
}

void QFile::close() {
  if (f_) std::fclose(f_);
  f_ = nullptr;
}

bool QFile::setPermissions(Permissions p) {
  fs::perms want = fs::perms::none;
  if (p & ReadOwner) want |= fs::perms::owner_read;
  if (p & WriteOwner) want |= fs::perms::owner_write;
  if (p & ExeOwner) want |= fs::perms::owner_exec;
  std::error_code ec;
  fs::permissions(path_.toStdString(), want, fs::perm_options::replace, ec);
  return !ec;
}

bool QFile::exists(const QString& path) {
  std::error_code ec;
  return fs::exists(path.toStdString(), ec);
}

bool QFile::remove(const QString& path) { return std::remove(path.toStdString().c_str()) == 0; }

QString QDir::absolutePath() const {
  std::error_code ec;
  return QString::fromStdString(fs::absolute(path_.toStdString(), ec).lexically_normal().string());
}

QString QDir::filePath(const QString& name) const {
  if (name.startsWith("/") || path_.isEmpty()) return name;
  return path_.endsWith("/") ? path_ + name : path_ + "/" + name;
}

bool QDir::exists() const {
  std::error_code ec;
  return fs::is_directory(path_.toStdString(), ec);
}

bool QDir::mkpath(const QString& path) const {
  std::error_code ec;
  fs::create_directories(filePath(path).toStdString(), ec);
  return !ec;
}

QStringList QDir::entryList(const QStringList& nameFilters) const {
  QStringList out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(path_.toStdString(), ec)) {
    std::string name = e.path().filename().string();
    bool keep = nameFilters.isEmpty();
    for (const QString& f : nameFilters) keep |= fnmatch(f.toStdString().c_str(), name.c_str(), 0) == 0;
    if (keep) out << QString::fromStdString(name);
  }
  std::sort(out.begin(), out.end(), [](const QString& a, const QString& b) { return a.toLower() < b.toLower(); });
  return out;
}

QString QDir::tempPath() {
  const char* t = std::getenv("TMPDIR");
  std::string p = t && *t ? t : "/tmp";
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return QString::fromStdString(p);
}

QString QDir::currentPath() {
  std::error_code ec;
  return QString::fromStdString(fs::current_path(ec).string());
}

bool QFileInfo::exists() const { return QFile::exists(path_); }
bool QFileInfo::exists(const QString& path) { return QFile::exists(path); }

bool QFileInfo::isExecutable() const { return !path_.isEmpty() && access(path_.toStdString().c_str(), X_OK) == 0; }

bool QFileInfo::isFile() const {
  std::error_code ec;
  return fs::is_regular_file(path_.toStdString(), ec);
}

bool QFileInfo::isDir() const {
  std::error_code ec;
  return fs::is_directory(path_.toStdString(), ec);
}

QString QFileInfo::fileName() const { return QString::fromStdString(fs::path(path_.toStdString()).filename().string()); }

QTemporaryDir::QTemporaryDir() {
  std::string tmpl = QDir::tempPath().toStdString() + "/" + program_name() + "-XXXXXX";
  std::unique_ptr<char[]> buf(new char[tmpl.size() + 1]);
  std::memcpy(buf.get(), tmpl.c_str(), tmpl.size() + 1);
  if (mkdtemp(buf.get())) path_ = QString(buf.get());
  else error_ = QString::fromStdString(tmpl + ": " + std::strerror(errno));
}

QTemporaryDir::~QTemporaryDir() {
  if (auto_remove_) remove();
}

bool QTemporaryDir::remove() {
  if (path_.isEmpty()) return false;
  std::error_code ec;
  fs::remove_all(path_.toStdString(), ec);
  return !ec;
}

QTemporaryFile::~QTemporaryFile() {
  if (f_) std::fclose(f_);
  if (!path_.isEmpty()) std::remove(path_.toStdString().c_str());
}

bool QTemporaryFile::open() {
  if (f_) return true;
  std::string tmpl = QDir::tempPath().toStdString() + "/" + program_name() + ".XXXXXX";
  int fd = mkstemp(tmpl.data());
  if (fd < 0) return false;
  f_ = fdopen(fd, "w+b");
  path_ = QString::fromStdString(tmpl);
  return f_ != nullptr;
}

qint64 QTemporaryFile::write(const QByteArray& data) {
  if (!f_) return -1;
  return std::fwrite(data.constData(), 1, size_t(data.size()), f_) == size_t(data.size()) ? data.size() : -1;
}

bool QTemporaryFile::flush() { return f_ && std::fflush(f_) == 0; }

QString QStandardPaths::findExecutable(const QString& name, const QStringList& paths) {
  if (name.contains('/')) return QFileInfo(name).isExecutable() ? name : QString();
  QStringList dirs = paths;
  if (dirs.isEmpty()) {
    const char* path = std::getenv("PATH");
    dirs = QString(path ? path : "").split(':', Qt::SkipEmptyParts);
  }
  for (const QString& d : dirs) {
    QString candidate = QDir(d).filePath(name);
    if (QFileInfo(candidate).isFile() && QFileInfo(candidate).isExecutable()) return QDir(candidate).absolutePath();
  }
  return {};
}

qint64 QCoreApplication::applicationPid() { return qint64(getpid()); }

QRegularExpressionMatch QRegularExpression::match(const QString& text) const {
  const std::string subject = text.toStdString();
  std::smatch m;
  std::vector<std::string> captures;
  if (std::regex_search(subject, m, re_))
    for (const auto& c : m) captures.push_back(c.str());
  return QRegularExpressionMatch(std::move(captures));
}
