#include "session.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/read.hpp>

#include <atomic>
#include <chrono>

#include "browser_guard.h"
#include "endpoints.h"
#include "request_body.h"

namespace zen::http {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
using boost::system::error_code;
using nlohmann::json;

namespace {

constexpr size_t kWatchChunk = 4096;
// Pipelined bytes read ahead while an answer is being produced (see on_watch).
constexpr size_t kMaxPipelinedBytes = 64 << 10;
// How long a closing connection keeps draining the client's unread upload so the client
// reads our error answer instead of a connection reset.
constexpr double kLingerSeconds = 2;

std::chrono::milliseconds to_duration(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000.0));
}

// Errors of the HTTP parser itself (as opposed to the socket's).
bool is_parse_error(error_code ec) {
  return ec && &ec.category() == &bhttp::make_error_code(bhttp::error::end_of_stream).category() &&
         ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message;
}

std::string field(const bhttp::request<bhttp::string_body>& r, std::string_view name) {
  auto it = r.find(name);
  return it == r.end() ? std::string() : std::string(it->value());
}

}  // namespace

Session::Session(asio::ip::tcp::socket socket, std::shared_ptr<const ServerShared> shared,
                 frontend::ConnectionTicket ticket)
    : socket_(std::move(socket), shared->tls.get()),
      ticket_(std::move(ticket)),
      read_deadline_(socket_.get_executor()),
      write_deadline_(socket_.get_executor()),
      shared_(std::move(shared)),
      config_(shared_->config) {}

void Session::start() {
  if (!socket_.is_tls()) return read_header();
  // The handshake counts against the header deadline: a client that opens TLS and stalls is
  // dropped like one that trickles its head.
  arm_read_deadline(config_.header_timeout_s);
  socket_.async_handshake([self = shared_from_this()](error_code ec) { self->on_handshake(ec); });
}

void Session::on_handshake(error_code ec) {
  if (closed_) return;
  if (ec) return close();  // not TLS (a plain http request), a bad client hello, or gone
  read_header();
}

void Session::shutdown() {
  asio::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->close(); });
}

// ---- reading ------------------------------------------------------------------------------

void Session::read_header() {
  req_ = RequestInfo{};
  parser_.emplace();
  parser_->header_limit(config_.max_header_bytes);
  parser_->body_limit(config_.max_body_bytes);
  // The whole head must arrive within the deadline however slowly it trickles in.
  arm_read_deadline(config_.header_timeout_s);
  bhttp::async_read_header(
      socket_, buffer_, *parser_,
      [self = shared_from_this()](error_code ec, size_t) { self->on_header(ec); });
}

void Session::on_header(error_code ec) {
  if (closed_) return;
  if (ec == bhttp::error::header_limit)
    return reply_early(error_reply(
        431, "the request headers exceed " + std::to_string(config_.max_header_bytes) + " bytes"));
  if (ec == bhttp::error::body_limit)
    return reply_early(error_reply(
        413, "the request body exceeds " + std::to_string(config_.max_body_bytes) + " bytes"));
  if (is_parse_error(ec))
    return reply_early(error_reply(400, "malformed HTTP request: " + ec.message()));
  if (ec) return close();  // the client left, or a socket error
  try {
    handle_header();
  } catch (const std::exception& e) {
    reply_early(error_reply(500, std::string("internal error: ") + e.what(), "server_error"));
  }
}

