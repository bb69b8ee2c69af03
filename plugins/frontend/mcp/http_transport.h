// The streamable HTTP transport: a frontend::Port of its own and the connections on it.
// stop() closes the listener and every connection, abandons every generation, waits for the
// engine to deliver their last events, then joins the I/O threads.
#pragma once

#include <memory>
#include <string>

#include "http_connection.h"
#include "port.h"

namespace zen::mcp_server {

class HttpTransport {
 public:
  // Throws std::runtime_error "cannot listen on HOST:PORT: reason".
  HttpTransport(McpConfig config, EngineApi api);
  ~HttpTransport();  // stop()
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  void start();
  void stop();
  std::string url() const;  // "http://127.0.0.1:3691/mcp" (https with TLS): the bound port

 private:
  std::shared_ptr<HttpShared> shared_;
  frontend::Port port_;  // last: stopped before shared_ goes
};

}  // namespace zen::mcp_server
