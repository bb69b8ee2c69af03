#include "inflight.h"

#include <boost/asio/post.hpp>

#include <atomic>

namespace zen::frontend {
namespace {

// The `user` pointer handed to submit(): deleted after the last event.
struct Route {
  std::shared_ptr<Inflight> inflight;
  EventHandler on_event;
  // Set before the route is deleted: after a failed submit() it tells whether the host
  // reported the failure through the callback (and so took the route) or not.
  std::shared_ptr<std::atomic<bool>> reported;
};

void route_event(void* user, const char* event_json, int last) {
  auto* route = static_cast<Route*>(user);
  if (!route) return;
  route->on_event(event_json ? event_json : "", last != 0);
  if (last) {
    route->reported->store(true);
    std::shared_ptr<Inflight> inflight = std::move(route->inflight);
    delete route;
    inflight->release();
  }
}

struct EmbedRoute {
  std::shared_ptr<Inflight> inflight;
  EmbedHandler on_answer;
};

void route_embed(void* user, const zen_embed_result* result, const zen_task_error* error) {
  auto* route = static_cast<EmbedRoute*>(user);
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

Submitted submit_counted(const http::EngineApi& api, const std::string& request_json,
                         std::shared_ptr<Inflight> inflight, EventHandler on_event) {
  auto reported = std::make_shared<std::atomic<bool>>(false);
  inflight->add();
  auto* route = new Route{inflight, std::move(on_event), reported};
  Submitted s;
  s.status = api.submit(request_json, route_event, route, &s.id);
  if (s.status != ZEN_OK && !reported->load()) {  // refused without an event: still ours
    delete route;
    inflight->release();
    s.refused_silently = true;
  }
  return s;
}

bool submit_embed_counted(const http::EngineApi& api, const zen_embed_request& request,
                          std::shared_ptr<Inflight> inflight, EmbedHandler on_answer) {
  if (!api.has_tasks()) return false;
  inflight->add();
  uint64_t id = 0;
  // The host answers every request through the callback, a refusal too: the route is its.
  api.submit_embed(request, route_embed, new EmbedRoute{inflight, std::move(on_answer)}, &id);
  return true;
}

}  // namespace zen::frontend
