#include "server.h"

#include <boost/asio/dispatch.hpp>

#include <chrono>
#include <cstdio>

namespace zen::http {

namespace {

// How long stop() waits for the engine to finish cancelled requests.
constexpr auto kDrainTimeout = std::chrono::seconds(10);

}  // namespace

Server::Server(HttpConfig config, EngineApi api)
    : shared_(std::make_shared<ServerShared>(std::move(config), api)),
      listener_(shared_->config.host, shared_->config.port, "http") {
  shared_->loopback = listener_.loopback();
  if (!shared_->config.ssl_cert.empty())
    shared_->tls = frontend::tls_server_context(shared_->config.ssl_cert, shared_->config.ssl_key);
}

Server::~Server() { stop(); }

void Server::start() {
  listener_.warn_if_exposed(shared_->config.api_key.has_value());
  listener_.start(shared_->config.io_threads, shared_->config.max_connections,
                  [this](boost::asio::ip::tcp::socket socket, frontend::ConnectionTicket ticket) {
                    auto session =
                        std::make_shared<Session>(std::move(socket), shared_, std::move(ticket));
                    sessions_.add(session);
                    boost::asio::dispatch(session->executor(), [session] { session->start(); });
                  });
}

void Server::stop() {
  listener_.stop([this] {
    sessions_.shutdown_all();
    if (listener_.started() && !shared_->inflight->wait_idle(kDrainTimeout))
      std::fprintf(stderr, "http: the engine did not finish cancelled requests in time\n");
    shared_->inflight->close();
  });
}

}  // namespace zen::http
