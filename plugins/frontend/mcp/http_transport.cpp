#include "http_transport.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace zen::mcp_server {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

namespace {

constexpr auto kDrainTimeout = std::chrono::seconds(10);

tcp::endpoint resolve(asio::io_context& io, const std::string& host, uint16_t port) {
  tcp::resolver resolver(io);
  auto results = resolver.resolve(host, std::to_string(port), tcp::resolver::passive);
  if (results.empty()) throw std::runtime_error("the host name resolves to no address");
  return results.begin()->endpoint();
}

}  // namespace

HttpTransport::HttpTransport(McpConfig config, EngineApi api)
    : work_(asio::make_work_guard(io_)),
      acceptor_(asio::make_strand(io_)),
      accept_retry_(acceptor_.get_executor()),
      shared_(std::make_shared<HttpShared>(std::move(config), api)) {
  const McpConfig& c = shared_->config;
  try {
    const tcp::endpoint ep = resolve(io_, c.host, c.port);
    acceptor_.open(ep.protocol());
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    acceptor_.bind(ep);
    acceptor_.listen(asio::socket_base::max_listen_connections);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot listen on " + c.host + ":" + std::to_string(c.port) + ": " +
                             e.what());
  }
}

HttpTransport::~HttpTransport() { stop(); }

std::string HttpTransport::url() const {
  const tcp::endpoint ep = acceptor_.local_endpoint();
  std::string ip = ep.address().to_string();
  if (ep.address().is_v6()) ip = "[" + ip + "]";
  return "http://" + ip + ":" + std::to_string(ep.port()) + shared_->config.path;
}

void HttpTransport::start() {
  accept();
  for (uint32_t i = 0; i < shared_->config.io_threads; ++i)
    threads_.emplace_back([this] {
      for (;;) {
        try {
          io_.run();
          return;
        } catch (const std::exception& e) {
          std::fprintf(stderr, "mcp: internal error: %s\n", e.what());  // and keep serving
        }
      }
    });
}

void HttpTransport::accept() {
  acceptor_.async_accept(asio::make_strand(io_), [this](error_code ec, tcp::socket socket) {
    on_accept(ec, std::move(socket));
  });
}

void HttpTransport::on_accept(error_code ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
  if (ec) {
    // Out of descriptors and the like: pause instead of spinning, then accept again.
    accept_retry_.expires_after(std::chrono::milliseconds(100));
    accept_retry_.async_wait([this](error_code wait_ec) {
      if (!wait_ec && acceptor_.is_open()) accept();
    });
    return;
  }
  socket.set_option(tcp::no_delay(true), ec);  // progress events are small and latency-bound
  auto connection = std::make_shared<HttpConnection>(std::move(socket), shared_);
  {
    std::lock_guard lock(connections_mutex_);
    std::erase_if(connections_, [](const auto& c) { return c.expired(); });
    connections_.push_back(connection);
  }
  asio::dispatch(connection->executor(), [connection] { connection->start(); });
  accept();
}

void HttpTransport::stop() {
  if (stopped_) return;
  stopped_ = true;
  asio::post(acceptor_.get_executor(), [this] {
    error_code ignored;
    acceptor_.close(ignored);
    accept_retry_.cancel();
  });
  {
    std::lock_guard lock(connections_mutex_);
    for (auto& weak : connections_)
      if (auto c = weak.lock()) c->shutdown();
    connections_.clear();
  }
  shared_->sessions.end_all();
  shared_->stateless->cancel_all();
  if (!shared_->pending->wait_idle(kDrainTimeout))
    std::fprintf(stderr, "mcp: the engine did not finish cancelled requests in time\n");
  shared_->gate->close();
  work_.reset();
  io_.stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

}  // namespace zen::mcp_server
