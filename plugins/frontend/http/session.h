// One client connection: reads requests one at a time under size limits and deadlines, answers
// them (at once, or from engine events for generations), keeps the connection alive between
// requests, and cancels the engine request the moment the client goes away.
//
// Everything runs on the connection's strand. While a request is being answered a read stays
// pending on the socket (the "watch"): it sees a disconnect at once (cancel) or takes the first
// bytes of a pipelined request (and keeps watching); after the answer the same read is the
// keep-alive idle wait.
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

#include "access.h"
#include "engine_api.h"
#include "generation.h"
#include "http_config.h"
#include "inflight.h"
#include "listener.h"
#include "router.h"
#include "tls_stream.h"
#include "wire.h"

namespace zen::http {

// What every connection of one server shares.
struct ServerShared {
  ServerShared(HttpConfig c, EngineApi a)
      : config(std::move(c)), api(a), inflight(std::make_shared<Inflight>()) {}
  HttpConfig config;
  EngineApi api;
  std::shared_ptr<Inflight> inflight;
  bool loopback = false;  // bound to a loopback address: Host must name it (browser_guard.h)
  std::unique_ptr<boost::asio::ssl::context> tls;  // set: every connection speaks TLS
};

class Session : public std::enable_shared_from_this<Session>, private ResponseSink {
 public:
  Session(boost::asio::ip::tcp::socket socket, std::shared_ptr<const ServerShared> shared,
          frontend::ConnectionTicket ticket);

  boost::asio::any_io_executor executor() { return socket_.get_executor(); }
  void start();     // on the strand (the acceptor hands the socket over there)
  void shutdown();  // any thread: close on the strand, cancelling the engine request
  // From route_engine_event, on the strand: a generation's events, or the whole answer of a
  // tokenize/detokenize request.
  void on_engine_event(uint64_t serial, const std::string& event_json, bool last);
  void on_engine_answer(uint64_t serial, Reply reply);

 private:
  using Parser = boost::beast::http::request_parser<boost::beast::http::string_body>;

  struct RequestInfo {
    std::string method, target, origin;
    unsigned version = 11;
    bool keep_alive = true;
    bool cors_allowed = false;
  };

  // reading
  void on_handshake(boost::system::error_code ec);
  void read_header();
  void on_header(boost::system::error_code ec);
  void read_body();
  void on_body(boost::system::error_code ec);
  void watch();  // the pending read described above
  void on_watch(boost::system::error_code ec, size_t n);

  // answering
  void handle_header();
  void preflight();
  void dispatch();
  void start_generation(Api api, nlohmann::json body);
  void start_answer(nlohmann::json body, const char* endpoint);  // tokenize, detokenize
  // Submits `request` with its events routed here; a refusal without an event is answered.
  void submit(const std::string& request, bool whole_answer);
  void reply_early(Reply reply);  // before the body was read: the body (if any) is not read
  void respond(Reply reply);
  HeaderList common_headers() const;

  // ResponseSink
  void send_reply(Reply reply) override { respond(std::move(reply)); }
  void send_stream_head() override;
  void send_stream_data(std::string sse) override;
  void end_stream() override;

  // writing
  void send(std::string bytes);
  void write_next();
  void on_write(boost::system::error_code ec);
  void after_response();

  // deadlines and closing
  void arm_read_deadline(double seconds);
  void arm_write_deadline(double seconds);
  void close();
  void linger_close();  // stop sending, drain what the client still sends, then close

  frontend::Stream socket_;            // TCP, or TLS over it
  frontend::ConnectionTicket ticket_;  // our place under max_connections
  boost::asio::steady_timer read_deadline_, write_deadline_;
  uint64_t read_deadline_gen_ = 0, write_deadline_gen_ = 0;
  std::shared_ptr<const ServerShared> shared_;
  const HttpConfig& config_;

  boost::beast::flat_buffer buffer_;
  std::optional<Parser> parser_;
  RequestInfo req_;
  Route route_;

  bool closed_ = false;
  bool lingering_ = false;
  bool watching_ = false;          // the watch read is pending
  bool awaiting_next_ = false;     // answer done; the watch read is the keep-alive wait
  bool resume_pipelined_ = false;  // answer done, a pipelined request buffered: stop watching

  std::deque<std::string> out_;
  bool writing_ = false;
  bool response_done_ = false;  // the answer's last bytes are queued
  bool close_after_ = false;
  bool chunked_ = true;

  std::unique_ptr<Generation> generation_;
  bool answer_pending_ = false;  // a tokenize/detokenize request awaits its one event
  uint64_t serial_ = 0;
  std::optional<uint64_t> engine_id_;
};

}  // namespace zen::http
