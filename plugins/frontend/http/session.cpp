#include "session.h"

#include "browser_guard.h"
#include "embeddings.h"
#include "endpoints.h"
#include "request_body.h"
#include "request_id.h"
#include "rerank.h"

namespace zen::http {

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
    const frontend::Json& object = std::get<frontend::Json>(parsed);
    try {
      switch (route_.endpoint) {
        case Endpoint::kChatCompletions:
          return start_generation(Api::kChat, object);
        case Endpoint::kCompletions:
          return start_generation(Api::kCompletion, object);
        case Endpoint::kEmbeddings:
          return start_embeddings(object);
        case Endpoint::kRerank:
          return start_rerank(object);
        case Endpoint::kTokenize:
          return start_tokenize(object, /*detokenize=*/false);
        default:
          return start_tokenize(object, /*detokenize=*/true);
      }
    } catch (const frontend::RequestRefused& e) {
      return respond(refused_reply(e));
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

void Session::submitted(const frontend::Submitted& sent, const char* missing) {
  if (sent.status == ZEN_OK) {
    engine_id_ = sent.id;
  } else if (!sent.supported) {  // else the refusal comes as the request's answer
    generation_.reset();
    answer_pending_ = false;
    respond(error_reply(501, missing, "server_error"));
  }
}

// Events are copied out of the host's structs on its thread and posted to this connection's
// strand; a one-result answer is made into its Reply on the host's thread, not an I/O thread.
void Session::start_generation(Api api, const frontend::Json& body) {
  const frontend::OpenAiRequest parsed = frontend::parse_openai_request(api, body);
  generation_ = std::make_unique<Generation>(GenerationOptions::of(api, parsed),
                                             static_cast<ResponseSink&>(*this));
  std::weak_ptr<Session> self = std::static_pointer_cast<Session>(shared_from_this());
  auto deliver = [self, ex = executor(), serial = ++serial_, inflight = shared_->inflight](
                     task::GenerateEvent event, bool last) {
    inflight->post(ex, [self, serial, event = std::move(event), last] {
      if (auto s = self.lock()) s->on_engine_event(serial, event, last);
    });
  };
  submitted(frontend::submit_generate_counted(shared_->api, parsed.request, shared_->inflight,
                                              std::move(deliver)),
            "this engine has no typed generation (it predates ABI 1.5)");
}

void Session::start_tokenize(const frontend::Json& body, bool detokenize) {
  auto request = std::make_shared<const frontend::TokenizeBody>(
      detokenize ? frontend::parse_detokenize_body(body) : frontend::parse_tokenize_body(body));
  std::weak_ptr<Session> self = std::static_pointer_cast<Session>(shared_from_this());
  answer_pending_ = true;
  auto deliver = [self, ex = executor(), serial = ++serial_, inflight = shared_->inflight, request](
                     const zen_tokenize_result* r, const zen_task_error* e) {
    inflight->post(ex, [self, serial, reply = tokenize_reply(*request, r, e)]() mutable {
      if (auto s = self.lock()) s->on_engine_answer(serial, std::move(reply));
    });
  };
  submitted(frontend::submit_tokenize_counted(shared_->api, request->typed(), shared_->inflight,
                                              std::move(deliver)),
            "this engine has no typed tokenizing (it predates ABI 1.5)");
}

void Session::start_embeddings(const frontend::Json& body) {
  auto parsed = parse_embed_body(body);
  if (auto* reply = std::get_if<Reply>(&parsed)) return respond(std::move(*reply));
  auto request = std::make_shared<const EmbedBody>(std::get<EmbedBody>(std::move(parsed)));
  const EmbedBody::Typed typed = request->typed();  // the host copies what it needs
  std::weak_ptr<Session> self = std::static_pointer_cast<Session>(shared_from_this());
  answer_pending_ = true;
  auto deliver = [self, ex = executor(), serial = ++serial_, inflight = shared_->inflight, request](
                     const zen_embed_result* r, const zen_task_error* e) {
    inflight->post(ex, [self, serial, reply = embed_reply(*request, r, e)]() mutable {
      if (auto s = self.lock()) s->on_engine_answer(serial, std::move(reply));
    });
  };
  submitted(frontend::submit_embed_counted(shared_->api, typed.request, shared_->inflight,
                                           std::move(deliver)),
            "this engine has no embeddings (it predates typed tasks)");
}

void Session::start_rerank(const frontend::Json& body) {
  auto parsed = parse_rerank_body(body);
  if (auto* reply = std::get_if<Reply>(&parsed)) return respond(std::move(*reply));
  auto request = std::make_shared<const RerankBody>(std::get<RerankBody>(std::move(parsed)));
  const RerankBody::Typed typed = request->typed();  // the host copies what it needs
  std::weak_ptr<Session> self = std::static_pointer_cast<Session>(shared_from_this());
  answer_pending_ = true;
  auto deliver = [self, ex = executor(), serial = ++serial_, inflight = shared_->inflight, request,
                  id = frontend::new_request_id("rerank-")](const zen_rerank_result* r,
                                                            const zen_task_error* e) {
    inflight->post(ex, [self, serial, reply = rerank_reply(*request, id, r, e)]() mutable {
      if (auto s = self.lock()) s->on_engine_answer(serial, std::move(reply));
    });
  };
  submitted(frontend::submit_rerank_counted(shared_->api, typed.request, shared_->inflight,
                                            std::move(deliver)),
            "this engine has no reranking (it predates typed tasks)");
}

void Session::on_engine_event(uint64_t serial, const task::GenerateEvent& event, bool last) {
  if (closed() || serial != serial_ || !generation_ || generation_->complete()) return;
  try {
    generation_->on_event(event, last);
  } catch (const std::exception&) {
    // An answer we cannot write: end it rather than leave the client hanging.
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
