// Thread count and core pinning for the CPU device's pool. hwloc (through core/hw's zen_hw)
// when the build has it (ZEN_HAVE_HWLOC), else sched_getaffinity and the logical CPU count.
#pragma once

#include <vector>

namespace ZEN_CPU_NS {

// One per physical core the process may use (hwloc); without hwloc the allowed logical CPUs.
unsigned default_thread_count();
// OS cpu index for each of n threads: the first hardware thread of every core first (hwloc's
// pinning_plan), wrapping when n exceeds the usable PUs. Empty when nothing can be planned.
std::vector<unsigned> pinning_plan_for(unsigned n);
// Pins the calling thread to one OS cpu; false when the OS refused.
bool pin_current_thread(unsigned cpu);

}  // namespace ZEN_CPU_NS
