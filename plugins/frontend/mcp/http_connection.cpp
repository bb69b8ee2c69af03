#include "http_connection.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>

#include <algorithm>
#include <chrono>

#include "access.h"
#include "browser_guard.h"

namespace zen::mcp_server {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
using boost::system::error_code;

namespace {

constexpr size_t kWatchChunk = 4096;
constexpr const char* kVersionMetaKey = "io.modelcontextprotocol/protocolVersion";

std::chrono::milliseconds to_duration(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000.0));
}

bool is_parse_error(error_code ec) {
  return ec && &ec.category() == &bhttp::make_error_code(bhttp::error::end_of_stream).category() &&
         ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message;
}

// A request's answer and its notifications, carried to the connection's strand.
class HttpChannel : public Channel {
 public:
  HttpChannel(std::weak_ptr<HttpConnection> connection, asio::any_io_executor executor,
              std::shared_ptr<PostGate> gate, uint64_t serial)
      : connection_(std::move(connection)),
        executor_(std::move(executor)),
        gate_(std::move(gate)),
        serial_(serial) {}
  void notify(const Json& notification) override { deliver(dump(notification), false); }
  void answer(const Json& response) override { deliver(dump(response), true); }

 private:
  void deliver(std::string text, bool final) {
    gate_->post(executor_, [c = connection_, serial = serial_, text = std::move(text), final] {
      if (auto connection = c.lock()) connection->on_message(serial, std::move(text), final);
    });
  }
  std::weak_ptr<HttpConnection> connection_;
  asio::any_io_executor executor_;
  std::shared_ptr<PostGate> gate_;
  uint64_t serial_;
};

// The version a request names in its 2026-07-28 _meta ("" when none).
std::string meta_version(const Json& message) {
  const Json params = message.value("params", Json::object());
  if (!params.contains("_meta") || !params["_meta"].is_object()) return "";
  const Json& v = params["_meta"].value(kVersionMetaKey, Json());
  return v.is_string() ? v.get<std::string>() : "";
}

}  // namespace

HttpConnection::HttpConnection(asio::ip::tcp::socket socket, std::shared_ptr<HttpShared> shared,
                               frontend::ConnectionTicket ticket)
    : socket_(std::move(socket), shared->tls.get()),
      ticket_(std::move(ticket)),
      deadline_(socket_.get_executor()),
      shared_(std::move(shared)),
      config_(shared_->config) {}

void HttpConnection::start() {
  if (!socket_.is_tls()) return read_request();
  // The handshake counts against the request deadline: a client that opens TLS and stalls is
  // dropped like one that trickles its head.
  arm_deadline(config_.request_timeout_s);
  socket_.async_handshake([self = shared_from_this()](error_code ec) { self->on_handshake(ec); });
}

void HttpConnection::on_handshake(error_code ec) {
  if (closed_) return;
  if (ec) return close();  // not TLS (a plain http request), a bad client hello, or gone
  read_request();
}

void HttpConnection::shutdown() {
  asio::dispatch(socket_.get_executor(), [self = shared_from_this()] { self->close(); });
}

// ---- reading ------------------------------------------------------------------------------

void HttpConnection::read_request() {
  parser_.emplace();
  parser_->header_limit(config_.max_header_bytes);
  parser_->body_limit(config_.max_body_bytes);
  arm_deadline(config_.request_timeout_s);  // the whole request, head and body
  bhttp::async_read_header(
      socket_, buffer_, *parser_,
      [self = shared_from_this()](error_code ec, size_t) { self->on_header(ec); });
}

// The head alone decides most refusals (Host, Origin, path, key, content type): a client
// without the key cannot make us read, buffer or parse a body.
void HttpConnection::on_header(error_code ec) {
  if (closed_) return;
  if (ec) return on_read(ec);
  version_ = parser_->get().version();
  keep_alive_ = false;  // a refusal leaves the body unread: close after answering
  try {
    if (!admit()) return;
  } catch (const std::exception& e) {
    return respond_rpc_error(500, nullptr, jsonrpc::kInternalError,
                             std::string("Internal error: ") + e.what());
  }
  bhttp::async_read(socket_, buffer_, *parser_,
                    [self = shared_from_this()](error_code ec2, size_t) { self->on_read(ec2); });
}

