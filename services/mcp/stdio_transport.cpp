#include "mcp/stdio_transport.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

namespace zen::mcp {

namespace {

using nlohmann::json;

constexpr size_t kMaxMessageBytes = 64 << 20;  // a larger line is dropped, not buffered
constexpr size_t kMaxLogLineBytes = 1024;      // of a stderr line; the rest is not logged

// Reads what is there on `fd`; 0 at EOF, or when `wake_fd` became readable (shutdown) and
// `fd` has nothing more: what the child wrote before it ended is still read.
ssize_t read_or_wake(int fd, int wake_fd, char* buffer, size_t size) {
  for (;;) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    int r = ::poll(fds, 2, -1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return 0;
    if (fds[0].revents == 0) return 0;  // woken, and no data or EOF pending
    ssize_t n = ::read(fd, buffer, size);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    return n < 0 ? 0 : n;
  }
}

// Splits a byte stream into lines, calling on_line(line, dropped) for each complete one
// (without "\n" or a trailing "\r"). Only the first `limit` bytes of a line are kept, so a
// peer that never ends a line cannot grow our memory: `dropped` counts the bytes cut off.
class LineSplitter {
 public:
  explicit LineSplitter(size_t limit) : limit_(limit) {}

  template <class OnLine>
  void feed(std::string_view bytes, OnLine&& on_line) {
    while (!bytes.empty()) {
      const size_t newline = bytes.find('\n');
      const std::string_view piece = bytes.substr(0, newline);
      const size_t keep = std::min(piece.size(), limit_ - std::min(limit_, pending_.size()));
      pending_.append(piece.substr(0, keep));
      dropped_ += piece.size() - keep;
      if (newline == std::string_view::npos) return;
      if (!pending_.empty() && pending_.back() == '\r' && dropped_ == 0) pending_.pop_back();
      on_line(std::string_view(pending_), dropped_);
      pending_.clear();
      dropped_ = 0;
      bytes.remove_prefix(newline + 1);
    }
  }

  template <class OnLine>
  void finish(OnLine&& on_line) {
    if (!pending_.empty() || dropped_ > 0) on_line(std::string_view(pending_), dropped_);
    pending_.clear();
    dropped_ = 0;
  }

 private:
  size_t limit_;
  std::string pending_;
  size_t dropped_ = 0;
};

// How long the reader thread waits to answer a server's request (ping) while the server does
// not read its input.
constexpr auto kReplyWriteTimeout = std::chrono::seconds(10);

ChildSpec child_spec(const ServerConfig& config) {
  return {config.command, config.args, config.env, config.cwd, config.inherit_env};
}

}  // namespace

StdioTransport::StdioTransport(const ServerConfig& config, LogFn log)
    : name_(config.name), log_(std::move(log)) {
  try {
    child_ = std::make_unique<ChildProcess>(child_spec(config));
  } catch (const std::exception& e) {
    throw CallError(e.what());
  }
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC) != 0) throw CallError(std::string("pipe: ") + strerror(errno));
  wake_read_ = wake[0];
  wake_write_ = wake[1];
  stdout_reader_ = std::thread([this] { read_messages(); });
  stderr_reader_ = std::thread([this] { read_stderr(); });
}

StdioTransport::~StdioTransport() {
  close();
  ::close(wake_read_);
  ::close(wake_write_);
}

json StdioTransport::request(const json& message, const CallControl& control) {
  int64_t id = message.at("id").get<int64_t>();
  pending_.add(id);
  try {
    send(message, [&] { return control.expired().has_value(); });
  } catch (...) {
    pending_.forget(id);
    throw;
  }
  return pending_.wait(id, control);
}

void StdioTransport::notify(const json& message, const CallControl& control) {
  send(message, [&] { return control.expired().has_value(); });
}

void StdioTransport::send(const json& message, const std::function<bool()>& give_up) {
  // dump() escapes control characters, so the message is one line as the transport requires.
  std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  switch (child_->write_stdin(line, [&] { return closing_.load() || give_up(); })) {
    case ChildProcess::WriteResult::kWritten:
      return;
    case ChildProcess::WriteResult::kStalled: {
      // Part of a line may be out: the stream is broken either way.
      const std::string reason = "mcp server '" + name_ + "' stopped reading its input";
      cut_off(reason);
      throw ProtocolViolation(reason);
    }
    case ChildProcess::WriteResult::kClosed:
      break;
  }
  // The reader thread reports the exit status once it has reaped the child.
  child_->wait_for_exit(std::chrono::milliseconds(500));
  auto status = child_->exit_description();
  throw CallError("mcp server '" + name_ + "' " +
                  (status ? "exited (" + *status + ")" : "closed its input"));
}

