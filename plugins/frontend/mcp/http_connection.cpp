#include "http_connection.h"

#include <boost/asio/post.hpp>

#include <algorithm>

#include "access.h"
#include "browser_guard.h"

namespace zen::mcp_server {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
using boost::system::error_code;

namespace {

constexpr const char* kVersionMetaKey = "io.modelcontextprotocol/protocolVersion";

// A request's answer and its notifications, carried to the connection's strand.
class HttpChannel : public Channel {
 public:
  HttpChannel(std::weak_ptr<HttpConnection> connection, asio::any_io_executor executor,
              std::shared_ptr<frontend::Inflight> inflight, uint64_t serial)
      : connection_(std::move(connection)),
        executor_(std::move(executor)),
        inflight_(std::move(inflight)),
        serial_(serial) {}
  void notify(const Json& notification) override { deliver(dump(notification), false); }
  void answer(const Json& response) override { deliver(dump(response), true); }

 private:
  void deliver(std::string text, bool final) {
    inflight_->post(executor_, [c = connection_, serial = serial_, text = std::move(text), final] {
      if (auto connection = c.lock()) connection->on_message(serial, std::move(text), final);
    });
  }
  std::weak_ptr<HttpConnection> connection_;
  asio::any_io_executor executor_;
  std::shared_ptr<frontend::Inflight> inflight_;
  uint64_t serial_;
};

// The version a request names in its 2026-07-28 _meta ("" when none).
std::string meta_version(const Json& message) {
  const Json params = message.value("params", Json::object());
  if (!params.contains("_meta") || !params["_meta"].is_object()) return "";
  const Json& v = params["_meta"].value(kVersionMetaKey, Json());
  return v.is_string() ? v.get<std::string>() : "";
}

// A JSON-RPC error as the HTTP answer.
zen::http::Reply rpc_error_reply(unsigned status, const Json& id, int code,
                                 const std::string& message, Json data = nullptr) {
  zen::http::Reply reply =
      zen::http::json_reply(status, jsonrpc::error(id, code, message, std::move(data)));
  if (status == 401) reply.headers.emplace_back("WWW-Authenticate", "Bearer");
  return reply;
}

}  // namespace

HttpConnection::HttpConnection(asio::ip::tcp::socket socket, std::shared_ptr<HttpShared> shared,
                               frontend::ConnectionTicket ticket)
    : frontend::Connection(std::move(socket), shared->tls.get(), std::move(ticket),
                           {shared->config.max_header_bytes, shared->config.max_body_bytes,
                            shared->config.request_timeout_s, /*head's deadline covers it*/ 0,
                            shared->config.idle_timeout_s}),
      shared_(std::move(shared)),
      config_(shared_->config) {}

zen::http::Reply HttpConnection::failure_reply(unsigned status, const std::string& message) {
  return rpc_error_reply(
      status, nullptr, status >= 500 ? jsonrpc::kInternalError : jsonrpc::kInvalidRequest, message);
}

// ---- answering ----------------------------------------------------------------------------

bool HttpConnection::on_head(const Request& r) {
  origin_.clear();
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
  if (const std::string origin = header("Origin");
      !frontend::origin_allowed(origin, config_.allowed_origins)) {
    respond_rpc_error(403, nullptr, jsonrpc::kInvalidRequest,
                      "Forbidden: the origin '" + origin + "' is not allowed");
    return false;
  } else {
    origin_ = origin;
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

void HttpConnection::on_request(const Request& r) {
  try {
    if (r.method() == bhttp::verb::post) return handle_post();
  } catch (const std::exception&) {
    if (!answering_) throw;  // a started call answers through its channel
    return;
  }
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
    message = parse_message(request().body());
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
      std::make_shared<HttpChannel>(std::static_pointer_cast<HttpConnection>(shared_from_this()),
                                    executor(), shared_->inflight, serial_);
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
    auto protocol = shared_->sessions.create(shared_->api, shared_->inflight, id);
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
  if (closed() || !answering_ || serial != serial_) return;
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
    open_stream();
  }
  send_event("event: message\ndata: " + text + "\n\n");
  if (final) end_stream();
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

void HttpConnection::respond_rpc_error(unsigned status, const Json& id, int code,
                                       const std::string& message, Json data) {
  respond(rpc_error_reply(status, id, code, message, std::move(data)));
}

void HttpConnection::on_close() {
  if (call_) call_->cancel();  // nobody is left to read the answer
  call_.reset();
  answering_ = false;
}

}  // namespace zen::mcp_server
