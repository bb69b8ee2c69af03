// A TCP listener with its own io_context and I/O threads, shared by the frontend plugins (http,
// mcp). Binding happens in the constructor, so a taken port is an error before anything runs.
// Each accepted socket (TCP_NODELAY: SSE chunks and progress events are small and
// latency-bound) reaches the owner on a strand of its own, with a ticket counting it under the
// connection cap; a failing accept (out of
// descriptors) pauses instead of spinning. stop() closes the acceptor, runs the owner's drain
// (shut connections down, wait for the engine) while the I/O threads still run, then joins.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace zen::frontend {

// One accepted connection's place under the listener's cap: the connection keeps it for its
// whole life and the place frees when it goes.
using ConnectionTicket = std::shared_ptr<void>;

class Listener {
 public:
  using OnSocket = std::function<void(boost::asio::ip::tcp::socket, ConnectionTicket)>;

  // Throws std::runtime_error "cannot listen on HOST:PORT: reason". `name` prefixes the
  // internal-error lines ("http: internal error: ...").
  Listener(const std::string& host, uint16_t port, std::string name);
  ~Listener();  // stop({})
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // At most `max_connections` open at once: one more is answered 503 (Retry-After) and
  // closed at once, so idle or slow clients cannot take every descriptor and thread.
  void start(uint32_t io_threads, uint32_t max_connections, OnSocket on_socket);
  // Idempotent; `drain` runs once, on the caller's thread, after the acceptor is closed.
  void stop(const std::function<void()>& drain);
  bool started() const { return !threads_.empty(); }
  std::string address() const;  // "127.0.0.1:3690", "[::1]:3690": the bound one
  bool loopback() const;        // bound to a loopback address (only this machine can connect)
  // Prints a loud warning on stderr when others can connect and no key guards the port.
  void warn_if_exposed(bool has_api_key) const;

 private:
  void accept();
  void on_accept(boost::system::error_code ec, boost::asio::ip::tcp::socket socket);

  std::string name_;
  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer accept_retry_;
  void refuse(boost::asio::ip::tcp::socket& socket);

  OnSocket on_socket_;
  uint32_t max_connections_ = 0;
  std::shared_ptr<std::atomic<uint32_t>> open_ = std::make_shared<std::atomic<uint32_t>>(0);
  std::vector<std::thread> threads_;
  bool stopped_ = false;
};

// The live connections of a listener, held weakly (a connection owns itself through its
// handlers), so stop() can shut down each one still open.
template <class Connection>
class ConnectionSet {
 public:
  void add(const std::shared_ptr<Connection>& c) {
    std::lock_guard lock(mutex_);
    std::erase_if(live_, [](const std::weak_ptr<Connection>& w) { return w.expired(); });
    live_.push_back(c);
  }
  void shutdown_all() {
    std::lock_guard lock(mutex_);
    for (auto& weak : live_)
      if (auto c = weak.lock()) c->shutdown();
    live_.clear();
  }

 private:
  std::mutex mutex_;
  std::vector<std::weak_ptr<Connection>> live_;
};

}  // namespace zen::frontend