void StdioTransport::cut_off(const std::string& reason) {
  {
    std::lock_guard lock(violation_mutex_);
    if (!violation_.empty()) return;
    violation_ = reason;
  }
  pending_.fail_all(reason);
  child_->kill();  // its stdout ends: read_messages() reaps it and marks it exited
}

void StdioTransport::read_messages() {
  LineSplitter lines(kMaxMessageBytes);
  auto on_line = [this](std::string_view line, size_t dropped) {
    if (dropped > 0) {
      log_("mcp[" + name_ + "]: dropped a message larger than " +
           std::to_string(kMaxMessageBytes >> 20) + " MiB");
      return;
    }
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    try {
      handle_line(line);
    } catch (const ProtocolViolation& e) {
      cut_off(e.what());
    } catch (const std::exception& e) {  // whatever the server sends, the host keeps serving
      log_("mcp[" + name_ + "]: cannot handle a message: " + e.what());
    }
  };
  std::vector<char> buffer(1 << 16);
  for (;;) {
    ssize_t n = read_or_wake(child_->stdout_fd(), wake_read_, buffer.data(), buffer.size());
    if (n <= 0) break;
    lines.feed({buffer.data(), static_cast<size_t>(n)}, on_line);
  }
  lines.finish(on_line);
  on_exit();
}

void StdioTransport::handle_line(std::string_view line) {
  json message = parse_peer_json(line, name_);
  switch (jsonrpc::kind_of(message)) {
    case jsonrpc::Kind::response:
      if (message["id"].is_number_integer()) {
        int64_t id = message["id"].get<int64_t>();
        pending_.complete(id, std::move(message));
      }
      return;  // a late answer to an abandoned call is dropped
    case jsonrpc::Kind::request:
      // We declare no client capabilities, so only ping is expected; answer the rest so the
      // server does not wait forever.
      try {
        const auto deadline = Clock::now() + kReplyWriteTimeout;
        auto too_late = [&] { return Clock::now() > deadline; };
        if (message["method"] == "ping")
          send(jsonrpc::result(message["id"], json::object()), too_late);
        else
          send(jsonrpc::error(message["id"], jsonrpc::kMethodNotFound,
                              "zen-engine does not handle " + message["method"].get<std::string>()),
               too_late);
      } catch (const CallError&) {  // cut off already, or exited
      }
      return;
    case jsonrpc::Kind::notification:
      return;  // logging, progress, list_changed: nothing the tool hub uses
    case jsonrpc::Kind::invalid: {
      std::string shown(line.substr(0, 200));
      log_("mcp[" + name_ + "]: not a JSON-RPC message on stdout: " + shown);
      return;
    }
  }
}

void StdioTransport::read_stderr() {
  LineSplitter lines(kMaxLogLineBytes);
  auto on_line = [this](std::string_view line, size_t dropped) {
    std::string text = "mcp[" + name_ + "]: " + std::string(line);
    if (dropped > 0) text += "... (" + std::to_string(dropped) + " more bytes not shown)";
    log_(text);
  };
  std::vector<char> buffer(1 << 14);
  for (;;) {
    ssize_t n = read_or_wake(child_->stderr_fd(), wake_read_, buffer.data(), buffer.size());
    if (n <= 0) break;
    lines.feed({buffer.data(), static_cast<size_t>(n)}, on_line);
  }
  lines.finish(on_line);
}

void StdioTransport::on_exit() {
  if (closing_) {
    pending_.fail_all("mcp server '" + name_ + "' was stopped");
    exited_ = true;
    return;
  }
  // stdout closed: the child is exiting (or closed stdout, which ends the session anyway).
  if (!child_->wait_for_exit(std::chrono::milliseconds(2000))) {
    child_->terminate(std::chrono::milliseconds(500));
  }
  std::string reason;
  {
    std::lock_guard lock(violation_mutex_);
    reason = violation_;  // cut off: that is the reason, not the SIGKILL it took
  }
  if (reason.empty())
    reason = "mcp server '" + name_ + "' exited (" +
             child_->exit_description().value_or("unknown") + ")";
  log_(reason);  // first: a caller that sees the failure finds it logged
  exited_ = true;
  pending_.fail_all(reason);
}

void StdioTransport::close() {
  if (closing_.exchange(true)) {
    return;
  }
  child_->terminate();
  char byte = 1;
  [[maybe_unused]] auto n = ::write(wake_write_, &byte, 1);
  if (stdout_reader_.joinable()) stdout_reader_.join();
  if (stderr_reader_.joinable()) stderr_reader_.join();
  pending_.fail_all("mcp server '" + name_ + "' was stopped");
  exited_ = true;
}

}  // namespace zen::mcp
