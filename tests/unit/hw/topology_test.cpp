// zen_hw's hwloc topology against the kernel's own sysfs view of this machine, and the pinning
// plan on both the real topology and hand-built ones.
#include "hw/topology.h"

#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "test_util.h"

namespace zen::hw {
namespace {

namespace fs = std::filesystem;
using test::parse_cpu_list;
using test::read_file;
using test::run_in_child;
using test::trim;

const Topology& topo() {
  static const Topology t = detect_topology();
  return t;
}

std::vector<unsigned> sorted(std::vector<unsigned> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<unsigned> all_pus(const Topology& t) {
  std::vector<unsigned> v;
  for (const Pu& p : t.pus) v.push_back(p.os_index);
  return sorted(v);
}

std::optional<unsigned long> read_hex(const std::string& path) {
  const auto s = read_file(path);
  if (!s) return std::nullopt;
  return std::stoul(trim(*s), nullptr, 16);
}

// ---------------------------------------------------------------------------------------------
// CPUs

TEST(Topology, PuCountMatchesOnlineCpus) {
  const Topology& t = topo();
  // hwloc lists the CPUs of this process's cgroup cpuset; outside a restricted cgroup that is
  // every online CPU.
  EXPECT_EQ(t.pus.size(), static_cast<std::size_t>(sysconf(_SC_NPROCESSORS_ONLN)));
  EXPECT_GE(t.packages.size(), 1u);
  EXPECT_GE(t.cores.size(), 1u);
  EXPECT_GE(t.numa_nodes.size(), 1u);
  EXPECT_LE(t.cores.size(), t.pus.size());
  EXPECT_FALSE(t.hwloc_version.empty());
  EXPECT_EQ(t.hwloc_version[0], '2') << t.hwloc_version;
}

TEST(Topology, PusCoresAndPackagesAreConsistent) {
  const Topology& t = topo();
  const auto pus = all_pus(t);
  EXPECT_EQ(std::adjacent_find(pus.begin(), pus.end()), pus.end()) << "duplicate PU os index";

  std::vector<unsigned> from_cores, from_packages;
  for (std::size_t ci = 0; ci < t.cores.size(); ++ci) {
    const Core& c = t.cores[ci];
    ASSERT_FALSE(c.pus.empty());
    ASSERT_LT(c.package, t.packages.size());
    const auto& pc = t.packages[c.package].cores;
    EXPECT_NE(std::find(pc.begin(), pc.end(), ci), pc.end())
        << "core " << ci << " not listed by its package";
    EXPECT_TRUE(std::is_sorted(c.pus.begin(), c.pus.end()));
    from_cores.insert(from_cores.end(), c.pus.begin(), c.pus.end());
  }
  for (const Package& p : t.packages)
    from_packages.insert(from_packages.end(), p.pus.begin(), p.pus.end());
  EXPECT_EQ(sorted(from_cores), pus) << "every PU in exactly one core";
  EXPECT_EQ(sorted(from_packages), pus) << "every PU in exactly one package";

  for (const Pu& p : t.pus) {
    ASSERT_LT(p.core, t.cores.size());
    ASSERT_LT(p.package, t.packages.size());
    const Core& c = t.cores[p.core];
    ASSERT_LT(p.smt_rank, c.pus.size());
    EXPECT_EQ(c.pus[p.smt_rank], p.os_index);
    EXPECT_EQ(c.package, p.package);
    const auto& pp = t.packages[p.package].pus;
    EXPECT_NE(std::find(pp.begin(), pp.end(), p.os_index), pp.end());
    EXPECT_EQ(t.find_pu(p.os_index), &p);
  }
  EXPECT_EQ(t.find_pu(1u << 30), nullptr);
}

TEST(Topology, CoresAndPackagesMatchSysfs) {
  const Topology& t = topo();
  int compared = 0;
  for (const Pu& p : t.pus) {
    const std::string base =
        "/sys/devices/system/cpu/cpu" + std::to_string(p.os_index) + "/topology/";
    const auto siblings = read_file(base + "thread_siblings_list");
    auto package = read_file(base + "package_cpus_list");
    if (!package) package = read_file(base + "core_siblings_list");
    if (!siblings || !package) continue;
    EXPECT_EQ(t.cores[p.core].pus, sorted(parse_cpu_list(*siblings))) << "cpu" << p.os_index;
    EXPECT_EQ(t.packages[p.package].pus, sorted(parse_cpu_list(*package))) << "cpu" << p.os_index;
    ++compared;
  }
  if (compared == 0)
    GTEST_SKIP() << "no /sys/devices/system/cpu/*/topology here: nothing to compare";
}

// ---------------------------------------------------------------------------------------------
// Caches

TEST(Topology, CachesAreSane) {
  const Topology& t = topo();
  ASSERT_FALSE(t.caches.empty()) << "hwloc found no caches";
  const auto pus = all_pus(t);
  unsigned prev_level = 0;
  for (const Cache& c : t.caches) {
    EXPECT_GE(c.level, 1u);
    EXPECT_GE(c.level, prev_level) << "caches ordered by level";
    prev_level = c.level;
    EXPECT_GT(c.size, 0u) << "L" << c.level;
    if (c.line_size) {
      EXPECT_EQ(c.line_size & (c.line_size - 1), 0u) << "line size power of two";
    }
    ASSERT_FALSE(c.pus.empty());
    for (unsigned pu : c.pus) EXPECT_TRUE(std::binary_search(pus.begin(), pus.end(), pu));
  }
}

TEST(Topology, CachesOfCpu0MatchSysfs) {
  const Topology& t = topo();
  const unsigned cpu = t.pus.front().os_index;
  // (level, type, size, shared cpus) as the kernel reports them for this CPU.
  std::set<std::tuple<unsigned, std::string, std::uint64_t, std::vector<unsigned>>> kernel, ours;
  const fs::path dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().filename().string().rfind("index", 0) != 0) continue;
    const auto level = read_file(e.path() / "level"), type = read_file(e.path() / "type"),
               size = read_file(e.path() / "size"),
               shared = read_file(e.path() / "shared_cpu_list");
    if (!level || !type || !size || !shared) continue;
    std::string ty = trim(*type);
    std::transform(ty.begin(), ty.end(), ty.begin(),
                   [](unsigned char ch) { return std::tolower(ch); });
    const std::string sz = trim(*size);  // "32K"
    std::uint64_t bytes = std::stoull(sz);
    if (sz.back() == 'K') bytes <<= 10;
    if (sz.back() == 'M') bytes <<= 20;
    // hwloc drops CPUs outside the cgroup; so do we.
    std::vector<unsigned> sh;
    for (unsigned p : parse_cpu_list(*shared))
      if (t.find_pu(p)) sh.push_back(p);
    kernel.insert({static_cast<unsigned>(std::stoul(*level)), ty, bytes, sorted(sh)});
  }
  if (kernel.empty()) GTEST_SKIP() << dir << " not readable: nothing to compare";
  for (const Cache& c : t.caches)
    if (std::binary_search(c.pus.begin(), c.pus.end(), cpu))
      ours.insert({c.level, cache_type_name(c.type), c.size, c.pus});
  EXPECT_EQ(ours, kernel);
}

// ---------------------------------------------------------------------------------------------
// NUMA and memory

// The kernel's MemTotal for a NUMA node, in bytes (what hwloc reads on Linux).
std::optional<std::uint64_t> node_memory(unsigned node) {
  const auto meminfo =
      read_file("/sys/devices/system/node/node" + std::to_string(node) + "/meminfo");
  if (!meminfo) return std::nullopt;
  const auto pos = meminfo->find("MemTotal:");
  if (pos == std::string::npos) return std::nullopt;
  return std::stoull(meminfo->substr(pos + 9)) * 1024;
}

TEST(Topology, NumaNodesCoverPusAndMemory) {
  // Node memory can change while we look (this workplace's VMs plug memory in as it is used),
  // so the kernel's figure is read just before and just after hwloc's.
  std::map<unsigned, std::uint64_t> before, after;
  for (const NumaNode& n : topo().numa_nodes)
    if (auto m = node_memory(n.os_index)) before[n.os_index] = *m;
  const Topology t = detect_topology({.io = false});
  for (const NumaNode& n : t.numa_nodes)
    if (auto m = node_memory(n.os_index)) after[n.os_index] = *m;

  std::uint64_t sum = 0;
  std::vector<unsigned> covered;
  for (const NumaNode& n : t.numa_nodes) {
    EXPECT_GT(n.local_memory, 0u) << "node " << n.os_index;
    sum += n.local_memory;
    covered.insert(covered.end(), n.pus.begin(), n.pus.end());
    for (unsigned p : n.pus) {
      const Pu* pu = t.find_pu(p);
      ASSERT_NE(pu, nullptr);
      EXPECT_GE(pu->numa_node, 0);
    }
    if (before.count(n.os_index) && after.count(n.os_index)) {
      const auto [lo, hi] = std::minmax(before[n.os_index], after[n.os_index]);
      EXPECT_GE(n.local_memory, lo) << "node " << n.os_index << " vs sysfs meminfo";
      EXPECT_LE(n.local_memory, hi) << "node " << n.os_index << " vs sysfs meminfo";
    }
  }
  covered = sorted(covered);
  covered.erase(std::unique(covered.begin(), covered.end()), covered.end());
  EXPECT_EQ(covered, all_pus(t)) << "every PU is local to some NUMA node";
  EXPECT_EQ(sum, t.total_memory) << "machine memory is the sum of the nodes";
  // The OS's total (/proc/meminfo MemTotal). On this workplace's VMs the node's MemTotal is
  // well below /proc/meminfo's and grows as memory gets used (ballooned/hot-plugged memory),
  // so only require that hwloc's figure is positive and not above the OS's.
  ASSERT_GT(t.os_memory, 0u);
  EXPECT_GT(t.total_memory, 0u);
  EXPECT_LE(t.total_memory, t.os_memory + t.os_memory / 100);
  const auto meminfo = read_file("/proc/meminfo");
  if (meminfo) {
    const std::uint64_t kb = std::stoull(meminfo->substr(meminfo->find("MemTotal:") + 9));
    EXPECT_EQ(t.os_memory / 1024 / 1024, kb / 1024) << "os_memory vs /proc/meminfo (MiB)";
  }
}

// ---------------------------------------------------------------------------------------------
// PCI and OS devices

TEST(Topology, PciDevicesMatchSysfs) {
  const Topology& t = topo();
  const std::regex busid_re("^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]$");
  std::set<std::string> ours;
  for (const PciDevice& d : t.pci_devices) {
    EXPECT_TRUE(std::regex_match(d.bus_id, busid_re)) << d.bus_id;
    EXPECT_FALSE(d.class_name.empty());
    EXPECT_STREQ(d.class_name.c_str(), pci_class_name(d.class_id));
    ours.insert(d.bus_id);
    const std::string sys = "/sys/bus/pci/devices/" + d.bus_id;
    const auto vendor = read_hex(sys + "/vendor"), device = read_hex(sys + "/device"),
               cls = read_hex(sys + "/class");
    if (!vendor || !device || !cls) {
      ADD_FAILURE() << d.bus_id << " reported by hwloc but not in /sys/bus/pci/devices";
      continue;
    }
    EXPECT_EQ(d.vendor_id, *vendor) << d.bus_id;
    EXPECT_EQ(d.device_id, *device) << d.bus_id;
    EXPECT_EQ(d.class_id, *cls >> 8) << d.bus_id;
    // OS devices hang below their PCI function in sysfs.
    for (const OsDevice& o : d.os_devices) {
      ASSERT_FALSE(o.name.empty());
      const char* cls_dir = o.type == "network" ? "net"
                            : o.type == "block" ? "block"
                            : o.type == "gpu"   ? "drm"
                                                : nullptr;
      if (!cls_dir) continue;
      std::error_code ec;
      const auto real = fs::canonical(fs::path("/sys/class") / cls_dir / o.name, ec);
      if (ec) continue;
      EXPECT_NE(real.string().find("/" + d.bus_id + "/"), std::string::npos)
          << o.name << " resolves to " << real << ", not below " << d.bus_id;
    }
  }
  // Completeness: every function of an "important" class in sysfs is reported.
  std::error_code ec;
  bool any = false;
  for (const auto& e : fs::directory_iterator("/sys/bus/pci/devices", ec)) {
    any = true;
    const auto cls = read_hex((e.path() / "class").string());
    if (!cls) continue;
    const unsigned base = static_cast<unsigned>(*cls >> 16);
    const bool important =
        base == 0x01 || base == 0x02 || base == 0x03 || base == 0x0b || base == 0x12;
    if (important) {
      EXPECT_TRUE(ours.count(e.path().filename().string()))
          << e.path() << " class " << std::hex << *cls;
    }
  }
  if (!any) GTEST_SKIP() << "no /sys/bus/pci/devices here: only the hwloc side was checked";
}

TEST(Topology, NetworkAndBlockDevicesAreAttachedToTheirPciFunction) {
  const Topology& t = topo();
  // Each /sys/class/{net,block} entry whose device link resolves below a PCI function that we
  // report must be listed as an OS device of that function.
  std::map<std::string, const PciDevice*> by_bus;
  for (const PciDevice& d : t.pci_devices) by_bus[d.bus_id] = &d;
  const std::regex pci_re("/([0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7])/");
  int checked = 0;
  for (const char* cls : {"net", "block"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path("/sys/class") / cls, ec)) {
      std::error_code ec2;
      const auto real = fs::canonical(e.path() / "device", ec2);
      if (ec2) continue;  // virtual device (lo, loop0 ...)
      // The last PCI function on the path is the device's own.
      std::string path = real.string() + "/", bus;
      for (std::sregex_iterator it(path.begin(), path.end(), pci_re), end; it != end; ++it)
        bus = (*it)[1];
      const auto found = by_bus.find(bus);
      if (bus.empty() || found == by_bus.end()) continue;
      const auto& os = found->second->os_devices;
      const std::string name = e.path().filename().string();
      EXPECT_TRUE(
          std::any_of(os.begin(), os.end(), [&](const OsDevice& o) { return o.name == name; }))
          << name << " is below " << bus << " in sysfs but not among its OS devices";
      ++checked;
    }
  }
  if (checked == 0) GTEST_SKIP() << "no PCI network/block device in /sys/class here";
}

