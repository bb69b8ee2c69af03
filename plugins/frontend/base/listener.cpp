#include "listener.h"

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace zen::frontend {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

tcp::endpoint resolve(asio::io_context& io, const std::string& host, uint16_t port) {
  tcp::resolver resolver(io);
  auto results = resolver.resolve(host, std::to_string(port), tcp::resolver::passive);
  if (results.empty()) throw std::runtime_error("the host name resolves to no address");
  return results.begin()->endpoint();
}

}  // namespace

Listener::Listener(const std::string& host, uint16_t port, std::string name)
    : name_(std::move(name)),
      work_(asio::make_work_guard(io_)),
      acceptor_(asio::make_strand(io_)),
      accept_retry_(acceptor_.get_executor()) {
  try {
    const tcp::endpoint ep = resolve(io_, host, port);
    acceptor_.open(ep.protocol());
    // Lets a restarted server bind while old connections sit in TIME_WAIT; on Linux it does
    // not let two servers share a port.
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(ep);
    acceptor_.listen(asio::socket_base::max_listen_connections);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) + ": " +
                             e.what());
  }
}

Listener::~Listener() { stop({}); }

std::string Listener::address() const {
  const tcp::endpoint ep = acceptor_.local_endpoint();
  std::string ip = ep.address().to_string();
  if (ep.address().is_v6()) ip = "[" + ip + "]";
  return ip + ":" + std::to_string(ep.port());
}

bool Listener::loopback() const { return acceptor_.local_endpoint().address().is_loopback(); }

void Listener::warn_if_exposed(bool has_api_key) const {
  if (has_api_key || loopback()) return;
  std::fprintf(stderr,
               "%s: WARNING: listening on %s, not a loopback address, with no API key: anyone "
               "who can reach it can run the models (and their MCP tools); set --api-key or "
               "--api-key-file\n",
               name_.c_str(), address().c_str());
}

void Listener::start(uint32_t io_threads, uint32_t max_connections, OnSocket on_socket) {
  on_socket_ = std::move(on_socket);
  max_connections_ = max_connections;
  accept();
  for (uint32_t i = 0; i < io_threads; ++i)
    threads_.emplace_back([this] {
      for (;;) {
        try {
          io_.run();
          return;
        } catch (const std::exception& e) {
          // A handler threw past its own guards: report it and keep serving.
          std::fprintf(stderr, "%s: internal error: %s\n", name_.c_str(), e.what());
        }
      }
    });
}

void Listener::accept() {
  acceptor_.async_accept(asio::make_strand(io_), [this](error_code ec, tcp::socket socket) {
    on_accept(ec, std::move(socket));
  });
}

void Listener::on_accept(error_code ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
  if (ec) {
    // Out of descriptors and the like: pause instead of spinning, then accept again.
    accept_retry_.expires_after(std::chrono::milliseconds(100));
    accept_retry_.async_wait([this](error_code wait_ec) {
      if (!wait_ec && acceptor_.is_open()) accept();
    });
    return;
  }
  socket.set_option(tcp::no_delay(true), ec);
  if (open_->fetch_add(1) >= max_connections_) {
    open_->fetch_sub(1);
    refuse(socket);
  } else {
    ConnectionTicket ticket(nullptr, [open = open_](void*) { open->fetch_sub(1); });
    on_socket_(std::move(socket), std::move(ticket));
  }
  accept();
}

// One write that never waits (a client that reads nothing just misses the answer), then close.
void Listener::refuse(tcp::socket& socket) {
  static const std::string kBody =
      R"({"error":{"message":"too many open connections; try again","type":"server_error",)"
      R"("param":null,"code":"too_many_connections"}})";
  static const std::string kAnswer =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
      "Connection: close\r\nContent-Length: " +
      std::to_string(kBody.size()) + "\r\n\r\n" + kBody;
  error_code ignored;
  socket.non_blocking(true, ignored);
  socket.write_some(asio::buffer(kAnswer), ignored);
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
}

void Listener::stop(const std::function<void()>& drain) {
  if (stopped_) return;
  stopped_ = true;
  asio::post(acceptor_.get_executor(), [this] {
    error_code ignored;
    acceptor_.close(ignored);
    accept_retry_.cancel();
  });
  if (drain) drain();
  work_.reset();
  io_.stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

}  // namespace zen::frontend
