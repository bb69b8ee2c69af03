#include "mcp/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <utility>

extern char** environ;

namespace zen::mcp {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void cannot_start(const std::string& command, const std::string& why) {
  throw std::runtime_error("cannot start '" + command + "': " + why);
}

// The executable execve runs: a name without '/' is looked up in PATH (the merged one), here
// in the parent, because the child after fork may only make async-signal-safe calls.
std::string resolve_command(const ChildSpec& spec, const std::string& path_variable) {
  if (spec.command.find('/') != std::string::npos) return spec.command;
  size_t start = 0;
  while (start <= path_variable.size()) {
    size_t end = path_variable.find(':', start);
    if (end == std::string::npos) end = path_variable.size();
    std::string dir = path_variable.substr(start, end - start);
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / spec.command;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate))
      return candidate.string();
    start = end + 1;
  }
  cannot_start(spec.command, "command not found in PATH");
}

std::map<std::string, std::string> merged_environment(const ChildSpec& spec) {
  auto inherited = [&](std::string_view name) {
    return std::find(std::begin(kInheritedByDefault), std::end(kInheritedByDefault), name) !=
               std::end(kInheritedByDefault) ||
           std::find(spec.inherit.begin(), spec.inherit.end(), name) != spec.inherit.end();
  };
  std::map<std::string, std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    size_t eq = text.find('=');
    if (eq == std::string_view::npos || !inherited(text.substr(0, eq))) continue;
    std::string_view value = text.substr(eq + 1);
    if (value.starts_with("()")) continue;  // an exported shell function, as the SDKs skip
    env[std::string(text.substr(0, eq))] = value;
  }
  for (const auto& [key, value] : spec.env) env[key] = value;
  return env;
}

struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("pipe: ") + strerror(errno));
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  void close_read() {
    if (read >= 0) ::close(read);
    read = -1;
  }
  void close_write() {
    if (write >= 0) ::close(write);
    write = -1;
  }
  int release_read() { return std::exchange(read, -1); }
  int release_write() { return std::exchange(write, -1); }
};

// Everything above fd 2 becomes close-on-exec: the exec then drops whatever the host had open
// (sockets, model files) and the error pipe, which is how the parent learns exec succeeded.
void close_other_descriptors_on_exec() {
  if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  long max_fd = ::sysconf(_SC_OPEN_MAX);
  for (int fd = 3; fd < (max_fd > 0 ? max_fd : 4096); ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
}

// Tells the parent which step failed and why (errno), then ends the child.
[[noreturn]] void child_failed(int report, int stage) {
  int values[2] = {stage, errno};
  [[maybe_unused]] auto n = ::write(report, values, sizeof values);
  ::_exit(127);
}

// Runs in the child between fork and execve: async-signal-safe calls only.
[[noreturn]] void exec_child(const char* file, char* const* argv, char* const* envp,
                             const char* cwd, int in, int out, int err, int report) {
  if (::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) child_failed(report, 0);
  ::setpgid(0, 0);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signo : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD})
    ::sigaction(signo, &default_action, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (cwd && ::chdir(cwd) != 0) child_failed(report, 1);
  close_other_descriptors_on_exec();
  ::execve(file, argv, envp);
  child_failed(report, 2);
}

}  // namespace