TEST(Topology, OptionsControlIoDiscovery) {
  const Topology no_io = detect_topology({.io = false});
  EXPECT_TRUE(no_io.pci_devices.empty());
  EXPECT_TRUE(no_io.other_os_devices.empty());
  EXPECT_EQ(no_io.pus.size(), topo().pus.size());

  const Topology all = detect_topology({.io = true, .all_pci_devices = true});
  std::set<std::string> all_ids, important_ids;
  for (const auto& d : all.pci_devices) all_ids.insert(d.bus_id);
  for (const auto& d : topo().pci_devices) important_ids.insert(d.bus_id);
  EXPECT_TRUE(
      std::includes(all_ids.begin(), all_ids.end(), important_ids.begin(), important_ids.end()));
  std::error_code ec;
  std::size_t sysfs_functions = 0;
  for (const auto& e : fs::directory_iterator("/sys/bus/pci/devices", ec)) {
    (void)e;
    ++sysfs_functions;
  }
  // Every non-bridge function (bridges are hwloc Bridge objects, not PCI devices).
  EXPECT_LE(all_ids.size(), sysfs_functions);
  if (sysfs_functions) {
    EXPECT_GT(all_ids.size(), 0u);
  }
}

TEST(PciClassName, KnownClasses) {
  EXPECT_STREQ(pci_class_name(0x0300), "VGA");
  EXPECT_STREQ(pci_class_name(0x0302), "3D");
  EXPECT_STREQ(pci_class_name(0x0380), "Display");
  EXPECT_STREQ(pci_class_name(0x0200), "Ethernet");
  EXPECT_STREQ(pci_class_name(0x0280), "Network");
  EXPECT_STREQ(pci_class_name(0x0108), "NVMe");
  EXPECT_STREQ(pci_class_name(0x0180), "Storage");
  EXPECT_STREQ(pci_class_name(0x1200), "Processing accelerator");
  EXPECT_STREQ(pci_class_name(0x0604), "PCI bridge");
  EXPECT_STREQ(pci_class_name(0xff00), "Other");
  EXPECT_TRUE(is_display_class(0x0300));
  EXPECT_TRUE(is_display_class(0x0380));
  EXPECT_FALSE(is_display_class(0x0200));
}

