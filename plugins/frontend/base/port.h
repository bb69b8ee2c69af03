// One listening port of a frontend, as both serve theirs: the listener, TLS from the configured
// files, the live connections and the engine requests in flight. stop() closes the listener
// and every connection (their engine requests cancelled), runs the frontend's own abandoning,
// waits for the engine to deliver the last events of what was in flight, then joins the I/O
// threads.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "config_fields.h"
#include "connection.h"
#include "inflight.h"
#include "listener.h"

namespace zen::frontend {

// What every connection on a port shares with it (a frontend's shared state derives from it).
struct PortShared {
  bool loopback = false;  // bound to a loopback address: Host must name it (browser_guard.h)
  std::unique_ptr<boost::asio::ssl::context> tls;  // set: every connection speaks TLS
  std::shared_ptr<Inflight> inflight = std::make_shared<Inflight>();
};

class Port {
 public:
  using MakeConnection =
      std::function<std::shared_ptr<Connection>(boost::asio::ip::tcp::socket, ConnectionTicket)>;

  // Binds (throws std::runtime_error "cannot listen on HOST:PORT: reason"; a bad certificate
  // or key, std::invalid_argument) and fills shared's loopback and TLS.
  Port(std::string name, const ListenConfig& config, std::shared_ptr<PortShared> shared);
  ~Port();  // stop()
  Port(const Port&) = delete;
  Port& operator=(const Port&) = delete;

  void start(MakeConnection make);
  void stop(const std::function<void()>& abandon = {});
  std::string address() const { return listener_.address(); }  // the bound one

 private:
  std::string name_;            // "http", "mcp": prefixes the log lines
  const ListenConfig& config_;  // lives in shared_
  std::shared_ptr<PortShared> shared_;
  ConnectionSet<Connection> connections_;
  Listener listener_;  // last: its threads stop before the members above go
};

}  // namespace zen::frontend
