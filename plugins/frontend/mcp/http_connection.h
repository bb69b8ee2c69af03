// One client connection of the streamable HTTP transport. Reads one request at a time under
// the size limits and a deadline (the head first: refusals, a missing key included, never
// read the body), answers POST (JSON-RPC in; a JSON answer, or an SSE stream
// when notifications precede the answer; 202 for notifications and responses), DELETE (ends a
// session) and refuses GET (no server-initiated stream). Keeps the connection alive between
// requests and abandons its generation the moment the client goes away.
//
// Everything runs on the connection's strand. While a request is being answered a read stays
// pending on the socket (the "watch"): it sees a disconnect at once or takes the first bytes
// of the next request, which then waits until the answer is out.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "http_shared.h"
#include "listener.h"
#include "reply.h"
#include "tls_stream.h"
#include "wire.h"

namespace zen::mcp_server {

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  HttpConnection(boost::asio::ip::tcp::socket socket, std::shared_ptr<HttpShared> shared,
                 frontend::ConnectionTicket ticket);

  boost::asio::any_io_executor executor() { return socket_.get_executor(); }
  void start();     // on the strand
  void shutdown();  // any thread: close on the strand, abandoning the generation
  // A message for request `serial` from its Channel (posted to the strand); `final` marks
  // the answer.
  void on_message(uint64_t serial, std::string text, bool final);

 private:
  using Parser = boost::beast::http::request_parser<boost::beast::http::string_body>;
  using Reply = zen::http::Reply;

  void on_handshake(boost::system::error_code ec);
  void read_request();
  void on_header(boost::system::error_code ec);
  void on_read(boost::system::error_code ec);
  void watch();
  void on_watch(boost::system::error_code ec, size_t n);

  // The checks of the head (Host, Origin, path, OPTIONS, key, content type), before any body
  // byte is read; false when it answered (refused, or a preflight).
  bool admit();
  void handle_request();
  void handle_post();
  void handle_delete();
  // Picks the MCP session a POST belongs to; replies itself (400/404/503) and returns null
  // when there is none.
  std::shared_ptr<Protocol> session_for(const Json& message);
  std::string header(std::string_view name) const;

  void respond(Reply reply);
  void respond_rpc_error(unsigned status, const Json& id, int code, const std::string& message,
                         Json data = nullptr);
  zen::http::HeaderList common_headers() const;

  void send(std::string bytes);
  void write_next();
  void on_write(boost::system::error_code ec);
  void after_response();

  void arm_deadline(double seconds);
  void close();

  frontend::Stream socket_;            // TCP, or TLS over it
  frontend::ConnectionTicket ticket_;  // our place under max_connections
  boost::asio::steady_timer deadline_;
  uint64_t deadline_gen_ = 0;
  std::shared_ptr<HttpShared> shared_;
  const McpConfig& config_;

  boost::beast::flat_buffer buffer_;
  std::optional<Parser> parser_;
  bool keep_alive_ = true;
  unsigned version_ = 11;
  std::string origin_;
  std::string new_session_id_;  // sent with the answer to the initialize that created it

  bool closed_ = false;
  bool watching_ = false;
  bool awaiting_next_ = false;  // answer out; the watch read is the keep-alive wait

  std::deque<std::string> out_;
  bool writing_ = false;
  bool response_done_ = false;
  bool close_after_ = false;

  // The request being answered.
  uint64_t serial_ = 0;
  bool answering_ = false;  // a Channel may still deliver messages for serial_
  bool streaming_ = false;  // the SSE head went out
  bool chunked_ = true;
  std::shared_ptr<ToolCall> call_;
};

}  // namespace zen::mcp_server
