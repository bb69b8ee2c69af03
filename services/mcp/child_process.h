// A child process with pipes on its stdin, stdout and stderr (fork + execve). The child gets
// a minimal environment (kInheritedByDefault and the `inherit` names, from the host's) with
// the given variables merged over it, never the rest of the host's (API keys, tokens); its
// own process group (a
// Ctrl-C at the terminal reaches the host, which then stops its children in order), and no
// other descriptor of the host: listening sockets and model files stay with the server.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zen::mcp {

// What every child inherits from the host's environment: what the official MCP SDKs pass to
// a stdio server (HOME LOGNAME PATH SHELL TERM USER), plus the locale, TMPDIR and TZ.
inline constexpr const char* kInheritedByDefault[] = {"HOME",     "LOGNAME", "PATH", "SHELL",
                                                      "TERM",     "USER",    "LANG", "LC_ALL",
                                                      "LC_CTYPE", "TMPDIR",  "TZ"};

struct ChildSpec {
  std::string command;  // a path, or a name looked up in PATH
  std::vector<std::string> args;
  std::map<std::string, std::string> env;  // set, over the inherited ones
  std::optional<std::filesystem::path> cwd;
  std::vector<std::string> inherit;  // more host variables to pass on, by name
};

class ChildProcess {
 public:
  // Throws std::runtime_error("cannot start '<command>': <reason>") when the command is not
  // found, the directory does not exist, or exec fails.
  explicit ChildProcess(const ChildSpec& spec);
  ~ChildProcess();  // terminate()
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  int stdout_fd() const { return stdout_fd_; }
  int stderr_fd() const { return stderr_fd_; }

  enum class WriteResult { kWritten, kClosed, kStalled };
  // Writes all of `bytes` to the child's stdin: kClosed when the child closed it (no
  // SIGPIPE); kStalled when the child stops reading and `give_up()` (polled every 50 ms while
  // the pipe is full) says to stop waiting, or close_stdin() is called meanwhile. The rest of
  // `bytes` is then unwritten: the stream is broken. A child that never reads can thus block
  // neither the writer nor close_stdin() (which terminate() and shutdown need).
  WriteResult write_stdin(std::string_view bytes, const std::function<bool()>& give_up);
  void close_stdin();
  void kill();  // SIGKILL to its process group now (it broke the protocol); reaped later

  // Waits up to `timeout` for the child to exit and reaps it; true once it has exited.
  bool wait_for_exit(std::chrono::milliseconds timeout);
  // "status 3" or "signal 9", once exited.
  std::optional<std::string> exit_description() const;

  // Ends the child politely first: stdin closed (an MCP stdio server exits on EOF), then
  // SIGTERM, then SIGKILL, each after `grace`. Returns once it is reaped.
  void terminate(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));

 private:
  void signal(int signo);

  pid_t pid_ = -1;
  int stdin_fd_ = -1, stdout_fd_ = -1, stderr_fd_ = -1;
  mutable std::mutex mutex_;  // guards the reaping, so a signal never reaches a reused pid
  std::mutex stdin_mutex_;
  std::atomic<bool> stdin_closing_{false};  // set before close_stdin() takes stdin_mutex_
  std::optional<int> wait_status_;
};

}  // namespace zen::mcp