void Session::handle_header() {
  const auto& r = parser_->get();
  req_ = RequestInfo{};
  req_.method = std::string(r.method_string());
  req_.target = std::string(r.target());
  req_.version = r.version();
  req_.keep_alive = r.keep_alive();
  // A browser page on another site (or rebound to our address) gets nothing: these checks
  // come before routing, the key and the body.
  if (const std::string host = field(r, "Host");
      shared_->loopback && !frontend::loopback_host_allowed(host))
    return reply_early(error_reply(403,
                                   "the Host '" + host +
                                       "' is not allowed: this server listens on a loopback "
                                       "address and answers only localhost, 127.0.0.1 or [::1]",
                                   "invalid_request_error", "", "host_not_allowed"));
  req_.origin = field(r, "Origin");
  if (!frontend::origin_allowed(req_.origin, config_.cors_origins))
    return reply_early(error_reply(403, "the origin '" + req_.origin + "' is not allowed",
                                   "invalid_request_error", "", "origin_not_allowed"));
  req_.cors_allowed = !req_.origin.empty();

  if (req_.method == "OPTIONS") return preflight();
  route_ = route(req_.method, req_.target);
  if (route_.outcome == Route::Outcome::kNotFound)
    return reply_early(error_reply(
        404, "Invalid URL (" + req_.method + " " + std::string(target_path(req_.target)) + ")",
        "invalid_request_error", "", "not_found"));
  if (route_.outcome == Route::Outcome::kWrongMethod) {
    Reply reply = error_reply(
        405, "Method " + req_.method + " is not allowed on this URL (use " + route_.allow + ")",
        "invalid_request_error", "", "method_not_allowed");
    reply.headers.emplace_back("Allow", route_.allow);
    return reply_early(std::move(reply));
  }
  if (needs_key(route_.endpoint) &&
      !authorized(config_.api_key, field(r, "Authorization"), field(r, "x-api-key"))) {
    Reply reply = error_reply(401, "invalid or missing API key (send 'Authorization: Bearer KEY')",
                              "invalid_request_error", "", "invalid_api_key");
    reply.headers.emplace_back("WWW-Authenticate", "Bearer");
    return reply_early(std::move(reply));
  }
  if (takes_body(route_.endpoint) && !frontend::is_json_content_type(field(r, "Content-Type")))
    return reply_early(
        error_reply(415, "the request body must be JSON (send 'Content-Type: application/json')",
                    "invalid_request_error", "", "unsupported_media_type"));
  if (auto length = parser_->content_length(); length && *length > config_.max_body_bytes)
    return reply_early(error_reply(
        413, "the request body exceeds " + std::to_string(config_.max_body_bytes) + " bytes"));
  if (boost::beast::iequals(field(r, "Expect"), "100-continue") && !parser_->is_done())
    send("HTTP/1.1 100 Continue\r\n\r\n");
  read_body();
}

void Session::read_body() {
  arm_read_deadline(config_.body_timeout_s);
  bhttp::async_read(socket_, buffer_, *parser_,
                    [self = shared_from_this()](error_code ec, size_t) { self->on_body(ec); });
}

void Session::on_body(error_code ec) {
  if (closed_) return;
  ++read_deadline_gen_;
  read_deadline_.cancel();
  if (ec == bhttp::error::body_limit)
    return reply_early(error_reply(
        413, "the request body exceeds " + std::to_string(config_.max_body_bytes) + " bytes"));
  if (is_parse_error(ec))
    return reply_early(error_reply(400, "malformed HTTP request body: " + ec.message()));
  if (ec) return close();  // the client left mid-body, or a socket error
  // Watch the socket while answering, also when bytes of a pipelined request are already
  // buffered: a client that sends one byte more and leaves must still cancel its request.
  watch();
  try {
    dispatch();
  } catch (const std::exception& e) {
    respond(error_reply(500, std::string("internal error: ") + e.what(), "server_error"));
  }
}

void Session::watch() {
  if (watching_ || closed_) return;
  if (lingering_) buffer_.consume(buffer_.size());
  watching_ = true;
  socket_.async_read_some(
      buffer_.prepare(kWatchChunk),
      [self = shared_from_this()](error_code ec, size_t n) { self->on_watch(ec, n); });
}

void Session::on_watch(error_code ec, size_t n) {
  watching_ = false;
  if (closed_) return;
  if (ec == asio::error::operation_aborted && resume_pipelined_) {
    // after_response() stopped the watch: the pipelined request is complete in the buffer.
    resume_pipelined_ = false;
    return read_header();
  }
  if (ec) return close();  // the client is gone: close() cancels its engine request
  buffer_.commit(n);
  if (lingering_) return watch();
  if (awaiting_next_ || resume_pipelined_) {
    awaiting_next_ = resume_pipelined_ = false;
    return read_header();
  }
  // Bytes of a pipelined request: they wait in the buffer until this answer is done. Keep
  // watching for a disconnect, up to a bound (a client pipelining more is not read further
  // until then; a disconnect still shows as a failed write).
  if (buffer_.size() < kMaxPipelinedBytes) watch();
}

