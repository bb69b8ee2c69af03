#include "thread_pool.h"

#include "affinity.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace ZEN_CPU_NS {
namespace {

// Thrown out of Barrier::wait() when another thread failed; caught by the pool, never seen by
// the device's caller.
struct Aborted {};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spin iterations before sleeping in the kernel: long enough to cover a node's imbalance, short
// enough not to burn a shared core while the host does something else.
// After spinning, a few yields let a descheduled partner run on a busy machine before the
// futex sleep.
constexpr int kBarrierSpins = 1 << 11;
constexpr int kIdleSpins = 1 << 11;
constexpr int kYields = 8;

// Waits until word != old (or stop() says so): spin, yield, then sleep on the word.
template <class Stop>
void wait_change(const std::atomic<uint32_t>& word, uint32_t old, int spins, Stop stop) {
  for (int i = 0; i < spins; ++i) {
    if (word.load(std::memory_order_acquire) != old || stop()) return;
    cpu_relax();
  }
  for (int i = 0; i < kYields; ++i) {
    if (word.load(std::memory_order_acquire) != old || stop()) return;
    std::this_thread::yield();
  }
  while (word.load(std::memory_order_acquire) == old && !stop()) word.wait(old);
}

}  // namespace

void Barrier::wait() {
  if (failed_ && failed_->load(std::memory_order_acquire)) throw Aborted{};
  if (n_ <= 1) return;
  const uint32_t g = gen_.load(std::memory_order_acquire);
  if (arrived_.fetch_add(1, std::memory_order_acq_rel) == n_ - 1) {
    arrived_.store(0, std::memory_order_relaxed);
    gen_.fetch_add(1, std::memory_order_release);
    gen_.notify_all();
    return;
  }
  wait_change(gen_, g, kBarrierSpins,
              [&] { return failed_ && failed_->load(std::memory_order_acquire); });
  if (failed_ && failed_->load(std::memory_order_acquire)) throw Aborted{};
}

ThreadPool::ThreadPool(int n_threads, const std::vector<unsigned>& cpus)
    : n_(n_threads < 1 ? 1 : n_threads) {
  barrier_.failed_ = &failed_;
  barrier_.reset(n_);
  threads_.reserve(n_ - 1);
  for (int i = 1; i < n_; ++i) {
    const int cpu = i < static_cast<int>(cpus.size()) ? static_cast<int>(cpus[i]) : -1;
    threads_.emplace_back([this, i, cpu] {
      if (cpu >= 0) pin_current_thread(static_cast<unsigned>(cpu));
      worker(i);
    });
  }
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_release);
  job_gen_.fetch_add(1, std::memory_order_release);
  job_gen_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::fail(std::exception_ptr e) {
  {
    std::lock_guard lock(error_mu_);
    if (!error_) error_ = std::move(e);
  }
  failed_.store(true, std::memory_order_release);
  // Wake every thread sleeping in the barrier; they see failed_ and unwind.
  barrier_.gen_.fetch_add(1, std::memory_order_release);
  barrier_.gen_.notify_all();
}

void ThreadPool::execute(int ith) {
  try {
    job_(ctx_, ith);
  } catch (const Aborted&) {
    // another thread failed first; its exception is the one reported
  } catch (...) {
    fail(std::current_exception());
  }
}

void ThreadPool::worker(int ith) {
  uint32_t seen = 0;
  for (;;) {
    wait_change(job_gen_, seen, kIdleSpins, [] { return false; });
    seen = job_gen_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_acquire)) return;
    execute(ith);
    if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<uint32_t>(n_ - 1))
      done_.notify_one();
  }
}

void ThreadPool::run(Job job, void* ctx) {
  job_ = job;
  ctx_ = ctx;
  error_ = nullptr;
  failed_.store(false, std::memory_order_relaxed);
  barrier_.reset(n_);
  done_.store(0, std::memory_order_relaxed);
  if (n_ > 1) {
    job_gen_.fetch_add(1, std::memory_order_release);  // publishes everything above
    job_gen_.notify_all();
  }
  execute(0);
  const uint32_t want = static_cast<uint32_t>(n_ - 1);
  for (int i = 0; i < kBarrierSpins + kYields; ++i) {
    if (done_.load(std::memory_order_acquire) == want) break;
    if (i < kBarrierSpins)
      cpu_relax();
    else
      std::this_thread::yield();
  }
  for (uint32_t d; (d = done_.load(std::memory_order_acquire)) != want;) done_.wait(d);
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
}

}  // namespace ZEN_CPU_NS
