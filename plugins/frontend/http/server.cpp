#include "server.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace zen::http {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

// How long stop() waits for the engine to finish cancelled requests.
constexpr auto kDrainTimeout = std::chrono::seconds(10);

tcp::endpoint resolve(asio::io_context& io, const std::string& host, uint16_t port) {
  tcp::resolver resolver(io);
  auto results = resolver.resolve(host, std::to_string(port), tcp::resolver::passive);
  if (results.empty()) throw std::runtime_error("the host name resolves to no address");
  return results.begin()->endpoint();
}

std::string format(const tcp::endpoint& ep) {
  std::string ip = ep.address().to_string();
  if (ep.address().is_v6()) ip = "[" + ip + "]";
  return ip + ":" + std::to_string(ep.port());
}

}  // namespace

Server::Server(HttpConfig config, EngineApi api)
    : work_(asio::make_work_guard(io_)),
      acceptor_(asio::make_strand(io_)),
      accept_retry_(acceptor_.get_executor()),
      shared_(std::make_shared<ServerShared>(std::move(config), api)) {
  const HttpConfig& c = shared_->config;
  try {
    tcp::endpoint ep = resolve(io_, c.host, c.port);
    acceptor_.open(ep.protocol());
    // Lets a restarted server bind while old connections sit in TIME_WAIT; on Linux it does
    // not let two servers share a port.
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(ep);
    acceptor_.listen(asio::socket_base::max_listen_connections);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot listen on " + c.host + ":" + std::to_string(c.port) + ": " +
                             e.what());
  }
}

Server::~Server() { stop(); }

std::string Server::address() const { return format(acceptor_.local_endpoint()); }

void Server::start() {
  accept();
  for (uint32_t i = 0; i < shared_->config.io_threads; ++i)
    threads_.emplace_back([this] {
      for (;;) {
        try {
          io_.run();
          return;
        } catch (const std::exception& e) {
          // A handler threw past its own guards: report it and keep serving.
          std::fprintf(stderr, "http: internal error: %s\n", e.what());
        }
      }
    });
}

void Server::accept() {
  acceptor_.async_accept(asio::make_strand(io_), [this](error_code ec, tcp::socket socket) {
    on_accept(ec, std::move(socket));
  });
}

void Server::on_accept(error_code ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
  if (ec) {
    // Out of descriptors and the like: pause instead of spinning, then accept again.
    accept_retry_.expires_after(std::chrono::milliseconds(100));
    accept_retry_.async_wait([this](error_code wait_ec) {
      if (!wait_ec && acceptor_.is_open()) accept();
    });
    return;
  }
  socket.set_option(tcp::no_delay(true), ec);  // SSE chunks are small and latency-bound
  auto session = std::make_shared<Session>(std::move(socket), shared_);
  {
    std::lock_guard lock(sessions_mutex_);
    std::erase_if(sessions_, [](const std::weak_ptr<Session>& s) { return s.expired(); });
    sessions_.push_back(session);
  }
  asio::dispatch(session->executor(), [session] { session->start(); });
  accept();
}

void Server::stop() {
  if (stopped_) return;
  stopped_ = true;
  asio::post(acceptor_.get_executor(), [this] {
    error_code ignored;
    acceptor_.close(ignored);
    accept_retry_.cancel();
  });
  {
    std::lock_guard lock(sessions_mutex_);
    for (auto& weak : sessions_)
      if (auto s = weak.lock()) s->shutdown();
    sessions_.clear();
  }
  if (!threads_.empty() && !shared_->inflight->wait_idle(kDrainTimeout))
    std::fprintf(stderr, "http: the engine did not finish cancelled requests in time\n");
  shared_->inflight->close();
  work_.reset();
  io_.stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

}  // namespace zen::http