// ---------------------------------------------------------------------------------------------
// Pinning plan

TEST(PinningPlan, RealTopologySpreadsAcrossCoresFirst) {
  const Topology& t = topo();
  const auto pus = all_pus(t);
  const unsigned n_pu = static_cast<unsigned>(t.pus.size());
  EXPECT_TRUE(pinning_plan(t, 0).empty());
  for (unsigned n = 1; n <= n_pu; ++n) {
    const auto plan = pinning_plan(t, n);
    ASSERT_EQ(plan.size(), n);
    EXPECT_EQ(std::set<unsigned>(plan.begin(), plan.end()).size(), n)
        << "n=" << n << ": distinct PUs";
    for (unsigned p : plan) EXPECT_TRUE(std::binary_search(pus.begin(), pus.end(), p));
    // The first min(n, cores) threads land on distinct cores.
    std::set<unsigned> cores;
    const std::size_t spread = std::min<std::size_t>(n, usable_physical_cores(t));
    for (std::size_t i = 0; i < spread; ++i) cores.insert(t.find_pu(plan[i])->core);
    EXPECT_EQ(cores.size(), spread) << "n=" << n;
  }
  // More threads than PUs: wraps around, every PU used before any repeats.
  const auto big = pinning_plan(t, 2 * n_pu + 1);
  ASSERT_EQ(big.size(), 2 * n_pu + 1);
  for (std::size_t i = 0; i < big.size(); ++i) EXPECT_EQ(big[i], big[i % n_pu]);
}

