#include "mcp/http_transport.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <zen/plugin.hpp>

#include "mcp/sse_parser.h"
#include "store/http_client.h"

namespace zen::mcp {

namespace {

using nlohmann::json;

constexpr size_t kMaxBodyBytes = 64 << 20;
constexpr size_t kErrorBodyShown = 200;

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::chrono::seconds whole_seconds(std::chrono::milliseconds ms) {
  return std::max(std::chrono::seconds(1), std::chrono::ceil<std::chrono::seconds>(ms));
}

// The response to `id` among the messages of a JSON body: one message, or a batch (an array
// of messages; nothing nests deeper).
const json* find_response(const json& body, const json& id) {
  auto is_ours = [&](const json& message) {
    return jsonrpc::kind_of(message) == jsonrpc::Kind::response && message["id"] == id;
  };
  if (!body.is_array()) return is_ours(body) ? &body : nullptr;
  for (const auto& message : body)
    if (is_ours(message)) return &message;
  return nullptr;
}

}  // namespace

struct HttpTransport::Exchange {
  unsigned status = 0;
  std::string status_line;
  std::string content_type;
  std::string body;              // a JSON body, or the start of an error body
  std::optional<json> response;  // our response, found in the JSON body or the SSE stream
};

HttpTransport::HttpTransport(const ServerConfig& config, std::chrono::milliseconds connect_timeout)
    : name_(config.name),
      url_(store::parse_url(config.url)),
      configured_headers_(config.headers),
      connect_timeout_(connect_timeout) {}

HttpTransport::~HttpTransport() { close(); }

void HttpTransport::set_protocol_version(const std::string& version) {
  std::lock_guard lock(mutex_);
  protocol_version_ = version;
}

std::string HttpTransport::session_id() const {
  std::lock_guard lock(mutex_);
  return session_id_;
}

store::Headers HttpTransport::request_headers() const {
  store::Headers headers = {{"Content-Type", "application/json"},
                            {"Accept", "application/json, text/event-stream"}};
  for (const auto& [name, value] : configured_headers_) headers.emplace_back(name, value);
  std::lock_guard lock(mutex_);
  if (!session_id_.empty()) headers.emplace_back("Mcp-Session-Id", session_id_);
  if (!protocol_version_.empty()) headers.emplace_back("MCP-Protocol-Version", protocol_version_);
  return headers;
}

HttpTransport::Exchange HttpTransport::post(const json& message, const CallControl& control) {
  Exchange exchange;
  const json id = message.contains("id") ? message["id"] : json();
  bool event_stream = false;
  SseParser events(
      [&](const SseEvent& event) {
        if (exchange.response || (event.type != "message" && !event.type.empty())) return;
        json parsed = parse_peer_json(event.data, name_);
        // Requests and notifications the server sends on the stream (progress, logging) are
        // not ours to answer: we declared no capabilities that would invite them.
        if (auto found = find_response(parsed, id)) exchange.response = *found;
      },
      kMaxBodyBytes);

  store::HttpOptions options;
  // Capped: a call without deadline must not overflow the socket timers.
  auto remaining = std::min<std::chrono::milliseconds>(
      std::chrono::duration_cast<std::chrono::milliseconds>(control.deadline - Clock::now()),
      std::chrono::hours(24));
  options.connect_timeout = whole_seconds(std::min(connect_timeout_, remaining));
  // The deadline and the cancel flag are enforced by should_abort; the stall timeout only
  // guards against a server that stops sending forever.
  options.stall_timeout = whole_seconds(remaining) + std::chrono::seconds(5);
  options.max_redirects = 3;
  // A server that keeps the stream open after our response is left once the response is in.
  options.should_abort = [&] {
    return closing_.load() || control.expired().has_value() ||
           (event_stream && exchange.response.has_value());
  };

  const std::string body = message.dump(-1, ' ', false, json::error_handler_t::replace);
  const bool sent_session = !session_id().empty();
  try {
    store::http_request(
        "POST", url_, request_headers(), body, options,
        [&](const store::Response& head) {
          exchange.status = head.status;
          exchange.status_line = head.status_line();
          exchange.content_type = lowercase(head.header("Content-Type"));
          event_stream = exchange.content_type.rfind("text/event-stream", 0) == 0;
          std::string session = head.header("Mcp-Session-Id");
          if (!session.empty()) {
            std::lock_guard lock(mutex_);
            if (session_id_.empty()) session_id_ = session;
          }
          return true;
        },
        [&](std::span<const char> bytes) {
          if (event_stream && exchange.status / 100 == 2) {
            try {
              events.feed({bytes.data(), bytes.size()});
            } catch (const std::length_error& e) {
              throw ProtocolViolation("mcp server '" + name_ + "' sent " + e.what() +
                                      " larger than " + std::to_string(kMaxBodyBytes >> 20) +
                                      " MiB");
            }
            return;
          }
          size_t limit = exchange.status / 100 == 2 ? kMaxBodyBytes : kErrorBodyShown;
          if (exchange.body.size() + bytes.size() > limit) {
            if (exchange.status / 100 == 2)
              throw CallError("mcp server '" + name_ + "' sent a response larger than " +
                              std::to_string(kMaxBodyBytes >> 20) + " MiB");
            exchange.body.append(bytes.data(), limit - std::min(limit, exchange.body.size()));
            return;
          }
          exchange.body.append(bytes.data(), bytes.size());
        });
  } catch (const Error& e) {
    if (e.status != ZEN_ERR_CANCELLED) throw CallError("mcp server '" + name_ + "': " + e.message);
    if (closing_) throw CallError("mcp server '" + name_ + "' was stopped");
    if (!exchange.response)
      throw CallAbandoned(control.expired().value_or(CallAbandoned::Reason::timeout));
  }

  if (exchange.status == 404 && sent_session) {
    expired_ = true;
    throw SessionExpired("mcp server '" + name_ + "' no longer knows the session (HTTP 404)");
  }
  if (exchange.status / 100 != 2) {
    std::string shown = exchange.body.substr(0, kErrorBodyShown);
    std::replace_if(
        shown.begin(), shown.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
    while (!shown.empty() && shown.back() == ' ') shown.pop_back();
    throw CallError("mcp server '" + name_ + "': " + exchange.status_line +
                    (shown.empty() ? "" : ": " + shown));
  }
  if (!event_stream && !exchange.body.empty() && !id.is_null()) {
    json parsed = parse_peer_json(exchange.body, name_);
    if (auto found = find_response(parsed, id)) exchange.response = *found;
  }
  return exchange;
}

json HttpTransport::request(const json& message, const CallControl& control) {
  Exchange exchange = post(message, control);
  if (!exchange.response)
    throw CallError(
        "mcp server '" + name_ + "' sent no response to " +
        message.value("method", std::string("the request")) + " (" + exchange.status_line + ", " +
        (exchange.content_type.empty() ? "no content type" : exchange.content_type) + ")");
  return std::move(*exchange.response);
}

void HttpTransport::notify(const json& message, const CallControl& control) {
  post(message, control);  // 202 Accepted; any 2xx will do
}

void HttpTransport::close() {
  if (closing_.exchange(true)) return;
  if (session_id().empty() || expired_) return;
  // Ending the session frees it on the server now rather than at its idle timeout. A server
  // may refuse (405) or be gone already: best effort, bounded by the connect timeout.
  store::HttpOptions options;
  options.connect_timeout = whole_seconds(connect_timeout_);
  options.stall_timeout = whole_seconds(connect_timeout_);
  options.max_redirects = 0;
  try {
    store::http_request(
        "DELETE", url_, request_headers(), {}, options, [](const store::Response&) { return true; },
        [](std::span<const char>) {});
  } catch (const Error&) {
  }
}

}  // namespace zen::mcp
