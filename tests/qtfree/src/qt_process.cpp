#include "qtfree/qt_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

} // namespace

QProcessEnvironment QProcessEnvironment::systemEnvironment() {
  QProcessEnvironment e;
  for (char** v = environ; v && *v; v++) {
    std::string kv = *v;
    size_t eq = kv.find('=');
    if (eq != std::string::npos) e.vars_[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return e;
}

void QProcessEnvironment::insert(const QString& name, const QString& value) { vars_[name.toStdString()] = value.toStdString(); }

void QProcessEnvironment::remove(const QString& name) { vars_.erase(name.toStdString()); }

QString QProcessEnvironment::value(const QString& name, const QString& fallback) const {
  auto it = vars_.find(name.toStdString());
  return it == vars_.end() ? fallback : QString::fromStdString(it->second);
}

std::vector<std::string> QProcessEnvironment::entries() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : vars_) out.push_back(k + "=" + v);
  return out;
}

QProcess::~QProcess() {
  if (pid_ > 0) {
    kill();
    reap(true);
  }
  close_fd(in_);
  close_fd(out_);
  close_fd(err_);
}

void QProcess::start(const QString& program, const QStringList& arguments) {
  int in[2], out[2], err[2], exec_status[2];
  if (pipe(in) || pipe(out) || pipe(err) || pipe2(exec_status, O_CLOEXEC)) {
    error_ = QString::fromStdString(std::string("pipe: ") + std::strerror(errno));
    finished_ = true, exit_status_ = CrashExit, exit_code_ = -1;
    return;
  }
  std::vector<std::string> argv_s{program.toStdString()};
  for (const QString& a : arguments) argv_s.push_back(a.toStdString());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& e : env_) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string cwd = cwd_.toStdString();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(mode_ == MergedChannels ? out[1] : err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) {
      int e = errno;
      (void)!::write(exec_status[1], &e, sizeof e);
      _exit(127);
    }
    if (has_env_) execvpe(argv[0], argv.data(), envp.data());
    else execvp(argv[0], argv.data());
    int e = errno;
    (void)!::write(exec_status[1], &e, sizeof e);
    _exit(127);
  }
  for (int fd : {in[0], out[1], err[1], exec_status[1]}) ::close(fd);
  int child_errno = 0;
  ssize_t got = pid > 0 ? read(exec_status[0], &child_errno, sizeof child_errno) : -1;
  ::close(exec_status[0]);
  if (pid < 0 || got > 0) {  // fork failed, or exec did: QProcess::FailedToStart
    error_ = QString::fromStdString(program.toStdString() + ": " + std::strerror(pid < 0 ? errno : child_errno));
    if (pid > 0) waitpid(pid, nullptr, 0);
    for (int fd : {in[1], out[0], err[0]}) ::close(fd);
    finished_ = true, exit_status_ = CrashExit, exit_code_ = -1;
    return;
  }
  pid_ = pid, in_ = in[1], out_ = out[0], err_ = err[0], started_ = true;
  signal(SIGPIPE, SIG_IGN);  // a child that exits without reading its input must not kill the test
  for (int fd : {in_, out_, err_}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

qint64 QProcess::write(const QByteArray& data) {
  if (in_ < 0) return -1;
  pending_in_ += data.str();
  pump(0);
  return data.size();
}

void QProcess::closeWriteChannel() {
  close_in_ = true;
  if (pending_in_.empty()) close_fd(in_);
}

int QProcess::pump(int timeout_ms) {
  if (close_in_ && pending_in_.empty()) close_fd(in_);
  pollfd fds[3];
  int n = 0;
  if (in_ >= 0 && !pending_in_.empty()) fds[n++] = {in_, POLLOUT, 0};
  if (out_ >= 0) fds[n++] = {out_, POLLIN, 0};
  if (err_ >= 0) fds[n++] = {err_, POLLIN, 0};
  if (n == 0) return -1;
  int ready = poll(fds, nfds_t(n), timeout_ms);
  if (ready <= 0) return 0;
  for (int i = 0; i < n; i++) {
    if (!fds[i].revents) continue;
    if (fds[i].fd == in_) {
      ssize_t w = ::write(in_, pending_in_.data(), pending_in_.size());
      if (w > 0) pending_in_.erase(0, size_t(w));
      else if (w < 0 && errno != EAGAIN) pending_in_.clear(), close_fd(in_);  // the child closed its stdin
      continue;
    }
    int& fd = fds[i].fd == out_ ? out_ : err_;
    std::string& buf = fds[i].fd == out_ ? out_buf_ : err_buf_;
    char chunk[65536];
    ssize_t r = read(fd, chunk, sizeof chunk);
    if (r > 0) buf.append(chunk, size_t(r));
    else if (r == 0 || errno != EAGAIN) close_fd(fd);
  }
  return ready;
}

void QProcess::reap(bool block) {
  if (pid_ <= 0) return;
  int status = 0;
  if (waitpid(pid_, &status, block ? 0 : WNOHANG) != pid_) return;
  pid_ = -1, finished_ = true;
  if (WIFEXITED(status)) exit_status_ = NormalExit, exit_code_ = WEXITSTATUS(status);
  else exit_status_ = CrashExit, exit_code_ = WIFSIGNALED(status) ? WTERMSIG(status) : -1;
}

bool QProcess::waitForFinished(int msecs) {
  if (pid_ <= 0) return false;  // never started, or already waited for (as in Qt)
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(msecs < 0 ? INT32_MAX : msecs);
  while (pid_ > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return false;
    int moved = pump(int(std::min<long long>(left, 50)));
    reap(false);
    if (moved < 0 && pid_ > 0) usleep(2000);  // both streams closed: wait for the exit alone
  }
  while (pump(0) > 0) {}  // what it wrote before it exited (a grandchild holding a pipe does not block this)
  close_fd(in_);
  return true;
}

void QProcess::kill() {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
}

QByteArray QProcess::readAllStandardOutput() {
  if (pid_ > 0) pump(0);
  QByteArray r = QByteArray::fromStdString(out_buf_);
  out_buf_.clear();
  return r;
}

QByteArray QProcess::readAllStandardError() {
  if (pid_ > 0) pump(0);
  QByteArray r = QByteArray::fromStdString(err_buf_);
  err_buf_.clear();
  return r;
}
