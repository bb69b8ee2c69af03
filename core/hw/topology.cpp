// Topology discovery through hwloc 2.x.
#include "hw/topology.h"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include <unistd.h>

#if HWLOC_API_VERSION < 0x00020000
#error "zen_hw needs hwloc 2.x"
#endif

namespace zen::hw {

namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const noexcept { hwloc_topology_destroy(t); }
};
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyDeleter>;

struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* b) const noexcept { hwloc_bitmap_free(b); }
};
using BitmapPtr = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

[[noreturn]] void fail(const char* call, int err) {
  std::string msg = std::string("hwloc: ") + call + " failed";
  if (err != 0) msg += std::string(": ") + std::strerror(err);
  throw std::runtime_error(msg);
}

// Set bits of a finite bitmap, ascending. An infinite bitmap (never produced for an object's
// cpuset) is cut at its first unset-to-infinity boundary by hwloc_bitmap_last() == -1.
std::vector<unsigned> bits_of(hwloc_const_bitmap_t set) {
  std::vector<unsigned> out;
  if (!set || hwloc_bitmap_last(set) < 0) return out;
  for (int i = hwloc_bitmap_first(set); i >= 0; i = hwloc_bitmap_next(set, i))
    out.push_back(static_cast<unsigned>(i));
  return out;
}

std::string info(hwloc_obj_t obj, const char* key) {
  const char* v = obj ? hwloc_obj_get_info_by_name(obj, key) : nullptr;
  return v ? v : "";
}

const char* osdev_type_name(hwloc_obj_t obj) {
#if HWLOC_API_VERSION >= 0x00030000
  // hwloc 3: a bitmask of kinds; report the most specific one.
  const auto types = obj->attr->osdev.types;
  if (types & HWLOC_OBJ_OSDEV_GPU) return "gpu";
  if (types & HWLOC_OBJ_OSDEV_COPROC) return "coproc";
  if (types & HWLOC_OBJ_OSDEV_NETWORK) return "network";
  if (types & HWLOC_OBJ_OSDEV_OPENFABRICS) return "openfabrics";
  if (types & HWLOC_OBJ_OSDEV_STORAGE) return "block";
  if (types & HWLOC_OBJ_OSDEV_MEMORY) return "memory";
  if (types & HWLOC_OBJ_OSDEV_DMA) return "dma";
  return "other";
#else
  switch (obj->attr->osdev.type) {
    case HWLOC_OBJ_OSDEV_BLOCK:
      return "block";
    case HWLOC_OBJ_OSDEV_GPU:
      return "gpu";
    case HWLOC_OBJ_OSDEV_NETWORK:
      return "network";
    case HWLOC_OBJ_OSDEV_OPENFABRICS:
      return "openfabrics";
    case HWLOC_OBJ_OSDEV_DMA:
      return "dma";
    case HWLOC_OBJ_OSDEV_COPROC:
      return "coproc";
  }
  return "other";
#endif
}

// First NUMA node (by os index) in a non-I/O object's nodeset, -1 if it spans several or none.
int single_numa_node(hwloc_obj_t obj) {
  if (!obj || !obj->nodeset || hwloc_bitmap_weight(obj->nodeset) != 1) return -1;
  return hwloc_bitmap_first(obj->nodeset);
}

// Cache object types in the order they are listed: by level, data/unified before instruction.
constexpr hwloc_obj_type_t kCacheTypes[] = {
    HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L2ICACHE,
    HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L3ICACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE,
};

}  // namespace

const char* cache_type_name(CacheType t) noexcept {
  switch (t) {
    case CacheType::Unified:
      return "unified";
    case CacheType::Data:
      return "data";
    case CacheType::Instruction:
      return "instruction";
  }
  return "unified";
}

const Pu* Topology::find_pu(unsigned os_index) const noexcept {
  for (const Pu& p : pus)
    if (p.os_index == os_index) return &p;
  return nullptr;
}

