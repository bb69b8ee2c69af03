#include "worker_threads.h"

namespace zen::serving {

WorkerThreads::~WorkerThreads() { stop(); }

bool WorkerThreads::run(std::vector<std::function<void()>> tasks) {
  std::lock_guard lock(mu_);
  if (stopped_) return false;
  join_finished_locked();
  for (auto& task : tasks) {
    const uint64_t key = next_key_++;
    // The thread cannot reach finished() before this lock is released, so it always finds
    // its own entry in running_ (unless stop() took it over to join it).
    running_.emplace(key, std::thread([this, key, task = std::move(task)] {
                       task();
                       finished(key);
                     }));
  }
  return true;
}

void WorkerThreads::finished(uint64_t key) {
  std::lock_guard lock(mu_);
  auto it = running_.find(key);
  if (it == running_.end()) return;  // stop() holds the handle and joins it
  finished_.push_back(std::move(it->second));
  running_.erase(it);
}

// The threads in finished_ have returned from their task and are at most a few instructions
// from exiting, so joining them here does not wait.
void WorkerThreads::join_finished_locked() {
  for (std::thread& t : finished_) t.join();
  finished_.clear();
}

void WorkerThreads::stop() {
  std::map<uint64_t, std::thread> running;
  std::vector<std::thread> finished;
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
    running.swap(running_);
    finished.swap(finished_);
  }
  for (auto& [key, t] : running) t.join();
  for (std::thread& t : finished) t.join();
}

}  // namespace zen::serving
