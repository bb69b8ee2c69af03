#include "inflight.h"

#include <boost/asio/post.hpp>

namespace zen::frontend {
namespace {

// The `user` pointer of a generation: deleted after the last event.
struct GenerateRoute {
  std::shared_ptr<Inflight> inflight;
  GenerateHandler on_event;
};

void route_generate(void* user, const zen_generate_event* event, int last) {
  auto* route = static_cast<GenerateRoute*>(user);
  if (!route) return;
  if (event) {
    route->on_event(task::GenerateEvent::copy_of(*event), last != 0);
  } else if (last) {  // a host that ends without an event still ends the request
    task::GenerateEvent e;
    e.kind = ZEN_EVENT_ERROR;
    e.error = task::TaskError{
        ZEN_ERR_INTERNAL, "the engine ended the request without an event", {}, {}, 0};
    route->on_event(std::move(e), true);
  }
  if (last) {
    std::shared_ptr<Inflight> inflight = std::move(route->inflight);
    delete route;
    inflight->release();
  }
}

// The `user` pointer of a one-answer task (tokenize, embed): deleted after its one call.
template <class Result>
struct AnswerRoute {
  std::shared_ptr<Inflight> inflight;
  std::function<void(const Result*, const zen_task_error*)> on_answer;
};

template <class Result>
void route_answer(void* user, const Result* result, const zen_task_error* error) {
  auto* route = static_cast<AnswerRoute<Result>*>(user);
  if (!route) return;
  route->on_answer(result, error);
  std::shared_ptr<Inflight> inflight = std::move(route->inflight);
  delete route;
  inflight->release();
}

}  // namespace

void Inflight::add() {
  std::lock_guard lock(mutex_);
  ++count_;
}

void Inflight::release() {
  std::lock_guard lock(mutex_);
  if (count_ > 0 && --count_ == 0) idle_.notify_all();
}

bool Inflight::wait_idle(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return idle_.wait_for(lock, timeout, [&] { return count_ == 0; });
}

void Inflight::post(const boost::asio::any_io_executor& ex, std::function<void()> f) {
  std::lock_guard lock(mutex_);
  if (open_) boost::asio::post(ex, std::move(f));
}

void Inflight::close() {
  std::lock_guard lock(mutex_);
  open_ = false;
}

// Once submitted, the route is the host's: it answers every request through the callback, a
// refusal too, and the route goes with the last call.
Submitted submit_generate_counted(const http::EngineApi& api, const task::GenerateRequest& request,
                                  std::shared_ptr<Inflight> inflight, GenerateHandler on_event) {
  Submitted s;
  if (!api.has_generate()) return Submitted{false, ZEN_ERR_UNSUPPORTED, 0};
  const task::GenerateRequestView view(request);  // the host copies what it needs
  inflight->add();
  s.status = api.submit_generate(*view.get(), route_generate,
                                 new GenerateRoute{inflight, std::move(on_event)}, &s.id);
  return s;
}

Submitted submit_tokenize_counted(const http::EngineApi& api, const zen_tokenize_request& request,
                                  std::shared_ptr<Inflight> inflight, TokenizeHandler on_answer) {
  Submitted s;
  if (!api.has_tokenize()) return Submitted{false, ZEN_ERR_UNSUPPORTED, 0};
  inflight->add();
  s.status = api.submit_tokenize(
      request, route_answer<zen_tokenize_result>,
      new AnswerRoute<zen_tokenize_result>{inflight, std::move(on_answer)}, &s.id);
  return s;
}

Submitted submit_embed_counted(const http::EngineApi& api, const zen_embed_request& request,
                               std::shared_ptr<Inflight> inflight, EmbedHandler on_answer) {
  Submitted s;
  if (!api.has_tasks()) return Submitted{false, ZEN_ERR_UNSUPPORTED, 0};
  inflight->add();
  s.status =
      api.submit_embed(request, route_answer<zen_embed_result>,
                       new AnswerRoute<zen_embed_result>{inflight, std::move(on_answer)}, &s.id);
  return s;
}

Submitted submit_rerank_counted(const http::EngineApi& api, const zen_rerank_request& request,
                                std::shared_ptr<Inflight> inflight, RerankHandler on_answer) {
  Submitted s;
  if (!api.has_tasks()) return Submitted{false, ZEN_ERR_UNSUPPORTED, 0};
  inflight->add();
  s.status =
      api.submit_rerank(request, route_answer<zen_rerank_result>,
                        new AnswerRoute<zen_rerank_result>{inflight, std::move(on_answer)}, &s.id);
  return s;
}

}  // namespace zen::frontend