const char* pci_class_name(std::uint16_t class_id) noexcept {
  const unsigned base = class_id >> 8, sub = class_id & 0xFF;
  switch (base) {
    case 0x00:
      return "Unclassified";
    case 0x01:
      switch (sub) {
        case 0x00:
          return "SCSI";
        case 0x01:
          return "IDE";
        case 0x04:
          return "RAID";
        case 0x05:
          return "ATA";
        case 0x06:
          return "SATA";
        case 0x07:
          return "SAS";
        case 0x08:
          return "NVMe";
        default:
          return "Storage";
      }
    case 0x02:
      switch (sub) {
        case 0x00:
          return "Ethernet";
        case 0x07:
          return "InfiniBand";
        default:
          return "Network";
      }
    case 0x03:
      switch (sub) {
        case 0x00:
          return "VGA";
        case 0x01:
          return "XGA";
        case 0x02:
          return "3D";
        default:
          return "Display";
      }
    case 0x04:
      return sub == 0x01 || sub == 0x03 ? "Audio" : "Multimedia";
    case 0x05:
      return sub == 0x02 ? "CXL memory" : "Memory";
    case 0x06:
      switch (sub) {
        case 0x00:
          return "Host bridge";
        case 0x01:
          return "ISA bridge";
        case 0x04:
          return "PCI bridge";
        default:
          return "Bridge";
      }
    case 0x07:
      return "Communication";
    case 0x08:
      return "System peripheral";
    case 0x09:
      return "Input";
    case 0x0a:
      return "Docking station";
    case 0x0b:
      return "Co-processor";
    case 0x0c:
      switch (sub) {
        case 0x03:
          return "USB";
        case 0x04:
          return "Fibre Channel";
        case 0x05:
          return "SMBus";
        case 0x06:
          return "InfiniBand";
        default:
          return "Serial bus";
      }
    case 0x0d:
      return "Wireless";
    case 0x0e:
      return "Intelligent I/O";
    case 0x0f:
      return "Satellite";
    case 0x10:
      return "Encryption";
    case 0x11:
      return "Signal processing";
    case 0x12:
      return "Processing accelerator";
    case 0x13:
      return "Instrumentation";
    case 0x40:
      return "Co-processor";
    default:
      return "Other";
  }
}

bool is_display_class(std::uint16_t class_id) noexcept { return (class_id >> 8) == 0x03; }

Topology detect_topology(const TopologyOptions& options) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) fail("hwloc_topology_init", errno);
  TopologyPtr topo(raw);

  if (hwloc_topology_set_icache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_ALL) != 0)
    fail("hwloc_topology_set_icache_types_filter", errno);
  if (options.io) {
#if defined(__linux__) && HWLOC_API_VERSION >= 0x00020100
    // On Linux hwloc's own sysfs backend finds the same PCI devices; the libpciaccess-based
    // "pci" plugin adds nothing here, is slower, and leaks about 1 KiB per topology load
    // (hwloc 2.9 / libpciaccess 0.17, seen with LeakSanitizer).
    // Only an optimization, so a refusal is ignored: with hwloc's plugins, an OpenCL ICD and
    // PoCL installed, the second topology load in a process was seen to fail it with EINVAL.
    (void)hwloc_topology_set_components(raw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "pci");
#endif
    if (hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0)
      fail("hwloc_topology_set_io_types_filter", errno);
    if (options.all_pci_devices &&
        hwloc_topology_set_type_filter(raw, HWLOC_OBJ_PCI_DEVICE, HWLOC_TYPE_FILTER_KEEP_ALL) != 0)
      fail("hwloc_topology_set_type_filter(PCI_DEVICE)", errno);
  }
  if (hwloc_topology_load(raw) != 0) fail("hwloc_topology_load", errno);

  Topology out;
  const hwloc_obj_t root = hwloc_get_root_obj(raw);
  out.hwloc_version = info(root, "hwlocVersion");
  if (out.hwloc_version.empty()) {
    const unsigned v = hwloc_get_api_version();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%u.%u (API)", v >> 16, (v >> 8) & 0xFF);
    out.hwloc_version = buf;
  }
  out.total_memory = root->total_memory;
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGE_SIZE)
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0)
    out.os_memory = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
