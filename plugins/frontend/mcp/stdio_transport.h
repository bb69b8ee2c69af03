// MCP over stdio: newline-delimited JSON-RPC messages on stdin, answers and notifications on
// the output descriptor (stdout, or the duplicate of it the host handed over), one message a
// line. Nothing else is ever written there: logs go to stderr. When stdin ends there will be
// no more requests: the generations in flight finish and are answered, then `on_eof` runs (the
// plugin raises SIGTERM so the host's signal wait shuts the process down).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "protocol.h"

namespace zen::mcp_server {

// Lines waiting for the writer thread: engine threads only queue, never block on the pipe.
class LineOutbox {
 public:
  void push(std::string line);  // dropped once closed
  // The next line, or nullopt once closed and drained.
  std::optional<std::string> pop();
  void close();

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::string> lines_;
  bool closed_ = false;
};

class StdioTransport {
 public:
  StdioTransport(EngineApi api, int in_fd, int out_fd, uint64_t max_line_bytes,
                 std::function<void()> on_eof);
  ~StdioTransport();  // stop()
  StdioTransport(const StdioTransport&) = delete;
  StdioTransport& operator=(const StdioTransport&) = delete;

  void start();
  void stop();  // cancels generations, waits for the engine, flushes the output, joins

 private:
  void read_loop();
  void on_line(const std::string& line);
  void write_loop();

  std::shared_ptr<frontend::Inflight> pending_;
  Protocol protocol_;
  int in_fd_, out_fd_;
  uint64_t max_line_bytes_;
  std::function<void()> on_eof_;
  std::shared_ptr<LineOutbox> outbox_;
  std::shared_ptr<Channel> channel_;
  std::atomic<bool> stopping_{false};
  std::thread reader_, writer_;
  bool stopped_ = false;
};

}  // namespace zen::mcp_server
