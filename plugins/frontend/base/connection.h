// One HTTP/1.1 client connection, as both frontends serve it: reads one request at a time under
// size limits and deadlines (the head first, so a refusal never reads the body), answers it at
// once or later (a whole reply, or a stream: SSE over chunked encoding), keeps the connection
// alive between requests, and tells the subclass the moment the client goes away so it can
// cancel the work it started.
//
// Everything runs on the connection's strand. While a request is being answered a read stays
// pending on the socket (the "watch"): it sees a disconnect at once (on_close) or takes the
// first bytes of a pipelined request (kept until the answer is out, and watched further up to
// a bound); after the answer the same read is the keep-alive wait. A connection that must close
// with unread upload bytes drains them for a moment first, so the client reads the answer
// instead of a reset.
//
// A subclass (http::Session, mcp_server::McpConnection) decides what a request means: on_head
// admits or refuses a head, on_request answers, failure_reply words the errors in its protocol.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "listener.h"
#include "reply.h"
#include "tls_stream.h"
#include "wire.h"

namespace zen::frontend {

struct ConnectionLimits {
  uint64_t max_header_bytes = 16 << 10;
  uint64_t max_body_bytes = 8 << 20;
  double header_timeout_s = 30;  // the head (and a TLS handshake) must arrive within this
  double body_timeout_s = 60;    // then the body; <= 0: the head's deadline covers it too
  double idle_timeout_s = 60;    // the keep-alive wait, and a write the client does not take
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  using Request = boost::beast::http::request<boost::beast::http::string_body>;

  Connection(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context* tls,
             ConnectionTicket ticket, ConnectionLimits limits);
  virtual ~Connection() = default;

  boost::asio::any_io_executor executor() { return socket_.get_executor(); }
  void start();     // on the strand (the acceptor hands the socket over there)
  void shutdown();  // any thread: close on the strand

 protected:
  // The head is in, the body not read: answer (respond) to refuse it, or return true to read
  // the body. Checks of the server's own (Content-Length over the limit, Expect: 100-continue)
  // follow an admission.
  virtual bool on_head(const Request& head) = 0;
  // The whole request is in: answer it now or later (respond, or open_stream ... end_stream).
  virtual void on_request(const Request& request) = 0;
  // The answer's last byte went out: drop what was kept for it.
  virtual void on_answered() {}
  // The connection closes (client gone, deadline, shutdown): abandon what was started for it.
  virtual void on_close() {}
  // An error answer in the subclass's protocol ("the request body exceeds N bytes" as 413).
  virtual http::Reply failure_reply(unsigned status, const std::string& message) = 0;
  // Headers every answer to the current request carries (CORS grants).
  virtual http::HeaderList common_headers() const { return {}; }

  // The current request (its head while on_head runs).
  const Request& request() const { return parser_->get(); }
  std::string header(std::string_view name) const;
  // A whole answer. Before the body was read, the connection closes after it (unread body
  // bytes would be taken for the next request).
  void respond(http::Reply reply);
  // An SSE answer: the head, then events (each a complete "event: ...\n\n" text), then the end.
  void open_stream();
  void send_event(std::string sse);
  void end_stream();
  // A raw interim line the client waits for ("HTTP/1.1 100 Continue").
  void send(std::string bytes);
  bool closed() const { return closed_; }
  void close();

 private:
  using Parser = boost::beast::http::request_parser<boost::beast::http::string_body>;

  void on_handshake(boost::system::error_code ec);
  void read_header();
  void on_header(boost::system::error_code ec);
  void read_body();
  void on_body(boost::system::error_code ec);
  // A read error as an answer (431, 413, 400) or a close; true when it was one.
  bool read_failed(boost::system::error_code ec, const char* what);
  void watch();
  void on_watch(boost::system::error_code ec, size_t n);
  void answer_failure(const std::exception& e);

  void write_next();
  void on_write(boost::system::error_code ec);
  void after_response();
  void arm_read_deadline(double seconds);
  void arm_write_deadline(double seconds);
  void linger_close();  // stop sending, drain what the client still sends, then close

  Stream socket_;            // TCP, or TLS over it
  ConnectionTicket ticket_;  // our place under max_connections
  const ConnectionLimits limits_;
  boost::asio::steady_timer read_deadline_, write_deadline_;
  uint64_t read_deadline_gen_ = 0, write_deadline_gen_ = 0;

  boost::beast::flat_buffer buffer_;
  std::optional<Parser> parser_;
  bool keep_alive_ = true;
  bool chunked_ = true;

  bool closed_ = false;
  bool lingering_ = false;
  bool watching_ = false;          // the watch read is pending
  bool awaiting_next_ = false;     // answer done; the watch read is the keep-alive wait
  bool resume_pipelined_ = false;  // answer done, a pipelined request buffered: stop watching
  bool answered_ = false;          // respond or open_stream was called for this request

  std::deque<std::string> out_;
  bool writing_ = false;
  bool response_done_ = false;  // the answer's last bytes are queued
  bool close_after_ = false;
};

}  // namespace zen::frontend
