// The CPU device's thread pool: every thread runs each job once, the barrier orders phases,
// a throwing thread neither hangs the others nor breaks the pool, and pools do not leak threads.
#include "thread_pool.h"

#include <gtest/gtest.h>

#include <dirent.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace zen_cpu_test {
namespace {

int thread_count() {  // threads of this process, from /proc/self/task
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
  }
  return n;
}

struct Ctx {
  ThreadPool* pool;
  std::vector<std::atomic<int>>* hits;
  std::vector<int>* slots;
  int rounds = 0;
  int throw_on = -1;  // thread that throws (after the first barrier round), -1: none
  std::atomic<int> bad{0};
};

void count_job(void* p, int ith) { (*static_cast<Ctx*>(p)->hits)[ith].fetch_add(1); }

// Each round: every thread writes its slot, barrier, checks everyone's slot, barrier.
void phase_job(void* p, int ith) {
  Ctx& c = *static_cast<Ctx*>(p);
  const int n = c.pool->size();
  for (int r = 0; r < c.rounds; ++r) {
    (*c.slots)[ith] = r * n + ith;
    c.pool->barrier().wait();
    if (r == 1 && ith == c.throw_on) throw std::runtime_error("kernel failed on purpose");
    for (int j = 0; j < n; ++j)
      if ((*c.slots)[j] != r * n + j) c.bad.fetch_add(1);
    c.pool->barrier().wait();
  }
}

TEST(CpuThreadPool, EveryThreadRunsEachJobOnce) {
  for (int n : {1, 2, 3, 5}) {
    ThreadPool pool(n, {});
    std::vector<std::atomic<int>> hits(n);
    Ctx c{&pool, &hits, nullptr};
    for (int i = 0; i < 200; ++i) pool.run(count_job, &c);
    for (int i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 200) << "thread " << i << " of " << n;
  }
}

TEST(CpuThreadPool, BarrierSeparatesPhases) {
  for (int n : {2, 3, 4}) {
    ThreadPool pool(n, {});
    std::vector<int> slots(n, -1);
    Ctx c{&pool, nullptr, &slots};
    c.rounds = 500;
    pool.run(phase_job, &c);
    EXPECT_EQ(c.bad.load(), 0) << n << " threads";
  }
}

TEST(CpuThreadPool, ThrowingThreadDoesNotHangOthers) {
  for (int thrower : {0, 1, 2}) {
    ThreadPool pool(3, {});
    std::vector<int> slots(3, -1);
    Ctx c{&pool, nullptr, &slots};
    c.rounds = 50;
    c.throw_on = thrower;
    EXPECT_THROW(pool.run(phase_job, &c), std::runtime_error) << "thrower " << thrower;
    // the pool still works afterwards
    Ctx ok{&pool, nullptr, &slots};
    ok.rounds = 100;
    EXPECT_NO_THROW(pool.run(phase_job, &ok));
    EXPECT_EQ(ok.bad.load(), 0);
  }
}

TEST(CpuThreadPool, ManyRunsAndPoolsDoNotLeakThreads) {
  const int before = thread_count();
  {
    ThreadPool pool(4, {});
    std::vector<std::atomic<int>> hits(4);
    Ctx c{&pool, &hits, nullptr};
    for (int i = 0; i < 3000; ++i) pool.run(count_job, &c);
    EXPECT_EQ(thread_count(), before + 3);
    EXPECT_EQ(hits[3].load(), 3000);
  }
  for (int i = 0; i < 50; ++i) ThreadPool pool(3, {});
  EXPECT_EQ(thread_count(), before);
}

TEST(CpuThreadPool, PinnedThreadsRun) {
  ThreadPool pool(2, {0, 0});  // both pinned to cpu 0 when the OS allows: still correct
  std::vector<int> slots(2, -1);
  Ctx c{&pool, nullptr, &slots};
  c.rounds = 100;
  pool.run(phase_job, &c);
  EXPECT_EQ(c.bad.load(), 0);
}

}  // namespace
}  // namespace zen_cpu_test