ChildProcess::ChildProcess(const ChildSpec& spec) {
  auto env = merged_environment(spec);
  std::string file = resolve_command(spec, env.count("PATH") ? env["PATH"] : "/usr/bin:/bin");
  if (spec.cwd && !fs::is_directory(*spec.cwd))
    cannot_start(spec.command, "working directory " + spec.cwd->string() + " does not exist");

  // Everything the child needs is built before fork: it must not allocate afterwards.
  std::vector<std::string> arg_strings{spec.command};
  arg_strings.insert(arg_strings.end(), spec.args.begin(), spec.args.end());
  std::vector<char*> argv;
  for (auto& arg : arg_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (const auto& [key, value] : env) env_strings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (auto& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::string cwd = spec.cwd ? spec.cwd->string() : "";

  Pipe in, out, err, report;
  pid_ = ::fork();
  if (pid_ < 0) cannot_start(spec.command, std::string("fork: ") + strerror(errno));
  if (pid_ == 0)
    exec_child(file.c_str(), argv.data(), envp.data(), spec.cwd ? cwd.c_str() : nullptr, in.read,
               out.write, err.write, report.write);

  report.close_write();
  int failure[2] = {0, 0};
  ssize_t n;
  do n = ::read(report.read, failure, sizeof failure);
  while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof failure)) {
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    const char* stage[] = {"cannot set up its standard streams", "cannot enter", "exec failed"};
    cannot_start(spec.command, std::string(stage[failure[0]]) +
                                   (failure[0] == 1 ? " " + cwd : std::string()) + ": " +
                                   strerror(failure[1]));
  }
  stdin_fd_ = in.release_write();
  // Only our end: writes wait in poll() where they can give up (write_stdin).
  ::fcntl(stdin_fd_, F_SETFL, ::fcntl(stdin_fd_, F_GETFL) | O_NONBLOCK);
  stdout_fd_ = out.release_read();
  stderr_fd_ = err.release_read();
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) terminate();
  for (int fd : {stdin_fd_, stdout_fd_, stderr_fd_}) {
    if (fd >= 0) ::close(fd);
  }
}

ChildProcess::WriteResult ChildProcess::write_stdin(std::string_view bytes,
                                                    const std::function<bool()>& give_up) {
  std::lock_guard lock(stdin_mutex_);
  if (stdin_fd_ < 0) return WriteResult::kClosed;
  // A child that exited makes write() raise SIGPIPE: keep it pending on this thread instead
  // of letting it kill the host, then discard it.
  sigset_t pipe_signal, previous;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  WriteResult result = WriteResult::kWritten;
  while (!bytes.empty()) {
    ssize_t n = ::write(stdin_fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {  // the pipe is full: the child is not reading
      if (stdin_closing_ || (give_up && give_up())) {
        result = WriteResult::kStalled;
        break;
      }
      pollfd writable{stdin_fd_, POLLOUT, 0};
      ::poll(&writable, 1, 50);
      continue;
    }
    if (n < 0) {
      result = WriteResult::kClosed;
      if (errno == EPIPE) {
        timespec no_wait{};
        sigtimedwait(&pipe_signal, nullptr, &no_wait);
      }
      break;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return result;
}

void ChildProcess::close_stdin() {
  stdin_closing_ = true;  // a writer stuck on a full pipe lets go of the mutex
  std::lock_guard lock(stdin_mutex_);
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  stdin_fd_ = -1;
}

void ChildProcess::kill() { signal(SIGKILL); }

bool ChildProcess::wait_for_exit(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (wait_status_) return true;
      if (pid_ <= 0) return true;
      int status = 0;
      pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_ || (r < 0 && errno == ECHILD)) {
        wait_status_ = r == pid_ ? status : 0;
        return true;
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    // Polling keeps one reaper (this mutex) and no SIGCHLD handler in a host that is a library.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::optional<std::string> ChildProcess::exit_description() const {
  std::lock_guard lock(mutex_);
  if (!wait_status_) return std::nullopt;
  int status = *wait_status_;
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(WEXITSTATUS(status));
}

void ChildProcess::signal(int signo) {
  std::lock_guard lock(mutex_);
  // The whole process group: wrappers (npx, uv run) leave the real server as a grandchild.
  if (pid_ > 0 && !wait_status_) ::kill(-pid_, signo);
}

void ChildProcess::terminate(std::chrono::milliseconds grace) {
  close_stdin();
  if (wait_for_exit(grace)) return;
  signal(SIGTERM);
  if (wait_for_exit(grace)) return;
  signal(SIGKILL);
  wait_for_exit(std::chrono::hours(1));
}

}  // namespace zen::mcp
