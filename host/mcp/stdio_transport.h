// MCP over stdio: the server is a child process; messages are newline-delimited JSON on its
// stdin/stdout; its stderr lines are logged as "mcp[<name>]: ...". A reader thread completes
// waiting calls and answers the server's own requests (ping; anything else "method not
// found"). When the child exits, every waiting call fails with
// "mcp server '<name>' exited (status N)".
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "mcp/child_process.h"
#include "mcp/config.h"
#include "mcp/json_rpc.h"
#include "mcp/transport.h"

namespace zen::mcp {

class StdioTransport : public Transport {
 public:
  // Starts the child; throws CallError("cannot start 'x': ...") when it cannot run.
  StdioTransport(const ServerConfig& config, LogFn log);
  ~StdioTransport() override;

  nlohmann::json request(const nlohmann::json& message, const CallControl& control) override;
  void notify(const nlohmann::json& message, const CallControl& control) override;
  bool alive() const override { return !exited_.load(); }
  void close() override;

 private:
  void send(const nlohmann::json& message);
  void read_messages();
  void read_stderr();
  void handle_line(std::string_view line);
  void on_exit();

  std::string name_;
  LogFn log_;
  std::unique_ptr<ChildProcess> child_;
  PendingCalls pending_;
  int wake_read_ = -1, wake_write_ = -1;  // close() wakes the reader threads through this pipe
  std::atomic<bool> closing_{false};
  std::atomic<bool> exited_{false};
  std::thread stdout_reader_, stderr_reader_;
};

}  // namespace zen::mcp
