// The concurrency cap on tool calls across all requests (max_concurrent_calls): a counting
// semaphore whose waiters can be cancelled, since a request may be cancelled while queued.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace zen::mcp {

class CallSlots {
 public:
  explicit CallSlots(int count) : free_(count) {}

  // Waits for a free slot; false when `cancelled` or `stopping` turned true first.
  bool acquire(const std::atomic<bool>* cancelled, const std::atomic<bool>& stopping) {
    std::unique_lock lock(mutex_);
    for (;;) {
      if ((cancelled && cancelled->load()) || stopping.load()) return false;
      if (free_ > 0) {
        --free_;
        return true;
      }
      // Flags cannot notify: poll them while waiting.
      released_.wait_for(lock, std::chrono::milliseconds(50));
    }
  }

  void release() {
    {
      std::lock_guard lock(mutex_);
      ++free_;
    }
    released_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable released_;
  int free_;
};

// Holds one slot for a scope.
class SlotGuard {
 public:
  explicit SlotGuard(CallSlots& slots) : slots_(slots) {}
  ~SlotGuard() { slots_.release(); }
  SlotGuard(const SlotGuard&) = delete;
  SlotGuard& operator=(const SlotGuard&) = delete;

 private:
  CallSlots& slots_;
};

}  // namespace zen::mcp
