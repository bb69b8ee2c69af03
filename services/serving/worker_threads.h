// Threads for blocking work the serving layer must keep off the engine thread and the
// frontends' I/O threads (MCP tool calls): one thread per task, since a task mostly waits on
// another process, and every thread is joined by stop(), so no task outlives the service.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace zen::serving {

class WorkerThreads {
 public:
  WorkerThreads() = default;
  ~WorkerThreads();  // stop()
  WorkerThreads(const WorkerThreads&) = delete;
  WorkerThreads& operator=(const WorkerThreads&) = delete;

  // Starts every task on a thread of its own; all or none: false (nothing started) once
  // stop() has begun. Never blocks on a task.
  bool run(std::vector<std::function<void()>> tasks);
  // Refuses new tasks and joins every thread (waits for the running tasks to return).
  void stop();

 private:
  void finished(uint64_t key);  // a task's last step: hand its thread over to be joined
  void join_finished_locked();

  std::mutex mu_;
  std::map<uint64_t, std::thread> running_;
  std::vector<std::thread> finished_;
  uint64_t next_key_ = 0;
  bool stopped_ = false;
};

}  // namespace zen::serving
