// The CPU device's view of the machine: the host's (zen/hardware.h, hwloc, detected once),
// else the OS's.
#include "affinity.h"

#include <pthread.h>
#include <sched.h>

#include <zen/hardware.h>
#include <zen/plugin.hpp>

#include <thread>

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

const zen_hardware_api* hardware() {
  return zen::Host::service<zen_hardware_api>(ZEN_HARDWARE_API_NAME);
}

}  // namespace

unsigned default_thread_count() {
  if (const zen_hardware_api* hw = hardware())
    if (const unsigned n = hw->physical_cores(); n > 0) return n;
  const size_t n = allowed_cpus().size();
  return n > 0 ? static_cast<unsigned>(n) : std::max(1u, std::thread::hardware_concurrency());
}

std::vector<unsigned> pinning_plan_for(unsigned n) {
  if (const zen_hardware_api* hw = hardware(); hw && n > 0) {
    std::vector<uint32_t> cpus(n);
    if (hw->pinning_plan(n, cpus.data()) == n) return {cpus.begin(), cpus.end()};
  }
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
