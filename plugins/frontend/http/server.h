// The http frontend's port (frontend::Port: listener, TLS, connections, requests in flight)
// serving Sessions. stop() closes the port and every connection (cancelling their engine
// requests), waits for the engine to deliver their last events, then joins the I/O threads.
#pragma once

#include <memory>
#include <string>

#include "port.h"
#include "session.h"

namespace zen::http {

class Server {
 public:
  // Throws std::runtime_error "cannot listen on HOST:PORT: reason".
  Server(HttpConfig config, EngineApi api);
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void start();
  void stop() { port_.stop(); }
  std::string address() const { return port_.address(); }
  const char* scheme() const { return shared_->tls ? "https" : "http"; }

 private:
  std::shared_ptr<ServerShared> shared_;
  frontend::Port port_;  // last: stopped before shared_ goes
};

}  // namespace zen::http
