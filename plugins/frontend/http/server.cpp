#include "server.h"

#include <boost/asio/dispatch.hpp>

#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace zen::http {

namespace {

// A TLS 1.2+ server context from PEM files; std::invalid_argument naming the file that fails.
std::unique_ptr<boost::asio::ssl::context> tls_context(const HttpConfig& c) {
  namespace ssl = boost::asio::ssl;
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_server);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                   ssl::context::single_dh_use);
  try {
    ctx->use_certificate_chain_file(c.ssl_cert);
  } catch (const std::exception& e) {
    throw std::invalid_argument("cannot use the TLS certificate " + c.ssl_cert + ": " + e.what());
  }
  try {
    ctx->use_private_key_file(c.ssl_key, ssl::context::pem);
  } catch (const std::exception& e) {
    throw std::invalid_argument("cannot use the TLS key " + c.ssl_key + ": " + e.what());
  }
  return ctx;
}

// How long stop() waits for the engine to finish cancelled requests.
constexpr auto kDrainTimeout = std::chrono::seconds(10);

}  // namespace

Server::Server(HttpConfig config, EngineApi api)
    : shared_(std::make_shared<ServerShared>(std::move(config), api)),
      listener_(shared_->config.host, shared_->config.port, "http") {
  shared_->loopback = listener_.loopback();
  if (!shared_->config.ssl_cert.empty()) shared_->tls = tls_context(shared_->config);
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