// ---- answering ----------------------------------------------------------------------------

HeaderList Session::common_headers() const {
  HeaderList h;
  if (req_.cors_allowed) {
    h.emplace_back("Access-Control-Allow-Origin", req_.origin);
    h.emplace_back("Vary", "Origin");
  }
  return h;
}

void Session::preflight() {
  const auto& r = parser_->get();
  Reply reply;
  reply.status = 204;
  if (req_.origin.empty()) {
    reply.headers.emplace_back("Allow", CorsPolicy::kMethods);
  } else {
    std::string asked = field(r, "Access-Control-Request-Headers");
    reply.headers.emplace_back("Access-Control-Allow-Methods", CorsPolicy::kMethods);
    reply.headers.emplace_back("Access-Control-Allow-Headers",
                               asked.empty() ? CorsPolicy::kDefaultHeaders : asked);
    reply.headers.emplace_back("Access-Control-Max-Age", CorsPolicy::kMaxAgeSeconds);
  }
  reply_early(std::move(reply));
}

void Session::dispatch() {
  const std::string& body = parser_->get().body();
  if (takes_body(route_.endpoint)) {
    auto parsed = parse_json_object(body);
    if (auto* reply = std::get_if<Reply>(&parsed)) return respond(std::move(*reply));
    json& object = std::get<json>(parsed);
    switch (route_.endpoint) {
      case Endpoint::kChatCompletions:
        return start_generation(Api::kChat, std::move(object));
      case Endpoint::kCompletions:
        return start_generation(Api::kCompletion, std::move(object));
      case Endpoint::kTokenize:
        return start_answer(std::move(object), "tokenize");
      default:
        return start_answer(std::move(object), "detokenize");
    }
  }
  Reply reply;
  try {
    reply = answer_now(route_, shared_->api);
  } catch (const EngineUnavailable& e) {
    reply = error_reply(500, e.what(), "server_error");
  }
  respond(std::move(reply));
}

void Session::start_generation(Api api, json body) {
  GenerationOptions options = GenerationOptions::from_body(api, body);
  body["endpoint"] = api == Api::kChat ? "chat" : "completion";
  if (!body.contains("stream")) body["stream"] = false;
  generation_ = std::make_unique<Generation>(options, static_cast<ResponseSink&>(*this));
  submit(dump(body), /*whole_answer=*/false);
}

void Session::start_answer(json body, const char* endpoint) {
  body["endpoint"] = endpoint;  // the text is tokenized on the host's threads, not this one
  answer_pending_ = true;
  submit(dump(body), /*whole_answer=*/true);
}

void Session::submit(const std::string& request, bool whole_answer) {
  // Distinguishes "the host reported the failure through the callback" from "it did not".
  auto reported = std::make_shared<std::atomic<bool>>(false);
  auto* route = new EventRoute{shared_->inflight, weak_from_this(), socket_.get_executor(),
                               ++serial_, reported};
  route->whole_answer = whole_answer;
  shared_->inflight->add();
  uint64_t id = 0;
  zen_status status = shared_->api.submit(request, route_engine_event, route, &id);
  if (status == ZEN_OK) {
    engine_id_ = id;
  } else if (!reported->load()) {
    // Refused without an event: the route is still ours.
    delete route;
    shared_->inflight->release();
    generation_.reset();
    answer_pending_ = false;
    respond(error_reply(
        500,
        "the engine refused the request (status " + std::to_string(static_cast<int>(status)) + ")",
        "server_error"));
  }
}

void Session::on_engine_event(uint64_t serial, const std::string& event_json, bool last) {
  if (closed_ || serial != serial_ || !generation_ || generation_->complete()) return;
  try {
    generation_->on_event(event_json, last);
  } catch (const std::exception&) {
    // An event we cannot read: end this answer rather than leave the client hanging.
    if (engine_id_) shared_->api.cancel(*engine_id_);
    close();
  }
}