void HttpConnection::on_read(error_code ec) {
  if (closed_) return;
  ++deadline_gen_;
  deadline_.cancel();
  keep_alive_ = false;  // an unreadable request leaves the stream unusable
  if (ec == bhttp::error::header_limit)
    return respond_rpc_error(
        431, nullptr, jsonrpc::kInvalidRequest,
        "the request headers exceed " + std::to_string(config_.max_header_bytes) + " bytes");
  if (ec == bhttp::error::body_limit)
    return respond_rpc_error(
        413, nullptr, jsonrpc::kInvalidRequest,
        "the request body exceeds " + std::to_string(config_.max_body_bytes) + " bytes");
  if (is_parse_error(ec))
    return respond_rpc_error(400, nullptr, jsonrpc::kInvalidRequest,
                             "malformed HTTP request: " + ec.message());
  if (ec) return close();  // the client left, or a socket error
  keep_alive_ = parser_->get().keep_alive();
  version_ = parser_->get().version();
  if (buffer_.size() == 0) watch();  // otherwise the next request's bytes are already here
  try {
    handle_request();
  } catch (const std::exception& e) {
    if (!answering_)
      respond_rpc_error(500, nullptr, jsonrpc::kInternalError,
                        std::string("Internal error: ") + e.what());
  }
}

void HttpConnection::watch() {
  if (watching_ || closed_) return;
  watching_ = true;
  socket_.async_read_some(
      buffer_.prepare(kWatchChunk),
      [self = shared_from_this()](error_code ec, size_t n) { self->on_watch(ec, n); });
}

void HttpConnection::on_watch(error_code ec, size_t n) {
  watching_ = false;
  if (closed_) return;
  if (ec) return close();  // the client is gone: close() abandons its generation
  buffer_.commit(n);
  if (awaiting_next_) {
    awaiting_next_ = false;
    read_request();
  }
  // Otherwise these are the next request's first bytes: they wait until this answer is out.
}

std::string HttpConnection::header(std::string_view name) const {
  const auto& r = parser_->get();
  auto it = r.find(name);
  return it == r.end() ? std::string() : std::string(it->value());
}

// ---- answering ----------------------------------------------------------------------------

bool HttpConnection::admit() {
  const auto& r = parser_->get();
  const std::string target(r.target());
  const std::string path = target.substr(0, target.find('?'));
  if (const std::string host = header("Host");
      shared_->loopback && !frontend::loopback_host_allowed(host)) {
    respond_rpc_error(403, nullptr, jsonrpc::kInvalidRequest,
                      "Forbidden: the Host '" + host +
                          "' is not allowed: this server listens on a loopback address "
                          "and answers only localhost, 127.0.0.1 or [::1]");
    return false;
  }
  origin_ = header("Origin");
  if (!frontend::origin_allowed(origin_, config_.allowed_origins)) {
    const std::string refused = origin_;
    origin_.clear();  // no CORS grant on the refusal
    respond_rpc_error(403, nullptr, jsonrpc::kInvalidRequest,
                      "Forbidden: the origin '" + refused + "' is not allowed");
    return false;
  }
  if (path != config_.path) {
    respond_rpc_error(404, nullptr, jsonrpc::kInvalidRequest,
                      "Not found: the MCP endpoint is " + config_.path);
    return false;
  }
  if (r.method() == bhttp::verb::options) {
    Reply reply;
    reply.status = 204;
    reply.headers = {{"Allow", "POST, DELETE, OPTIONS"},
                     {"Access-Control-Allow-Methods", "POST, DELETE, OPTIONS"},
                     {"Access-Control-Allow-Headers",
                      "Content-Type, Authorization, x-api-key, Mcp-Session-Id, "
                      "Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID"},
                     {"Access-Control-Max-Age", "600"}};
    respond(std::move(reply));
    return false;
  }
  if (!zen::http::authorized(config_.api_key, header("Authorization"), header("x-api-key"))) {
    respond_rpc_error(401, nullptr, jsonrpc::kInvalidRequest,
                      "Unauthorized: invalid or missing API key (send 'Authorization: Bearer "
                      "KEY')");
    return false;
  }
  if (r.method() == bhttp::verb::post && !frontend::is_json_content_type(header("Content-Type"))) {
    respond_rpc_error(415, nullptr, jsonrpc::kInvalidRequest,
                      "Unsupported Media Type: POST a JSON-RPC message with "
                      "'Content-Type: application/json'");
    return false;
  }
  return true;
}

