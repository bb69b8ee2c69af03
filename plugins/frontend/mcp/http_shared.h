// What every connection of the streamable HTTP transport shares: settings, the engine, the
// MCP sessions by Mcp-Session-Id, the stateless endpoint for 2026-07-28 requests, and the gate
// that lets engine threads post to the I/O threads only while those exist.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "mcp_config.h"
#include "protocol.h"

namespace zen::mcp_server {

class PostGate {
 public:
  // Runs f on ex unless closed (then f is dropped). Never blocks on I/O.
  void post(const boost::asio::any_io_executor& ex, std::function<void()> f);
  void close();

 private:
  std::mutex mutex_;
  bool open_ = true;
};

class SessionTable {
 public:
  explicit SessionTable(uint32_t capacity) : capacity_(capacity) {}
  // A new session under a fresh random id; nullptr when the table is full.
  std::shared_ptr<Protocol> create(EngineApi api, std::shared_ptr<PendingRequests> pending,
                                   std::string& id);
  std::shared_ptr<Protocol> find(const std::string& id) const;
  bool end(const std::string& id);  // DELETE: false when unknown; cancels its generations
  void end_all();

 private:
  mutable std::mutex mutex_;
  uint32_t capacity_;
  std::map<std::string, std::shared_ptr<Protocol>> sessions_;
};

struct HttpShared {
  HttpShared(McpConfig c, EngineApi a)
      : config(std::move(c)),
        api(a),
        pending(std::make_shared<PendingRequests>()),
        stateless(std::make_shared<Protocol>(api, pending)),
        sessions(config.max_sessions),
        gate(std::make_shared<PostGate>()) {}
  McpConfig config;
  EngineApi api;
  std::shared_ptr<PendingRequests> pending;
  std::shared_ptr<Protocol> stateless;  // 2026-07-28 requests carry everything they need
  SessionTable sessions;
  std::shared_ptr<PostGate> gate;
  bool loopback = false;  // bound to a loopback address: Host must name it (browser_guard.h)
};

}  // namespace zen::mcp_server