// 2 packages x 2 cores x 2 hardware threads; OS numbering like Linux on Intel: the second
// hardware thread of core k is k + 4.
Topology synthetic_smt() {
  Topology t;
  t.packages = {Package{0, "", "", {0, 1}, {0, 1, 4, 5}}, Package{1, "", "", {2, 3}, {2, 3, 6, 7}}};
  t.cores = {Core{0, 0, {0, 4}}, Core{1, 0, {1, 5}}, Core{0, 1, {2, 6}}, Core{1, 1, {3, 7}}};
  for (unsigned c = 0; c < 4; ++c)
    for (unsigned r = 0; r < 2; ++r) t.pus.push_back(Pu{t.cores[c].pus[r], c, c / 2, 0, r});
  return t;
}

TEST(PinningPlan, SyntheticSmtOrder) {
  const Topology t = synthetic_smt();
  EXPECT_EQ(pinning_plan(t, 8), (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(pinning_plan(t, 2), (std::vector<unsigned>{0, 1}));  // same package first
  EXPECT_EQ(pinning_plan(t, 5), (std::vector<unsigned>{0, 1, 2, 3, 4}));
  EXPECT_EQ(pinning_plan(t, 10), (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 6, 7, 0, 1}));
  EXPECT_EQ(usable_physical_cores(t), 4u);
}

TEST(PinningPlan, RespectsProcessAffinity) {
  Topology t = synthetic_smt();
  t.process_pus = {1, 4, 5};  // core 0's second thread, both threads of core 1
  // One per core first (4 on core 0, 1 on core 1), then core 1's sibling.
  EXPECT_EQ(pinning_plan(t, 3), (std::vector<unsigned>{4, 1, 5}));
  EXPECT_EQ(pinning_plan(t, 4), (std::vector<unsigned>{4, 1, 5, 4}));
  EXPECT_EQ(usable_physical_cores(t), 2u);
  t.process_pus = {99};  // nothing in common with the topology: use everything
  const auto plan = pinning_plan(t, 8);
  EXPECT_EQ(std::set<unsigned>(plan.begin(), plan.end()).size(), 8u);
}

TEST(PinningPlan, RealAffinityRestriction) {
  const Topology& t = topo();
  if (t.pus.size() < 2) GTEST_SKIP() << "needs at least 2 PUs to restrict affinity";
  EXPECT_EQ(t.process_pus, all_pus(t)) << "test binary should run unrestricted";
  const unsigned last = t.pus.back().os_index;
  // In a child pinned to one PU, detection sees only that PU as usable.
  const int status = run_in_child([last] {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(last, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) return 10;
    const Topology c = detect_topology({.io = false});
    if (c.process_pus != std::vector<unsigned>{last}) return 11;
    if (pinning_plan(c, 3) != std::vector<unsigned>{last, last, last}) return 12;
    if (c.pus.size() < 2) return 13;  // the topology itself is not restricted
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status)) << "child crashed";
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "10 setaffinity, 11 process_pus, 12 plan, 13 topology shrank";
}

}  // namespace
}  // namespace zen::hw