void HttpConnection::handle_request() {
  const auto& r = parser_->get();
  if (r.method() == bhttp::verb::post) return handle_post();
  if (r.method() == bhttp::verb::delete_) return handle_delete();
  // No server-initiated stream: every message to the client rides a POST's answer.
  Reply reply = zen::http::json_reply(
      405, jsonrpc::error(nullptr, jsonrpc::kInvalidRequest,
                          "Method Not Allowed: this server offers no GET stream; POST messages"));
  reply.headers.emplace_back("Allow", "POST, DELETE, OPTIONS");
  respond(std::move(reply));
}

void HttpConnection::handle_post() {
  Json message;
  try {
    message = parse_message(parser_->get().body());
  } catch (const RpcError& e) {
    return respond_rpc_error(400, e.id, e.code, e.what(), e.data);
  }
  const jsonrpc::Kind kind = kind_of(message);
  if (const std::string v = header("Mcp-Protocol-Version");
      !v.empty() && std::find(supported_versions().begin(), supported_versions().end(), v) ==
                        supported_versions().end())
    return respond_rpc_error(400, id_of(message), rpc::kUnsupportedVersion,
                             "Bad Request: unsupported MCP-Protocol-Version " + v,
                             Json{{"supported", supported_versions()}, {"requested", v}});
  if (const std::string m = header("Mcp-Method");
      !m.empty() && kind != jsonrpc::Kind::response && m != message["method"].get<std::string>())
    return respond_rpc_error(
        400, id_of(message), rpc::kHeaderMismatch,
        "Bad Request: the Mcp-Method header (" + m + ") does not match the body's method");
  std::shared_ptr<Protocol> protocol = session_for(message);
  if (!protocol) return;  // answered
  if (kind != jsonrpc::Kind::request) {
    protocol->handle(message, nullptr);
    Reply accepted;
    accepted.status = 202;
    return respond(std::move(accepted));
  }
  ++serial_;
  answering_ = true;
  streaming_ = false;
  auto channel =
      std::make_shared<HttpChannel>(weak_from_this(), executor(), shared_->gate, serial_);
  call_ = protocol->handle(message, channel);
}

std::shared_ptr<Protocol> HttpConnection::session_for(const Json& message) {
  const std::string sid = header("Mcp-Session-Id");
  const bool request = kind_of(message) == jsonrpc::Kind::request;
  const std::string method = message.value("method", std::string());
  if (request && method == "initialize") {
    if (!sid.empty()) {
      respond_rpc_error(400, id_of(message), jsonrpc::kInvalidRequest,
                        "Bad Request: initialize opens a new session; send it without "
                        "Mcp-Session-Id");
      return nullptr;
    }
    std::string id;
    auto protocol = shared_->sessions.create(shared_->api, shared_->pending, id);
    new_session_id_ = id;
    return protocol;
  }
  if (!sid.empty()) {
    auto protocol = shared_->sessions.find(sid);
    if (!protocol)
      respond_rpc_error(404, id_of(message), jsonrpc::kInvalidRequest,
                        "Not Found: no session " + sid + " (it ended; initialize again)");
    return protocol;
  }
  // 2026-07-28 requests are self-contained: no handshake, no session.
  if (meta_version(message) == kModernVersion || header("Mcp-Protocol-Version") == kModernVersion ||
      method == "server/discover")
    return shared_->stateless;
  respond_rpc_error(400, id_of(message), jsonrpc::kInvalidRequest,
                    "Bad Request: Mcp-Session-Id header is required (initialize first)");
  return nullptr;
}

void HttpConnection::handle_delete() {
  const std::string sid = header("Mcp-Session-Id");
  if (sid.empty())
    return respond_rpc_error(400, nullptr, jsonrpc::kInvalidRequest,
                             "Bad Request: DELETE needs the Mcp-Session-Id header");
  if (!shared_->sessions.end(sid))
    return respond_rpc_error(404, nullptr, jsonrpc::kInvalidRequest,
                             "Not Found: no session " + sid);
  Reply ended;
  ended.status = 204;
  respond(std::move(ended));
}

