#include "session.h"

#include "browser_guard.h"
#include "embeddings.h"
#include "endpoints.h"
#include "request_body.h"

namespace zen::http {

using nlohmann::json;

namespace {

frontend::ConnectionLimits limits(const HttpConfig& c) {
  return {c.max_header_bytes, c.max_body_bytes, c.header_timeout_s, c.body_timeout_s,
          c.idle_timeout_s};
}

}  // namespace

Session::Session(boost::asio::ip::tcp::socket socket, std::shared_ptr<const ServerShared> shared,
                 frontend::ConnectionTicket ticket)
    : frontend::Connection(std::move(socket), shared->tls.get(), std::move(ticket),
                           limits(shared->config)),
      shared_(std::move(shared)),
      config_(shared_->config) {}

Reply Session::failure_reply(unsigned status, const std::string& message) {
  return error_reply(status, message, error_type_for(status));
}

// A browser page on another site (or rebound to our address) gets nothing: these checks come
// before routing, the key and the body.
bool Session::on_head(const Request& r) {
  origin_.clear();
  const std::string method(r.method_string()), target(r.target());
  if (const std::string host = header("Host");
      shared_->loopback && !frontend::loopback_host_allowed(host)) {
    respond(error_reply(403,
                        "the Host '" + host +
                            "' is not allowed: this server listens on a loopback "
                            "address and answers only localhost, 127.0.0.1 or [::1]",
                        "invalid_request_error", "", "host_not_allowed"));
    return false;
  }
  const std::string origin = header("Origin");
  if (!frontend::origin_allowed(origin, config_.cors_origins)) {
    respond(error_reply(403, "the origin '" + origin + "' is not allowed", "invalid_request_error",
                        "", "origin_not_allowed"));
    return false;
  }
  origin_ = origin;

  if (method == "OPTIONS") {
    preflight();
    return false;
  }
  route_ = route(method, target);
  if (route_.outcome == Route::Outcome::kNotFound) {
    respond(error_reply(404,
                        "Invalid URL (" + method + " " + std::string(target_path(target)) + ")",
                        "invalid_request_error", "", "not_found"));
    return false;
  }
  if (route_.outcome == Route::Outcome::kWrongMethod) {
    Reply reply = error_reply(
        405, "Method " + method + " is not allowed on this URL (use " + route_.allow + ")",
        "invalid_request_error", "", "method_not_allowed");
    reply.headers.emplace_back("Allow", route_.allow);
    respond(std::move(reply));
    return false;
  }
  if (needs_key(route_.endpoint) &&
      !authorized(config_.api_key, header("Authorization"), header("x-api-key"))) {
    Reply reply = error_reply(401, "invalid or missing API key (send 'Authorization: Bearer KEY')",
                              "invalid_request_error", "", "invalid_api_key");
    reply.headers.emplace_back("WWW-Authenticate", "Bearer");
    respond(std::move(reply));
    return false;
  }
  if (takes_body(route_.endpoint) && !frontend::is_json_content_type(header("Content-Type"))) {
    respond(error_reply(415,
                        "the request body must be JSON (send 'Content-Type: application/json')",
                        "invalid_request_error", "", "unsupported_media_type"));
    return false;
  }
  return true;
}

HeaderList Session::common_headers() const {
  HeaderList h;
  if (!origin_.empty()) {
    h.emplace_back("Access-Control-Allow-Origin", origin_);
    h.emplace_back("Vary", "Origin");
  }
  return h;
}

void Session::preflight() {
  Reply reply;
  reply.status = 204;
  if (origin_.empty()) {
    reply.headers.emplace_back("Allow", CorsPolicy::kMethods);
  } else {
    std::string asked = header("Access-Control-Request-Headers");
    reply.headers.emplace_back("Access-Control-Allow-Methods", CorsPolicy::kMethods);
    reply.headers.emplace_back("Access-Control-Allow-Headers",
                               asked.empty() ? CorsPolicy::kDefaultHeaders : asked);
    reply.headers.emplace_back("Access-Control-Max-Age", CorsPolicy::kMaxAgeSeconds);
  }
  respond(std::move(reply));
}

void Session::on_request(const Request& request) {
  if (takes_body(route_.endpoint)) {
    auto parsed = parse_json_object(request.body());
    if (auto* reply = std::get_if<Reply>(&parsed)) return respond(std::move(*reply));
    json& object = std::get<json>(parsed);
    switch (route_.endpoint) {
      case Endpoint::kChatCompletions:
        return start_generation(Api::kChat, std::move(object));
      case Endpoint::kCompletions:
        return start_generation(Api::kCompletion, std::move(object));
      case Endpoint::kEmbeddings:
        return start_embeddings(object);
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

void Session::start_embeddings(const json& body) {
  auto parsed = parse_embed_body(body);
  if (auto* reply = std::get_if<Reply>(&parsed)) return respond(std::move(*reply));
  auto request = std::make_shared<const EmbedBody>(std::get<EmbedBody>(std::move(parsed)));
  const EmbedBody::Typed typed = request->typed();  // the host copies what it needs
  std::weak_ptr<Session> self = std::static_pointer_cast<Session>(shared_from_this());
  answer_pending_ = true;
  // The answer is made into its Reply on the host's thread, then posted to this strand.
  auto deliver = [self, ex = executor(), serial = ++serial_, inflight = shared_->inflight, request](
                     const zen_embed_result* r, const zen_task_error* e) {
    inflight->post(ex, [self, serial, reply = embed_reply(*request, r, e)]() mutable {
      if (auto s = self.lock()) s->on_engine_answer(serial, std::move(reply));
    });
  };
  if (!frontend::submit_embed_counted(shared_->api, typed.request, shared_->inflight,
                                      std::move(deliver))) {
    answer_pending_ = false;
    respond(error_reply(501, "this engine has no embeddings (it predates typed tasks)",
                        "server_error"));
  }
}

void Session::submit(const std::string& request, bool whole_answer) {
  // Events are posted to this connection's strand; a tokenize/detokenize answer is made into
  // its Reply on the host's thread rather than on an I/O thread.
  std::weak_ptr<Session> self = std::static_pointer_cast<Session>(shared_from_this());
  auto deliver = [self, ex = executor(), serial = ++serial_, inflight = shared_->inflight,
                  whole_answer](std::string text, bool last) {
    if (!whole_answer)
      return inflight->post(ex, [self, serial, text = std::move(text), last] {
        if (auto s = self.lock()) s->on_engine_event(serial, text, last);
      });
    if (last)
      inflight->post(ex, [self, serial, reply = answer_from_event(text)]() mutable {
        if (auto s = self.lock()) s->on_engine_answer(serial, std::move(reply));
      });
  };
  const frontend::Submitted sent =
      frontend::submit_counted(shared_->api, request, shared_->inflight, std::move(deliver));
  if (sent.status == ZEN_OK) {
    engine_id_ = sent.id;
  } else if (sent.refused_silently) {
    generation_.reset();
    answer_pending_ = false;
    respond(error_reply(500,
                        "the engine refused the request (status " +
                            std::to_string(static_cast<int>(sent.status)) + ")",
                        "server_error"));
  }
}

void Session::on_engine_event(uint64_t serial, const std::string& event_json, bool last) {
  if (closed() || serial != serial_ || !generation_ || generation_->complete()) return;
  try {
    generation_->on_event(event_json, last);
  } catch (const std::exception&) {
    // An event we cannot read: end this answer rather than leave the client hanging.
    if (engine_id_) shared_->api.cancel(*engine_id_);
    close();
  }
}

void Session::on_engine_answer(uint64_t serial, Reply reply) {
  if (closed() || serial != serial_ || !answer_pending_) return;
  answer_pending_ = false;
  respond(std::move(reply));
}

void Session::on_answered() {
  generation_.reset();
  engine_id_.reset();
}

void Session::on_close() {
  if (engine_id_ && ((generation_ && !generation_->complete()) || answer_pending_))
    shared_->api.cancel(*engine_id_);
  generation_.reset();
  answer_pending_ = false;
  engine_id_.reset();
}

}  // namespace zen::http
