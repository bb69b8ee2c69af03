// The listener and its I/O threads. Binding happens in the constructor, so a taken port is an
// error before anything runs; stop() closes the listener and every connection (cancelling
// their engine requests), waits for the engine to deliver their last events, then joins.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

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
  std::string address() const;  // "127.0.0.1:3690", "[::1]:3690": the bound one

 private:
  void accept();
  void on_accept(boost::system::error_code ec, boost::asio::ip::tcp::socket socket);

  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer accept_retry_;
  std::shared_ptr<ServerShared> shared_;
  std::vector<std::thread> threads_;
  std::mutex sessions_mutex_;
  std::vector<std::weak_ptr<Session>> sessions_;
  bool stopped_ = false;
};

}  // namespace zen::http
