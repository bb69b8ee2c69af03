// MCP over streamable HTTP: every message is a POST to the server's URL with Accept
// "application/json, text/event-stream"; the server answers a request with JSON or with an
// SSE stream that carries our response (other messages on it are ignored), a notification
// with 202. The Mcp-Session-Id the server gives at initialize goes on every later request,
// with MCP-Protocol-Version once agreed; configured headers (Authorization...) on all of
// them. close() sends DELETE for the session. Each call runs on the caller's thread.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>

#include "mcp/config.h"
#include "mcp/transport.h"
#include "store/http_client.h"

namespace zen::mcp {

class HttpTransport : public Transport {
 public:
  // `connect_timeout` bounds TCP connect and, for DELETE at close, the whole exchange.
  HttpTransport(const ServerConfig& config, std::chrono::milliseconds connect_timeout);
  ~HttpTransport() override;

  nlohmann::json request(const nlohmann::json& message, const CallControl& control) override;
  void notify(const nlohmann::json& message, const CallControl& control) override;
  void set_protocol_version(const std::string& version) override;
  bool alive() const override { return !closing_.load() && !expired_.load(); }
  void close() override;

 private:
  struct Exchange;
  Exchange post(const nlohmann::json& message, const CallControl& control);
  store::Headers request_headers() const;
  std::string session_id() const;

  std::string name_;
  store::Url url_;
  std::map<std::string, std::string> configured_headers_;
  std::chrono::milliseconds connect_timeout_;
  mutable std::mutex mutex_;  // session id and protocol version
  std::string session_id_;
  std::string protocol_version_;
  std::atomic<bool> closing_{false};
  std::atomic<bool> expired_{false};  // the server answered 404 to our session id
};

}  // namespace zen::mcp
