// MCP over stdio: the server is a child process; messages are newline-delimited JSON on its
// stdin/stdout; its stderr lines are logged as "mcp[<name>]: ...". A reader thread completes
// waiting calls and answers the server's own requests (ping; anything else "method not
// found"). When the child exits, every waiting call fails with
// "mcp server '<name>' exited (status N)". A child that breaks the protocol beyond repair
// (JSON nested too deeply, not reading its input) is killed and every call fails with that
// reason. Lines are bounded: 64 MiB for a message, 1 KiB of a stderr line is logged.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
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
  // Throws CallError when the child exited; ProtocolViolation (and cuts it off) when it does
  // not read while `give_up()` turns true.
  void send(const nlohmann::json& message, const std::function<bool()>& give_up);
  // Fails every call with `reason`, kills the child; the first reason sticks.
  void cut_off(const std::string& reason);
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
  std::mutex violation_mutex_;
  std::string violation_;  // why the child was cut off; empty while it behaves
  std::thread stdout_reader_, stderr_reader_;
};

}  // namespace zen::mcp
