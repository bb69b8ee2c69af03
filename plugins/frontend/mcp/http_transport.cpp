#include "http_transport.h"

#include <boost/asio/dispatch.hpp>

#include <chrono>
#include <cstdio>

namespace zen::mcp_server {

namespace {

// How long stop() waits for the engine to finish cancelled requests.
constexpr auto kDrainTimeout = std::chrono::seconds(10);

}  // namespace

HttpTransport::HttpTransport(McpConfig config, EngineApi api)
    : shared_(std::make_shared<HttpShared>(std::move(config), api)),
      listener_(shared_->config.host, shared_->config.port, "mcp") {
  shared_->loopback = listener_.loopback();
  if (!shared_->config.ssl_cert.empty())
    shared_->tls = frontend::tls_server_context(shared_->config.ssl_cert, shared_->config.ssl_key);
}

HttpTransport::~HttpTransport() { stop(); }

std::string HttpTransport::url() const {
  return (shared_->tls ? "https://" : "http://") + listener_.address() + shared_->config.path;
}

void HttpTransport::start() {
  listener_.warn_if_exposed(shared_->config.api_key.has_value());
  listener_.start(
      shared_->config.io_threads, shared_->config.max_connections,
      [this](boost::asio::ip::tcp::socket socket, frontend::ConnectionTicket ticket) {
        auto connection =
            std::make_shared<HttpConnection>(std::move(socket), shared_, std::move(ticket));
        connections_.add(connection);
        boost::asio::dispatch(connection->executor(), [connection] { connection->start(); });
      });
}

void HttpTransport::stop() {
  listener_.stop([this] {
    connections_.shutdown_all();
    shared_->sessions.end_all();
    shared_->stateless->cancel_all();
    if (!shared_->inflight->wait_idle(kDrainTimeout))
      std::fprintf(stderr, "mcp: the engine did not finish cancelled requests in time\n");
    shared_->inflight->close();
  });
}

}  // namespace zen::mcp_server
