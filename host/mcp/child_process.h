// A child process with pipes on its stdin, stdout and stderr (fork + execve). The child gets
// the host's environment with the given variables merged over it, its own process group (a
// Ctrl-C at the terminal reaches the host, which then stops its children in order), and no
// other descriptor of the host: listening sockets and model files stay with the server.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zen::mcp {

struct ChildSpec {
  std::string command;  // a path, or a name looked up in PATH
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::optional<std::filesystem::path> cwd;
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

  // Writes all of `bytes` to the child's stdin; false when the child closed it (no SIGPIPE).
  bool write_stdin(std::string_view bytes);
  void close_stdin();

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
  std::optional<int> wait_status_;
};

}  // namespace zen::mcp
