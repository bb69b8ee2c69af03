// What every connection of the streamable HTTP transport shares: settings, the engine, the
// MCP sessions by Mcp-Session-Id, the stateless endpoint for 2026-07-28 requests, and the
// engine requests in flight (which also let engine threads post to the I/O threads only while
// those exist).
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "inflight.h"
#include "mcp_config.h"
#include "port.h"
#include "protocol.h"
#include "tls_stream.h"

namespace zen::mcp_server {

// The open handshake sessions. Never a lock-out: a session unused for `idle_timeout` is
// ended, and when the table is full a new session ends the least recently used one (its
// client gets 404 and, as the protocol requires, opens a new session).
class SessionTable {
 public:
  SessionTable(uint32_t capacity, std::chrono::milliseconds idle_timeout)
      : capacity_(capacity), idle_timeout_(idle_timeout) {}
  // A new session under a fresh random id.
  std::shared_ptr<Protocol> create(EngineApi api, std::shared_ptr<frontend::Inflight> pending,
                                   std::string& id);
  std::shared_ptr<Protocol> find(const std::string& id);  // and marks it used now
  bool end(const std::string& id);  // DELETE: false when unknown; cancels its generations
  void end_all();

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    std::shared_ptr<Protocol> protocol;
    Clock::time_point last_used;
  };

  std::mutex mutex_;
  uint32_t capacity_;
  std::chrono::milliseconds idle_timeout_;
  std::map<std::string, Entry> sessions_;
};

struct HttpShared : frontend::PortShared {
  HttpShared(McpConfig c, EngineApi a)
      : config(std::move(c)),
        api(a),
        stateless(std::make_shared<Protocol>(api, inflight)),
        sessions(config.max_sessions, std::chrono::milliseconds(static_cast<int64_t>(
                                          config.session_idle_timeout_s * 1000.0))) {}
  McpConfig config;
  EngineApi api;
  std::shared_ptr<Protocol> stateless;  // 2026-07-28 requests carry everything they need
  SessionTable sessions;
};

}  // namespace zen::mcp_server