void HttpConnection::on_message(uint64_t serial, std::string text, bool final) {
  if (closed_ || !answering_ || serial != serial_) return;
  if (final) {
    answering_ = false;
    call_.reset();
  }
  if (!streaming_ && final) {
    // Nothing preceded the answer: a plain JSON response.
    Reply reply;
    reply.body = std::move(text);
    if (!new_session_id_.empty()) {
      const Json answer = Json::parse(reply.body, nullptr, false);
      if (answer.is_object() && answer.contains("result"))
        reply.headers.emplace_back("Mcp-Session-Id", new_session_id_);
      else
        shared_->sessions.end(new_session_id_);  // the handshake failed: no session
      new_session_id_.clear();
    }
    return respond(std::move(reply));
  }
  if (!streaming_) {
    streaming_ = true;
    chunked_ = version_ >= 11;
    send(zen::http::serialize_stream_head(chunked_, keep_alive_, common_headers()));
  }
  std::string event = "event: message\ndata: " + text + "\n\n";
  send(chunked_ ? zen::http::chunk(event) : std::move(event));
  if (final) {
    if (chunked_) send(zen::http::last_chunk());
    response_done_ = true;
    close_after_ = !(keep_alive_ && chunked_);
  }
}

zen::http::HeaderList HttpConnection::common_headers() const {
  zen::http::HeaderList h;
  if (!origin_.empty()) {  // an allowed browser origin (refused ones never get here)
    h.emplace_back("Access-Control-Allow-Origin", origin_);
    h.emplace_back("Access-Control-Expose-Headers", "Mcp-Session-Id");
    h.emplace_back("Vary", "Origin");
  }
  return h;
}

void HttpConnection::respond(Reply reply) {
  send(zen::http::serialize_reply(reply, keep_alive_, common_headers()));
  response_done_ = true;
  close_after_ = !keep_alive_;
}

void HttpConnection::respond_rpc_error(unsigned status, const Json& id, int code,
                                       const std::string& message, Json data) {
  Reply reply = zen::http::json_reply(status, jsonrpc::error(id, code, message, std::move(data)));
  if (status == 401) reply.headers.emplace_back("WWW-Authenticate", "Bearer");
  respond(std::move(reply));
}

// ---- writing ------------------------------------------------------------------------------

void HttpConnection::send(std::string bytes) {
  if (closed_) return;
  out_.push_back(std::move(bytes));
  if (!writing_) write_next();
}

void HttpConnection::write_next() {
  writing_ = true;
  arm_deadline(config_.idle_timeout_s);  // a client that accepts nothing is not coming back
  asio::async_write(socket_, asio::buffer(out_.front()),
                    [self = shared_from_this()](error_code ec, size_t) { self->on_write(ec); });
}

void HttpConnection::on_write(error_code ec) {
  writing_ = false;
  if (closed_) return;
  if (ec) return close();
  out_.pop_front();
  if (!out_.empty()) return write_next();
  ++deadline_gen_;
  deadline_.cancel();
  if (response_done_) after_response();
}

void HttpConnection::after_response() {
  response_done_ = false;
  streaming_ = false;
  if (close_after_) {
    error_code ignored;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
    return close();
  }
  if (buffer_.size() > 0 && !watching_) return read_request();  // the next request is here
  awaiting_next_ = true;  // the watch read (pending, or started now) waits for it
  arm_deadline(config_.idle_timeout_s);
  watch();
}

// ---- deadlines and closing ----------------------------------------------------------------

void HttpConnection::arm_deadline(double seconds) {
  const uint64_t gen = ++deadline_gen_;
  deadline_.expires_after(to_duration(seconds));
  deadline_.async_wait([self = shared_from_this(), gen](error_code ec) {
    if (!ec && gen == self->deadline_gen_) self->close();
  });
}

void HttpConnection::close() {
  if (closed_) return;
  closed_ = true;
  if (call_) call_->cancel();  // nobody is left to read the answer
  call_.reset();
  answering_ = false;
  error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  ++deadline_gen_;
  deadline_.cancel();
}

}  // namespace zen::mcp_server
