// A few threads that run queued tasks in order of arrival: where EngineService prepares a
// request (JSON, chat template, tokenizer), which takes seconds for a prompt of megabytes and
// must not hold a frontend's I/O thread (its other clients, /health, would wait).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace zen::serving {

class TaskPool {
 public:
  explicit TaskPool(size_t threads);
  ~TaskPool();  // stop()
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // Queues `task`; false (and not queued) once stop() has begun. Never blocks on a task.
  bool post(std::function<void()> task);
  // Refuses new tasks, runs the queued ones, joins the threads. Idempotent.
  void stop();

 private:
  void run();

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace zen::serving
