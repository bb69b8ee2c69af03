// Engine events arrive on the engine's thread, possibly after the connection that asked is
// gone and while the server stops. Inflight counts submitted requests until their last event
// and only lets events be posted to the I/O threads while those threads exist, so stop() can
// wait for the engine to let go and then tear the I/O down safely.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

namespace zen::http {

class Inflight {
 public:
  void add();
  void release();
  // Waits until no request is in flight or the timeout passes; true when none is.
  bool wait_idle(std::chrono::milliseconds timeout);
  // Runs f on ex unless the I/O side has closed (then f is dropped). Never blocks on I/O.
  void post(const boost::asio::any_io_executor& ex, std::function<void()> f);
  void close();  // from here on post() drops everything

 private:
  std::mutex mutex_;
  std::condition_variable idle_;
  uint64_t count_ = 0;
  bool open_ = true;
};

class Session;

// The `user` pointer of one submitted request: where its events go. Deleted by the event
// callback after the last event.
struct EventRoute {
  std::shared_ptr<Inflight> inflight;
  std::weak_ptr<Session> session;
  boost::asio::any_io_executor executor;  // the session's strand
  uint64_t serial = 0;                    // which request of the session
  // Set before the route is deleted: after a failed submit() it tells whether the host
  // reported the failure through the callback (and so took the route) or not.
  std::shared_ptr<std::atomic<bool>> reported;
  // tokenize/detokenize: the last event is the whole answer, made into the Reply by the
  // callback (on the host's thread) rather than on the session's I/O thread.
  bool whole_answer = false;
};

// The zen_event_cb handed to submit(): copies the event, posts it, returns.
void route_engine_event(void* user, const char* event_json, int last);

}  // namespace zen::http