#endif

  // Packages. A machine hwloc reports none for gets one covering everything.
  std::unordered_map<hwloc_obj_t, unsigned> package_index;
  for (hwloc_obj_t p = nullptr; (p = hwloc_get_next_obj_by_type(raw, HWLOC_OBJ_PACKAGE, p));) {
    Package pkg;
    pkg.os_index = p->os_index == HWLOC_UNKNOWN_INDEX ? 0u : p->os_index;
    pkg.vendor = info(p, "CPUVendor");
    pkg.model = info(p, "CPUModel");
    pkg.pus = bits_of(p->cpuset);
    package_index[p] = static_cast<unsigned>(out.packages.size());
    out.packages.push_back(std::move(pkg));
  }
  if (out.packages.empty()) {
    Package pkg;
    pkg.vendor = info(root, "CPUVendor");
    pkg.model = info(root, "CPUModel");
    pkg.pus = bits_of(root->cpuset);
    out.packages.push_back(std::move(pkg));
  }
  auto package_of = [&](hwloc_obj_t obj) -> unsigned {
    const hwloc_obj_t p = hwloc_get_ancestor_obj_by_type(raw, HWLOC_OBJ_PACKAGE, obj);
    const auto it = p ? package_index.find(p) : package_index.end();
    return it == package_index.end() ? 0u : it->second;
  };

  // Cores, in hwloc's logical (locality) order.
  std::unordered_map<hwloc_obj_t, unsigned> core_index;
  for (hwloc_obj_t c = nullptr; (c = hwloc_get_next_obj_by_type(raw, HWLOC_OBJ_CORE, c));) {
    Core core;
    core.os_index = c->os_index == HWLOC_UNKNOWN_INDEX ? c->logical_index : c->os_index;
    core.package = package_of(c);
    core.pus = bits_of(c->cpuset);
    core_index[c] = static_cast<unsigned>(out.cores.size());
    out.packages[core.package].cores.push_back(static_cast<unsigned>(out.cores.size()));
    out.cores.push_back(std::move(core));
  }

  // NUMA nodes.
  for (hwloc_obj_t n = nullptr; (n = hwloc_get_next_obj_by_type(raw, HWLOC_OBJ_NUMANODE, n));) {
    NumaNode node;
    node.os_index = n->os_index;
    node.local_memory = n->attr->numanode.local_memory;
    node.pus = bits_of(n->cpuset);
    out.numa_nodes.push_back(std::move(node));
  }

  // PUs. One without a Core ancestor becomes its own core.
  for (hwloc_obj_t p = nullptr; (p = hwloc_get_next_obj_by_type(raw, HWLOC_OBJ_PU, p));) {
    Pu pu;
    pu.os_index = p->os_index;
    pu.package = package_of(p);
    const hwloc_obj_t c = hwloc_get_ancestor_obj_by_type(raw, HWLOC_OBJ_CORE, p);
    const auto it = c ? core_index.find(c) : core_index.end();
    if (it != core_index.end()) {
      pu.core = it->second;
    } else {
      Core core;
      core.os_index = p->os_index;
      core.package = pu.package;
      core.pus = {p->os_index};
      pu.core = static_cast<unsigned>(out.cores.size());
      out.packages[core.package].cores.push_back(pu.core);
      out.cores.push_back(std::move(core));
      out.cores_synthesized = true;
    }
    const auto& siblings = out.cores[pu.core].pus;
    pu.smt_rank = static_cast<unsigned>(std::find(siblings.begin(), siblings.end(), pu.os_index) -
                                        siblings.begin());
    for (const NumaNode& n : out.numa_nodes) {
      if (std::find(n.pus.begin(), n.pus.end(), pu.os_index) != n.pus.end()) {
        pu.numa_node = static_cast<int>(n.os_index);
        break;
      }
    }
    out.pus.push_back(pu);
  }
  if (out.pus.empty()) throw std::runtime_error("hwloc: topology has no processing units");

  // Caches, by level then kind.
  for (const hwloc_obj_type_t type : kCacheTypes) {
    for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_obj_by_type(raw, type, o));) {
      Cache c;
      c.level = o->attr->cache.depth;
      switch (o->attr->cache.type) {
        case HWLOC_OBJ_CACHE_UNIFIED:
          c.type = CacheType::Unified;
          break;
        case HWLOC_OBJ_CACHE_DATA:
          c.type = CacheType::Data;
          break;
        case HWLOC_OBJ_CACHE_INSTRUCTION:
          c.type = CacheType::Instruction;
          break;
      }
      c.size = o->attr->cache.size;
      c.line_size = o->attr->cache.linesize;
      c.associativity = o->attr->cache.associativity;
      c.pus = bits_of(o->cpuset);
      out.caches.push_back(std::move(c));
    }
  }

  // PCI devices, then the OS devices behind them.
  std::unordered_map<hwloc_obj_t, std::size_t> pci_index;
  for (hwloc_obj_t d = nullptr; (d = hwloc_get_next_pcidev(raw, d));) {
    const auto& a = d->attr->pcidev;
    PciDevice dev;
    dev.domain = a.domain;
    dev.bus = a.bus;
    dev.device = a.dev;
    dev.function = a.func;
    char busid[32];
    std::snprintf(busid, sizeof busid, "%04x:%02x:%02x.%01x", static_cast<unsigned>(a.domain),
                  static_cast<unsigned>(a.bus), static_cast<unsigned>(a.dev),
                  static_cast<unsigned>(a.func));
    dev.bus_id = busid;
    dev.vendor_id = a.vendor_id;
    dev.device_id = a.device_id;
    dev.subvendor_id = a.subvendor_id;
    dev.subdevice_id = a.subdevice_id;
    dev.class_id = a.class_id;
    dev.class_name = pci_class_name(a.class_id);
    dev.revision = a.revision;
    dev.link_speed_gbps = a.linkspeed;
    if (d->name && *d->name) {
      dev.name = d->name;
    } else {
      const std::string vendor = info(d, "PCIVendor"), device = info(d, "PCIDevice");
      dev.name = vendor.empty() ? device : device.empty() ? vendor : vendor + " " + device;
    }
    dev.numa_node = single_numa_node(hwloc_get_non_io_ancestor_obj(raw, d));
    pci_index[d] = out.pci_devices.size();
    out.pci_devices.push_back(std::move(dev));
  }
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_osdev(raw, o));) {
    OsDevice od;
    od.name = o->name ? o->name : "";
    od.type = osdev_type_name(o);
    od.subtype = o->subtype ? o->subtype : "";
    hwloc_obj_t up = o->parent;
    while (up && up->type != HWLOC_OBJ_PCI_DEVICE && hwloc_obj_type_is_io(up->type))
      up = up->parent;
    const auto it = (up && up->type == HWLOC_OBJ_PCI_DEVICE) ? pci_index.find(up) : pci_index.end();
    if (it != pci_index.end())
      out.pci_devices[it->second].os_devices.push_back(std::move(od));
    else
      out.other_os_devices.push_back(std::move(od));
  }

  // The CPUs this process may currently run on (taskset, sched_setaffinity), restricted to the
  // PUs the topology lists.
  BitmapPtr bound(hwloc_bitmap_alloc());
  if (!bound) fail("hwloc_bitmap_alloc", ENOMEM);
  if (hwloc_get_cpubind(raw, bound.get(), HWLOC_CPUBIND_PROCESS) == 0 ||
      hwloc_get_cpubind(raw, bound.get(), HWLOC_CPUBIND_THREAD) == 0) {
    hwloc_bitmap_and(bound.get(), bound.get(), hwloc_topology_get_topology_cpuset(raw));
    out.process_pus = bits_of(bound.get());
  }
  return out;
}

