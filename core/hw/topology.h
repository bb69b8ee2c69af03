// Machine topology from hwloc: packages, cores, PUs, caches, NUMA nodes, PCI devices and the OS
// devices (card0, renderD128, eth0, nvme0n1 ...) attached to them.
//
// All CPU numbering here is the OS's (the numbers sched_setaffinity, /proc/cpuinfo "processor"
// and hwloc's "P#" use), never hwloc's logical indexes, so the values can be handed straight to
// the OS. Only the CPUs this process is allowed to use (cgroup cpuset) are listed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace zen::hw {

struct Pu {
  unsigned os_index = 0;
  unsigned core = 0;      // index into Topology::cores
  unsigned package = 0;   // index into Topology::packages
  int numa_node = -1;     // os index of the nearest NUMA node, -1 if unknown
  unsigned smt_rank = 0;  // 0 for the first hardware thread of its core, 1 for the next ...
};

struct Core {
  unsigned os_index = 0;      // hwloc's core id (may repeat across packages, may be sparse)
  unsigned package = 0;       // index into Topology::packages
  std::vector<unsigned> pus;  // PU os indexes, ascending
};

struct Package {
  unsigned os_index = 0;
  std::string vendor;           // hwloc's CPUVendor info, if known
  std::string model;            // hwloc's CPUModel info, if known
  std::vector<unsigned> cores;  // indexes into Topology::cores
  std::vector<unsigned> pus;    // PU os indexes, ascending
};

enum class CacheType { Unified, Data, Instruction };
const char* cache_type_name(CacheType t) noexcept;  // "unified", "data", "instruction"

struct Cache {
  unsigned level = 0;  // 1, 2, 3 ...
  CacheType type = CacheType::Unified;
  std::uint64_t size = 0;     // bytes
  unsigned line_size = 0;     // bytes, 0 if unknown
  int associativity = 0;      // ways; -1 fully associative, 0 unknown
  std::vector<unsigned> pus;  // PU os indexes sharing this cache instance
};

struct NumaNode {
  unsigned os_index = 0;
  std::uint64_t local_memory = 0;  // bytes
  std::vector<unsigned> pus;       // PU os indexes local to the node (empty: memory-only node)
};

struct OsDevice {
  std::string name;     // "card0", "renderD128", "eth0", "nvme0n1", "opencl0d0" ...
  std::string type;     // "gpu", "block", "network", "openfabrics", "dma", "coproc"
  std::string subtype;  // hwloc's subtype if any ("CUDA", "OpenCL", "LevelZero", "Display" ...)
};

struct PciDevice {
  std::string bus_id;  // "0000:00:02.0" (domain:bus:device.function)
  std::uint32_t domain = 0;
  unsigned bus = 0, device = 0, function = 0;
  std::uint16_t vendor_id = 0, device_id = 0;
  std::uint16_t subvendor_id = 0, subdevice_id = 0;
  std::uint16_t class_id = 0;  // base class << 8 | subclass, e.g. 0x0300 VGA
  std::string class_name;      // pci_class_name(class_id)
  unsigned revision = 0;
  float link_speed_gbps = 0.0f;  // GB/s as hwloc reports it, 0 if unknown
  std::string name;              // hwloc's name/PCIVendor+PCIDevice if known, else ""
  int numa_node = -1;            // os index of the nearest NUMA node, -1 if unknown
  std::vector<OsDevice> os_devices;
};

struct Topology {
  std::string hwloc_version;       // runtime library version, e.g. "2.9.0"
  std::uint64_t total_memory = 0;  // bytes, machine total as hwloc sees it (sum of NUMA nodes)
  std::uint64_t os_memory = 0;     // bytes, physical pages * page size as the OS reports it
                                   // (/proc/meminfo MemTotal). Usually equal to total_memory; on
                                   // VMs with hot-plugged or ballooned memory the two can differ.
  std::vector<Package> packages;   // ordered as hwloc orders them (by locality)
  std::vector<Core> cores;         // ordered by locality: package 0's cores first
  std::vector<Pu> pus;             // ordered by locality (hwloc logical order)
  std::vector<Cache> caches;       // ordered by level, then type, then locality
  std::vector<NumaNode> numa_nodes;
  std::vector<PciDevice> pci_devices;
  std::vector<OsDevice> other_os_devices;  // OS devices not behind a PCI device
  std::vector<unsigned> process_pus;       // PUs this process was bound to at detection time
                                           // (taskset/sched_setaffinity), ascending
  bool cores_synthesized = false;  // hwloc reported no Core objects: one core per PU assumed

  const Pu* find_pu(unsigned os_index) const noexcept;
};

struct TopologyOptions {
  bool io = true;                // discover PCI and OS devices
  bool all_pci_devices = false;  // false: hwloc's "important" classes only (storage, network,
                                 // display, processor, accelerator ...); true: every function
};

// Queries hwloc. Throws std::runtime_error naming the failing hwloc call on failure.
Topology detect_topology(const TopologyOptions& options = {});

// Readable PCI class: "VGA", "3D", "Display", "Ethernet", "Network", "NVMe", "SATA", "Storage",
// "Processing accelerator", "Co-processor", "Host bridge", "PCI bridge", "USB", "Audio" ...
// Never null; a class the table does not know gives "Other".
const char* pci_class_name(std::uint16_t class_id) noexcept;

// True for the display classes (VGA, XGA, 3D, other display controller).
bool is_display_class(std::uint16_t class_id) noexcept;

// OS indexes of the PUs to pin n_threads worker threads to, one entry per thread.
// Order: the first hardware thread of every core (cores in locality order: package 0 first, so
// a small pool stays inside one package / cache domain), then the second hardware thread of
// every core, and so on. Only PUs in Topology::process_pus are used (if that set is empty or
// shares nothing with the topology, all PUs are used).
// n_threads larger than the number of usable PUs WRAPS around: thread i gets entry
// i % usable_pus, so the result always has exactly n_threads entries and entries repeat only
// after every usable PU has been handed out once. n_threads == 0 gives an empty plan.
std::vector<unsigned> pinning_plan(const Topology& topo, unsigned n_threads);

// Number of distinct physical cores among the usable PUs (see pinning_plan).
unsigned usable_physical_cores(const Topology& topo);

}  // namespace zen::hw
