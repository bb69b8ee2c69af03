// Thread count and core pinning for the CPU device's pool: from the topology the host detected
// once (the "hardware" service, zen/hardware.h), else sched_getaffinity and the logical CPU
// count.
#pragma once

#include <vector>

namespace ZEN_CPU_NS {

// One per physical core the process may use; without the host's topology the allowed CPUs.
unsigned default_thread_count();
// OS cpu index for each of n threads: the first hardware thread of every core first (the host's
// pinning plan), wrapping when n exceeds the usable PUs. Empty when nothing can be planned.
std::vector<unsigned> pinning_plan_for(unsigned n);
// Pins the calling thread to one OS cpu; false when the OS refused.
bool pin_current_thread(unsigned cpu);

}  // namespace ZEN_CPU_NS
