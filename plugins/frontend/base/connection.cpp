#include "connection.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/read.hpp>

#include <chrono>

namespace zen::frontend {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
using boost::system::error_code;

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

}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, asio::ssl::context* tls,
                       ConnectionTicket ticket, ConnectionLimits limits)
    : socket_(std::move(socket), tls),
      ticket_(std::move(ticket)),
      limits_(limits),
      read_deadline_(socket_.get_executor()),
      write_deadline_(socket_.get_executor()) {}

void Connection::start() {
  if (!socket_.is_tls()) return read_header();
  // The handshake counts against the header deadline: a client that opens TLS and stalls is
  // dropped like one that trickles its head.
  arm_read_deadline(limits_.header_timeout_s);
  socket_.async_handshake([self = shared_from_this()](error_code ec) { self->on_handshake(ec); });
}

void Connection::on_handshake(error_code ec) {
  if (closed_) return;
  if (ec) return close();  // not TLS (a plain http request), a bad client hello, or gone
  read_header();
}

void Connection::shutdown() {
  asio::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->close(); });
}

std::string Connection::header(std::string_view name) const {
  const Request& r = request();
  auto it = r.find(name);
  return it == r.end() ? std::string() : std::string(it->value());
}

// ---- reading ------------------------------------------------------------------------------

void Connection::read_header() {
  parser_.emplace();
  parser_->header_limit(static_cast<uint32_t>(limits_.max_header_bytes));
  parser_->body_limit(limits_.max_body_bytes);
  keep_alive_ = true;
  answered_ = false;
  // The whole head must arrive within the deadline however slowly it trickles in.
  arm_read_deadline(limits_.header_timeout_s);
  bhttp::async_read_header(
      socket_, buffer_, *parser_,
      [self = shared_from_this()](error_code ec, size_t) { self->on_header(ec); });
}

bool Connection::read_failed(error_code ec, const char* what) {
  if (!ec) return false;
  if (ec == bhttp::error::header_limit)
    respond(failure_reply(
        431, "the request headers exceed " + std::to_string(limits_.max_header_bytes) + " bytes"));
  else if (ec == bhttp::error::body_limit)
    respond(failure_reply(
        413, "the request body exceeds " + std::to_string(limits_.max_body_bytes) + " bytes"));
  else if (is_parse_error(ec))
    respond(failure_reply(400, std::string("malformed ") + what + ": " + ec.message()));
  else
    close();  // the client left, or a socket error
  return true;
}

void Connection::on_header(error_code ec) {
  if (closed_ || read_failed(ec, "HTTP request")) return;
  keep_alive_ = request().keep_alive();
  try {
    if (!on_head(request())) return;
  } catch (const std::exception& e) {
    return answer_failure(e);
  }
  if (closed_ || answered_) return;
  if (auto length = parser_->content_length(); length && *length > limits_.max_body_bytes)
    return respond(failure_reply(
        413, "the request body exceeds " + std::to_string(limits_.max_body_bytes) + " bytes"));
  if (boost::beast::iequals(header("Expect"), "100-continue") && !parser_->is_done())
    send("HTTP/1.1 100 Continue\r\n\r\n");
  read_body();
}

void Connection::read_body() {
  if (limits_.body_timeout_s > 0) arm_read_deadline(limits_.body_timeout_s);
  bhttp::async_read(socket_, buffer_, *parser_,
                    [self = shared_from_this()](error_code ec, size_t) { self->on_body(ec); });
}

void Connection::on_body(error_code ec) {
  if (closed_) return;
  ++read_deadline_gen_;
  read_deadline_.cancel();
  if (read_failed(ec, "HTTP request body")) return;
  // Watch the socket while answering, also when bytes of a pipelined request are already
  // buffered: a client that sends one byte more and leaves must still cancel its request.
  watch();
  try {
    on_request(request());
  } catch (const std::exception& e) {
    answer_failure(e);
  }
}

void Connection::answer_failure(const std::exception& e) {
  if (answered_) return close();  // half an answer is out: end it rather than garble it
  respond(failure_reply(500, std::string("internal error: ") + e.what()));
}

void Connection::watch() {
  if (watching_ || closed_) return;
  if (lingering_) buffer_.consume(buffer_.size());
  watching_ = true;
  socket_.async_read_some(
      buffer_.prepare(kWatchChunk),
      [self = shared_from_this()](error_code ec, size_t n) { self->on_watch(ec, n); });
}

void Connection::on_watch(error_code ec, size_t n) {
  watching_ = false;
  if (closed_) return;
  if (ec == asio::error::operation_aborted && resume_pipelined_) {
    // after_response() stopped the watch: the pipelined request is complete in the buffer.
    resume_pipelined_ = false;
    return read_header();
  }
  if (ec) return close();  // the client is gone: on_close() abandons its work
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

void Connection::respond(http::Reply reply) {
  answered_ = true;
  // Unread body bytes would be taken for the next request: close after this answer.
  if (!parser_ || !parser_->is_header_done() || !parser_->is_done()) keep_alive_ = false;
  send(http::serialize_reply(reply, keep_alive_, common_headers()));
  response_done_ = true;
  close_after_ = !keep_alive_;
}

void Connection::open_stream() {
  answered_ = true;
  chunked_ = request().version() >= 11;
  send(http::serialize_stream_head(chunked_, keep_alive_, common_headers()));
}

void Connection::send_event(std::string sse) { send(chunked_ ? http::chunk(sse) : std::move(sse)); }

void Connection::end_stream() {
  if (chunked_) send(http::last_chunk());
  response_done_ = true;
  close_after_ = !(keep_alive_ && chunked_);
}

// ---- writing ------------------------------------------------------------------------------

void Connection::send(std::string bytes) {
  if (closed_) return;
  out_.push_back(std::move(bytes));
  if (!writing_) write_next();
}

void Connection::write_next() {
  writing_ = true;
  // A client that accepts nothing for this long is not coming back.
  arm_write_deadline(limits_.idle_timeout_s);
  asio::async_write(socket_, asio::buffer(out_.front()),
                    [self = shared_from_this()](error_code ec, size_t) { self->on_write(ec); });
}

void Connection::on_write(error_code ec) {
  writing_ = false;
  if (closed_) return;
  if (ec) return close();
  out_.pop_front();
  if (!out_.empty()) return write_next();
  ++write_deadline_gen_;
  write_deadline_.cancel();
  if (response_done_) after_response();
}

void Connection::after_response() {
  response_done_ = false;
  on_answered();
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
  arm_read_deadline(limits_.idle_timeout_s);
  watch();
}

// ---- deadlines and closing ----------------------------------------------------------------

void Connection::arm_read_deadline(double seconds) {
  const uint64_t gen = ++read_deadline_gen_;
  read_deadline_.expires_after(to_duration(seconds));
  read_deadline_.async_wait([self = shared_from_this(), gen](error_code ec) {
    if (!ec && gen == self->read_deadline_gen_) self->close();
  });
}

void Connection::arm_write_deadline(double seconds) {
  const uint64_t gen = ++write_deadline_gen_;
  write_deadline_.expires_after(to_duration(seconds));
  write_deadline_.async_wait([self = shared_from_this(), gen](error_code ec) {
    if (!ec && gen == self->write_deadline_gen_) self->close();
  });
}

void Connection::linger_close() {
  if (closed_) return;
  lingering_ = true;
  error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  arm_read_deadline(kLingerSeconds);
  watch();
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  on_close();
  error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  ++read_deadline_gen_;
  ++write_deadline_gen_;
  read_deadline_.cancel();
  write_deadline_.cancel();
}

}  // namespace zen::frontend
