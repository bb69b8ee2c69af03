#include "port.h"

#include <boost/asio/dispatch.hpp>

#include <chrono>
#include <cstdio>

#include "tls_stream.h"

namespace zen::frontend {
namespace {

// How long stop() waits for the engine to finish cancelled requests.
constexpr auto kDrainTimeout = std::chrono::seconds(10);

}  // namespace

Port::Port(std::string name, const ListenConfig& config, std::shared_ptr<PortShared> shared)
    : name_(std::move(name)),
      config_(config),
      shared_(std::move(shared)),
      listener_(config_.host, config_.port, name_) {
  shared_->loopback = listener_.loopback();
  if (!config_.ssl_cert.empty())
    shared_->tls = tls_server_context(config_.ssl_cert, config_.ssl_key);
}

Port::~Port() { stop(); }

void Port::start(MakeConnection make) {
  listener_.warn_if_exposed(config_.api_key.has_value());
  listener_.start(
      config_.io_threads, config_.max_connections,
      [this, make = std::move(make)](boost::asio::ip::tcp::socket socket, ConnectionTicket ticket) {
        std::shared_ptr<Connection> c = make(std::move(socket), std::move(ticket));
        connections_.add(c);
        boost::asio::dispatch(c->executor(), [c] { c->start(); });
      });
}

void Port::stop(const std::function<void()>& abandon) {
  listener_.stop([&] {
    connections_.shutdown_all();
    if (abandon) abandon();
    if (listener_.started() && !shared_->inflight->wait_idle(kDrainTimeout))
      std::fprintf(stderr, "%s: the engine did not finish cancelled requests in time\n",
                   name_.c_str());
    shared_->inflight->close();
  });
}

}  // namespace zen::frontend
