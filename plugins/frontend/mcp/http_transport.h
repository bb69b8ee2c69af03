// The streamable HTTP transport: its own listener and I/O threads. Binding happens in the
// constructor, so a taken port is an error before anything runs; stop() closes the listener
// and every connection, abandons every generation, waits for the engine to deliver their last
// events, then joins.
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

#include "http_connection.h"

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
  std::string url() const;  // "http://127.0.0.1:3691/mcp": the bound port

 private:
  void accept();
  void on_accept(boost::system::error_code ec, boost::asio::ip::tcp::socket socket);

  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer accept_retry_;
  std::shared_ptr<HttpShared> shared_;
  std::vector<std::thread> threads_;
  std::mutex connections_mutex_;
  std::vector<std::weak_ptr<HttpConnection>> connections_;
  bool stopped_ = false;
};

}  // namespace zen::mcp_server
