// The http frontend's listener (frontend::Listener) and its sessions. stop() closes the
// listener and every connection (cancelling their engine requests), waits for the engine to
// deliver their last events, then joins the I/O threads.
#pragma once

#include <memory>
#include <string>

#include "listener.h"
#include "session.h"

namespace zen::http {

class Server {
 public:
  // Throws std::runtime_error "cannot listen on HOST:PORT: reason".
  Server(HttpConfig config, EngineApi api);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void start();
  void stop();
  std::string address() const { return listener_.address(); }
  const char* scheme() const { return shared_->tls ? "https" : "http"; }

 private:
  std::shared_ptr<ServerShared> shared_;
  frontend::ConnectionSet<Session> sessions_;
  frontend::Listener listener_;  // last: its threads stop before the members above go
};

}  // namespace zen::http