unsigned usable_physical_cores(const Topology& topo) {
  const std::vector<unsigned> plan = pinning_plan(topo, static_cast<unsigned>(topo.pus.size()));
  std::vector<bool> seen(topo.cores.size(), false);
  unsigned n = 0;
  for (unsigned os : plan) {
    const Pu* p = topo.find_pu(os);
    if (p && p->core < seen.size() && !seen[p->core]) {
      seen[p->core] = true;
      ++n;
    }
  }
  return n;
}

std::vector<unsigned> pinning_plan(const Topology& topo, unsigned n_threads) {
  std::vector<unsigned> plan;
  if (n_threads == 0 || topo.pus.empty()) return plan;

  auto allowed = [&](unsigned os) {
    return std::binary_search(topo.process_pus.begin(), topo.process_pus.end(), os);
  };
  bool restrict = false;
  for (const Pu& p : topo.pus) restrict = restrict || allowed(p.os_index);

  // Per core, its usable PUs in sibling order; then take rank 0 of every core, rank 1 ...
  std::vector<std::vector<unsigned>> per_core(topo.cores.size());
  std::size_t deepest = 0;
  for (std::size_t c = 0; c < topo.cores.size(); ++c) {
    for (unsigned os : topo.cores[c].pus)
      if (topo.find_pu(os) && (!restrict || allowed(os))) per_core[c].push_back(os);
    deepest = std::max(deepest, per_core[c].size());
  }
  std::vector<unsigned> order;
  for (std::size_t rank = 0; rank < deepest; ++rank)
    for (const auto& pus : per_core)
      if (rank < pus.size()) order.push_back(pus[rank]);
  if (order.empty())  // cores list nothing usable (should not happen): fall back to PU order
    for (const Pu& p : topo.pus) order.push_back(p.os_index);

  plan.reserve(n_threads);
  for (unsigned i = 0; i < n_threads; ++i) plan.push_back(order[i % order.size()]);
  return plan;
}

}  // namespace zen::hw
