// The CPU device's persistent thread pool and the barrier its kernels share.
//
// The pool is created once when the device opens: n - 1 worker threads (pinned to cores when
// asked, see affinity.h) plus the calling thread, which participates as thread 0. run() wakes
// the workers once, every thread runs job(ith), and run() returns when all have finished. A
// graph is one job (cpu_device.cpp), its nodes separated by Barrier::wait(), so there is one
// wake-up per compute() and no mutex or syscall per node unless a thread has to sleep.
//
// Failure: an exception thrown by job on any thread is recorded (the first one wins), every
// thread blocked in Barrier::wait() is released by an internal abort exception, all threads
// leave job, and run() rethrows the recorded exception on the calling thread. The pool stays
// usable afterwards.
//
// run() must be called from one thread at a time (the device's compute() is documented so).
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ZEN_CPU_NS {

class ThreadPool;

// Counter + generation barrier for the n threads of the current run(). Spins briefly, then
// sleeps on the generation word (futex through std::atomic::wait).
class Barrier {
 public:
  // Blocks until all n threads of the run arrived. Throws an internal abort exception when
  // another thread failed, so kernels waiting here unwind instead of deadlocking.
  void wait();

 private:
  friend class ThreadPool;
  void reset(int n) {
    n_ = n;
    arrived_.store(0, std::memory_order_relaxed);
  }
  int n_ = 1;
  alignas(64) std::atomic<int> arrived_{0};
  alignas(64) std::atomic<uint32_t> gen_{0};
  const std::atomic<bool>* failed_ = nullptr;
};

class ThreadPool {
 public:
  // n_threads >= 1 including the caller; cpus[i] is the OS cpu for thread i (empty: no pinning;
  // thread 0 is the caller and is never pinned, it belongs to the host).
  ThreadPool(int n_threads, const std::vector<unsigned>& cpus);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return n_; }
  Barrier& barrier() { return barrier_; }

  // Runs job(ctx, ith) on every thread (the caller is ith 0) and waits for all of them;
  // rethrows the first exception any thread threw.
  using Job = void (*)(void* ctx, int ith);
  void run(Job job, void* ctx);

 private:
  void worker(int ith);
  void execute(int ith);  // job with failure capture
  void fail(std::exception_ptr e);

  int n_;
  std::vector<std::thread> threads_;
  Barrier barrier_;
  Job job_ = nullptr;
  void* ctx_ = nullptr;
  alignas(64) std::atomic<uint32_t> job_gen_{0};  // bumped once per run(): wakes the workers
  alignas(64) std::atomic<uint32_t> done_{0};     // workers finished with the current run
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::mutex error_mu_;  // only taken on failure
  std::exception_ptr error_;
};

}  // namespace ZEN_CPU_NS
