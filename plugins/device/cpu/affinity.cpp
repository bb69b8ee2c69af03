// All of the CPU device's hwloc use lives here, behind ZEN_HAVE_HWLOC.
#include "affinity.h"

#include <pthread.h>
#include <sched.h>

#include <thread>

#if ZEN_HAVE_HWLOC
#include "hw/topology.h"
#endif

namespace ZEN_CPU_NS {
namespace {

std::vector<unsigned> allowed_cpus() {
  std::vector<unsigned> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (unsigned c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

}  // namespace

unsigned default_thread_count() {
#if ZEN_HAVE_HWLOC
  try {
    const unsigned n = zen::hw::usable_physical_cores(zen::hw::detect_topology({false, false}));
    if (n > 0) return n;
  } catch (...) {  // hwloc failed: fall back to the OS's view
  }
#endif
  const size_t n = allowed_cpus().size();
  return n > 0 ? static_cast<unsigned>(n) : std::max(1u, std::thread::hardware_concurrency());
}

std::vector<unsigned> pinning_plan_for(unsigned n) {
#if ZEN_HAVE_HWLOC
  try {
    std::vector<unsigned> plan = zen::hw::pinning_plan(zen::hw::detect_topology({false, false}), n);
    if (plan.size() == n) return plan;
  } catch (...) {  // hwloc failed: fall back to the allowed cpus in order
  }
#endif
  const std::vector<unsigned> cpus = allowed_cpus();
  std::vector<unsigned> plan;
  if (cpus.empty()) return plan;
  for (unsigned i = 0; i < n; ++i) plan.push_back(cpus[i % cpus.size()]);
  return plan;
}

bool pin_current_thread(unsigned cpu) {
  if (cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

}  // namespace ZEN_CPU_NS
