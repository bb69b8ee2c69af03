#include "server.h"

namespace zen::http {

Server::Server(HttpConfig config, EngineApi api)
    : shared_(std::make_shared<ServerShared>(std::move(config), api)),
      port_("http", shared_->config, shared_) {}

void Server::start() {
  port_.start([this](boost::asio::ip::tcp::socket socket, frontend::ConnectionTicket ticket) {
    return std::make_shared<Session>(std::move(socket), shared_, std::move(ticket));
  });
}

}  // namespace zen::http
