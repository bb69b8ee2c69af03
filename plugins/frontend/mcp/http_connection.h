// One client connection of the streamable HTTP transport, on the connection machinery every
// frontend shares (frontend::Connection: limits, deadlines, keep-alive, pipelining, linger,
// cancel-on-disconnect). The head decides most refusals (Host, Origin, path, key, content
// type), so a client without the key cannot make us read a body. Answers POST (JSON-RPC in; a
// JSON answer, or an SSE stream when notifications precede the answer; 202 for notifications
// and responses), DELETE (ends a session) and refuses GET (no server-initiated stream); the
// generation of a client that goes away is abandoned.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <memory>
#include <string>

#include "connection.h"
#include "http_shared.h"

namespace zen::mcp_server {

class HttpConnection : public frontend::Connection {
 public:
  HttpConnection(boost::asio::ip::tcp::socket socket, std::shared_ptr<HttpShared> shared,
                 frontend::ConnectionTicket ticket);

  // A message for request `serial` from its Channel (posted to the strand); `final` marks
  // the answer.
  void on_message(uint64_t serial, std::string text, bool final);

 private:
  using Reply = zen::http::Reply;

  // frontend::Connection
  bool on_head(const Request& head) override;
  void on_request(const Request& request) override;
  void on_answered() override { streaming_ = false; }
  void on_close() override;
  Reply failure_reply(unsigned status, const std::string& message) override;
  zen::http::HeaderList common_headers() const override;

  void handle_post();
  void handle_delete();
  // Picks the MCP session a POST belongs to; replies itself (400/404/503) and returns null
  // when there is none.
  std::shared_ptr<Protocol> session_for(const Json& message);
  void respond_rpc_error(unsigned status, const Json& id, int code, const std::string& message,
                         Json data = nullptr);

  std::shared_ptr<HttpShared> shared_;
  const McpConfig& config_;
  std::string origin_;          // an allowed browser origin of the current request, or ""
  std::string new_session_id_;  // sent with the answer to the initialize that created it

  // The request being answered.
  uint64_t serial_ = 0;
  bool answering_ = false;  // a Channel may still deliver messages for serial_
  bool streaming_ = false;  // the SSE head went out
  std::shared_ptr<ToolCall> call_;
};

}  // namespace zen::mcp_server
