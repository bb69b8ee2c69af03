#include "inflight.h"

#include "endpoints.h"
#include "session.h"

namespace zen::http {

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

void route_engine_event(void* user, const char* event_json, int last) {
  auto* route = static_cast<EventRoute*>(user);
  if (!route) return;
  std::string text = event_json ? event_json : "";
  if (route->whole_answer) {
    if (last)
      route->inflight->post(route->executor, [session = route->session, serial = route->serial,
                                              reply = answer_from_event(text)]() mutable {
        if (auto s = session.lock()) s->on_engine_answer(serial, std::move(reply));
      });
  } else {
    route->inflight->post(route->executor, [session = route->session, serial = route->serial,
                                            text = std::move(text), last = last != 0] {
      if (auto s = session.lock()) s->on_engine_event(serial, text, last);
    });
  }
  if (last) {
    if (route->reported) route->reported->store(true);
    std::shared_ptr<Inflight> inflight = std::move(route->inflight);
    delete route;
    inflight->release();
  }
}

}  // namespace zen::http
