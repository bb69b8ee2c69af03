#include "http_transport.h"

namespace zen::mcp_server {

HttpTransport::HttpTransport(McpConfig config, EngineApi api)
    : shared_(std::make_shared<HttpShared>(std::move(config), api)),
      port_("mcp", shared_->config, shared_) {}

HttpTransport::~HttpTransport() { stop(); }

std::string HttpTransport::url() const {
  return (shared_->tls ? "https://" : "http://") + port_.address() + shared_->config.path;
}

void HttpTransport::start() {
  port_.start([this](boost::asio::ip::tcp::socket socket, frontend::ConnectionTicket ticket) {
    return std::make_shared<HttpConnection>(std::move(socket), shared_, std::move(ticket));
  });
}

void HttpTransport::stop() {
  port_.stop([this] {
    shared_->sessions.end_all();  // their generations are abandoned
    shared_->stateless->cancel_all();
  });
}

}  // namespace zen::mcp_server