void Session::on_engine_answer(uint64_t serial, Reply reply) {
  if (closed_ || serial != serial_ || !answer_pending_) return;
  answer_pending_ = false;
  respond(std::move(reply));
}

void Session::reply_early(Reply reply) {
  // Unread body bytes would be taken for the next request: close after this answer.
  bool body_pending = parser_ && parser_->is_header_done() && !parser_->is_done();
  if (!parser_ || !parser_->is_header_done() || body_pending) req_.keep_alive = false;
  respond(std::move(reply));
}

void Session::respond(Reply reply) {
  bool keep = req_.keep_alive;
  send(serialize_reply(reply, keep, common_headers()));
  response_done_ = true;
  close_after_ = !keep;
}

void Session::send_stream_head() {
  chunked_ = req_.version >= 11;
  send(serialize_stream_head(chunked_, req_.keep_alive, common_headers()));
}

void Session::send_stream_data(std::string sse) { send(chunked_ ? chunk(sse) : std::move(sse)); }

void Session::end_stream() {
  if (chunked_) send(last_chunk());
  response_done_ = true;
  close_after_ = !(req_.keep_alive && chunked_);
}

// ---- writing ------------------------------------------------------------------------------

void Session::send(std::string bytes) {
  if (closed_) return;
  out_.push_back(std::move(bytes));
  if (!writing_) write_next();
}

void Session::write_next() {
  writing_ = true;
  // A client that accepts nothing for this long is not coming back.
  arm_write_deadline(config_.idle_timeout_s);
  asio::async_write(socket_, asio::buffer(out_.front()),
                    [self = shared_from_this()](error_code ec, size_t) { self->on_write(ec); });
}

void Session::on_write(error_code ec) {
  writing_ = false;
  if (closed_) return;
  if (ec) return close();
  out_.pop_front();
  if (!out_.empty()) return write_next();
  ++write_deadline_gen_;
  write_deadline_.cancel();
  if (response_done_) after_response();
}

void Session::after_response() {
  response_done_ = false;
  generation_.reset();
  engine_id_.reset();
  if (close_after_ || lingering_) return linger_close();
  if (buffer_.size() > 0) {  // a pipelined request waits
    if (!watching_) return read_header();
    // Stop the watch first: on_watch() then reads the request (one read at a time).
    resume_pipelined_ = true;
    error_code ignored;
    socket_.cancel(ignored);
    return;
  }
  // The watch read (pending, or started now) is the keep-alive wait for the next request.
  awaiting_next_ = true;
  arm_read_deadline(config_.idle_timeout_s);
  watch();
}

// ---- deadlines and closing ----------------------------------------------------------------

void Session::arm_read_deadline(double seconds) {
  uint64_t gen = ++read_deadline_gen_;
  read_deadline_.expires_after(to_duration(seconds));
  read_deadline_.async_wait([self = shared_from_this(), gen](error_code ec) {
    if (!ec && gen == self->read_deadline_gen_) self->close();
  });
}

void Session::arm_write_deadline(double seconds) {
  uint64_t gen = ++write_deadline_gen_;
  write_deadline_.expires_after(to_duration(seconds));
  write_deadline_.async_wait([self = shared_from_this(), gen](error_code ec) {
    if (!ec && gen == self->write_deadline_gen_) self->close();
  });
}

void Session::linger_close() {
  if (closed_) return;
  lingering_ = true;
  error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  arm_read_deadline(kLingerSeconds);
  watch();
}

void Session::close() {
  if (closed_) return;
  closed_ = true;
  if (engine_id_ && ((generation_ && !generation_->complete()) || answer_pending_))
    shared_->api.cancel(*engine_id_);
  generation_.reset();
  answer_pending_ = false;
  engine_id_.reset();
  error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  ++read_deadline_gen_;
  ++write_deadline_gen_;
  read_deadline_.cancel();
  write_deadline_.cancel();
}

}  // namespace zen::http
