#include "hw/hw_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <tuple>

namespace zen::hw {

namespace {

std::string hex(std::uint64_t v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*" PRIx64, width, v);
  return buf;
}

// nlohmann::json::dump() throws on invalid UTF-8. Strings here come from cpuid, hwloc and the
// C library (strerror in the user's locale): keep valid UTF-8, replace anything else with '?'.
std::string utf8(const std::string& in) {
  std::string out;
  out.reserve(in.size());
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const std::size_t n = in.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char b = p[i];
    std::size_t len = 0;
    std::uint32_t cp = 0, min = 0;
    if (b < 0x80) {
      out += static_cast<char>(b);
      ++i;
      continue;
    }
    if ((b & 0xE0) == 0xC0) {
      len = 2;
      cp = b & 0x1F;
      min = 0x80;
    } else if ((b & 0xF0) == 0xE0) {
      len = 3;
      cp = b & 0x0F;
      min = 0x800;
    } else if ((b & 0xF8) == 0xF0) {
      len = 4;
      cp = b & 0x07;
      min = 0x10000;
    }
    bool ok = len != 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) {
      ok = (p[i + k] & 0xC0) == 0x80;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    ok = ok && cp >= min && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    if (ok) {
      out.append(in, i, len);
      i += len;
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

const char* yes_no(bool b) { return b ? "yes" : "no"; }

// "yes", "no", or "cpuid only, OS state off" for a feature whose state the OS does not enable.
std::string feature_state(const CpuFeatures& c, Feature f) {
  if (usable(c, f)) return "yes";
  if (cpu_has(c, f)) return "cpuid yes, OS no";
  return "no";
}

// Label used in the text report ("AVX-512F", "AVX512-VNNI" ...); JSON uses name().
const char* label(Feature f) {
  switch (f) {
    case Feature::X86_64_V2:
      return "x86-64-v2";
    case Feature::X86_64_V3:
      return "x86-64-v3";
    case Feature::X86_64_V4:
      return "x86-64-v4";
    case Feature::AVX512F:
      return "AVX-512F";
    case Feature::AVX512BW:
      return "AVX-512BW";
    case Feature::AVX512VL:
      return "AVX-512VL";
    case Feature::AVX512DQ:
      return "AVX-512DQ";
    case Feature::AVX512CD:
      return "AVX-512CD";
    case Feature::AVX512VNNI:
      return "AVX512-VNNI";
    case Feature::AVX512BF16:
      return "AVX512-BF16";
    case Feature::AVX512FP16:
      return "AVX512-FP16";
    case Feature::AVX512VBMI:
      return "AVX512-VBMI";
    case Feature::AVX_VNNI:
      return "AVX-VNNI";
    default:
      return name(f);
  }
}

std::vector<Feature> arch_features(const CpuFeatures& c) {
  std::vector<Feature> out;
  for (int i = 0; i < kFeatureCount; ++i) {
    const auto f = static_cast<Feature>(i);
    if (c.arch == feature_arch(f)) out.push_back(f);
  }
  return out;
}

std::string cache_label(const Cache& c) {
  std::string s = "L" + std::to_string(c.level);
  if (c.type == CacheType::Data) s += 'd';
  if (c.type == CacheType::Instruction) s += 'i';
  return s;
}

}  // namespace

std::string format_cpu_list(std::vector<unsigned> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string s;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += std::to_string(cpus[i]);
    if (j > i) s += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return s;
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s + " " + units[u];
}

nlohmann::json to_json(const CpuFeatures& c) {
  nlohmann::json j;
  j["arch"] = c.arch;
  j["vendor"] = utf8(c.vendor);
  j["brand"] = utf8(c.brand);
  j["family"] = c.family;
  j["model"] = c.model;
  j["stepping"] = c.stepping;
  j["logical_cpus"] = c.logical_cpus;
  j["affinity_cpus"] = c.affinity_cpus;
  j["isa_level"] = isa_level(c);
  nlohmann::json cpuid = nlohmann::json::object(), use = nlohmann::json::object();
  for (Feature f : arch_features(c)) {
    cpuid[name(f)] = cpu_has(c, f);
    use[name(f)] = usable(c, f);
  }
  j["cpuid"] = std::move(cpuid);
  j["usable"] = std::move(use);
  j["os"] = {
      {"osxsave", c.osxsave},
      {"xcr0", c.xcr0},
      {"xcr0_hex", hex(c.xcr0, 1)},
      {"avx", c.os_avx},
      {"avx512", c.os_avx512},
      {"amx", c.os_amx},
      {"amx_reason", utf8(c.amx_reason)},
  };
  return j;
}

void print_text(const CpuFeatures& c, std::ostream& os) {
  os << "CPU: " << (c.brand.empty() ? c.arch : c.brand);
  if (!c.vendor.empty()) {
    os << " (" << c.vendor;
    if (c.arch == "x86_64")
      os << " family " << c.family << " model " << c.model << " stepping " << c.stepping;
    else if (c.arch == "aarch64")
      os << " part " << hex(c.model, 3) << " variant " << c.family << " revision " << c.stepping;
    os << ")";
  }
  os << ", " << c.logical_cpus << " logical CPUs";
  if (c.affinity_cpus != c.logical_cpus)
    os << " (" << c.affinity_cpus << " usable by this process)";
  os << "\n";

  if (c.arch == "x86_64") {
    os << "ISA: " << isa_level(c);
    os << " | x86-64-v2 " << yes_no(usable(c, Feature::X86_64_V2));
    os << " | AVX2 " << yes_no(c.avx2) << " (os " << yes_no(c.os_avx) << ")";
    for (Feature f : {Feature::FMA, Feature::F16C, Feature::BMI2})
      os << " | " << label(f) << " " << feature_state(c, f);
    os << " | AVX-512F " << feature_state(c, Feature::AVX512F);
    if (c.avx512f) os << " (os " << yes_no(c.os_avx512) << ")";
    for (Feature f : {Feature::AVX512VNNI, Feature::AVX512BF16, Feature::AVX_VNNI})
      os << " | " << label(f) << " " << feature_state(c, f);
    os << " | AMX " << yes_no(c.usable_amx()) << " (" << c.amx_reason << ")\n";
    os << "OS state: XCR0 " << hex(c.xcr0, 1) << " (YMM " << yes_no(c.os_avx) << ", ZMM "
       << yes_no(c.os_avx512) << ", tiles " << yes_no((c.xcr0 >> 17 & 3u) == 3u) << ")\n";
  } else if (c.arch == "aarch64") {
    os << "ISA: " << isa_level(c);
    for (Feature f : arch_features(c)) os << " | " << label(f) << " " << feature_state(c, f);
    os << "\n";
  } else {
    os << "ISA: " << isa_level(c) << " (no feature detection for this architecture)\n";
  }

  std::string usable_list, blocked_list;
  for (Feature f : arch_features(c)) {
    if (usable(c, f))
      usable_list += std::string(usable_list.empty() ? "" : " ") + name(f);
    else if (cpu_has(c, f))
      blocked_list += std::string(blocked_list.empty() ? "" : " ") + name(f);
  }
  if (!usable_list.empty()) os << "usable: " << usable_list << "\n";
  if (!blocked_list.empty()) os << "cpuid-only (OS does not enable): " << blocked_list << "\n";
}

nlohmann::json to_json(const Topology& t) {
  using nlohmann::json;
  json j;
  j["hwloc_version"] = utf8(t.hwloc_version);
  j["total_memory"] = t.total_memory;
  j["os_memory"] = t.os_memory;
  unsigned max_smt = 0;
  for (const Core& c : t.cores)
    max_smt = std::max<unsigned>(max_smt, static_cast<unsigned>(c.pus.size()));
  j["summary"] = {
      {"packages", t.packages.size()},
      {"cores", t.cores.size()},
      {"pus", t.pus.size()},
      {"numa_nodes", t.numa_nodes.size()},
      {"smt", max_smt},
      {"usable_physical_cores", usable_physical_cores(t)},
  };
  json packages = json::array();
  for (const Package& p : t.packages)
    packages.push_back({{"os_index", p.os_index},
                        {"vendor", utf8(p.vendor)},
                        {"model", utf8(p.model)},
                        {"cores", p.cores},
                        {"pus", p.pus}});
  j["packages"] = std::move(packages);
  json cores = json::array();
  for (const Core& c : t.cores)
    cores.push_back({{"os_index", c.os_index}, {"package", c.package}, {"pus", c.pus}});
  j["cores"] = std::move(cores);
  json pus = json::array();
  for (const Pu& p : t.pus)
    pus.push_back({{"os_index", p.os_index},
                   {"core", p.core},
                   {"package", p.package},
                   {"numa_node", p.numa_node},
                   {"smt_rank", p.smt_rank}});
  j["pus"] = std::move(pus);
  json caches = json::array();
  for (const Cache& c : t.caches)
    caches.push_back({{"level", c.level},
                      {"type", cache_type_name(c.type)},
                      {"size", c.size},
                      {"line_size", c.line_size},
                      {"associativity", c.associativity},
                      {"pus", c.pus}});
  j["caches"] = std::move(caches);
  json numa = json::array();
  for (const NumaNode& n : t.numa_nodes)
    numa.push_back({{"os_index", n.os_index}, {"local_memory", n.local_memory}, {"pus", n.pus}});
  j["numa_nodes"] = std::move(numa);
  auto osdevs = [](const std::vector<OsDevice>& v) {
    json a = json::array();
    for (const OsDevice& d : v)
      a.push_back({{"name", utf8(d.name)}, {"type", d.type}, {"subtype", utf8(d.subtype)}});
    return a;
  };
  json pci = json::array();
  for (const PciDevice& d : t.pci_devices)
    pci.push_back({{"bus_id", d.bus_id},
                   {"vendor_id", d.vendor_id},
                   {"device_id", d.device_id},
                   {"vendor_id_hex", hex(d.vendor_id, 4)},
                   {"device_id_hex", hex(d.device_id, 4)},
                   {"subvendor_id", d.subvendor_id},
                   {"subdevice_id", d.subdevice_id},
                   {"class_id", d.class_id},
                   {"class_id_hex", hex(d.class_id, 4)},
                   {"class_name", d.class_name},
                   {"revision", d.revision},
                   {"link_speed_gbps", d.link_speed_gbps},
                   {"name", utf8(d.name)},
                   {"numa_node", d.numa_node},
                   {"os_devices", osdevs(d.os_devices)}});
  j["pci_devices"] = std::move(pci);
  j["other_os_devices"] = osdevs(t.other_os_devices);
  j["process_pus"] = t.process_pus;
  j["cores_synthesized"] = t.cores_synthesized;
  return j;
}

void print_text(const Topology& t, std::ostream& os) {
  unsigned max_smt = 0;
  for (const Core& c : t.cores)
    max_smt = std::max<unsigned>(max_smt, static_cast<unsigned>(c.pus.size()));
  os << "topology (hwloc " << t.hwloc_version << "): " << t.packages.size()
     << (t.packages.size() == 1 ? " package, " : " packages, ") << t.cores.size()
     << (t.cores.size() == 1 ? " core, " : " cores, ") << t.pus.size()
     << (t.pus.size() == 1 ? " PU" : " PUs");
  os << (max_smt > 1 ? " (SMT " + std::to_string(max_smt) + ")" : std::string(" (no SMT)"));
  os << ", " << t.numa_nodes.size() << (t.numa_nodes.size() == 1 ? " NUMA node" : " NUMA nodes")
     << ", memory " << format_bytes(t.total_memory);
  // More than 1% apart: show the OS's figure too (VMs with hot-plugged/ballooned memory).
  const std::uint64_t hi = std::max(t.total_memory, t.os_memory),
                      lo = std::min(t.total_memory, t.os_memory);
  if (t.os_memory != 0 && hi - lo > hi / 100)
    os << " (NUMA nodes; OS reports " << format_bytes(t.os_memory) << ")";
  if (t.cores_synthesized) os << " [no core info from hwloc: one core per PU assumed]";
  os << "\n";

  for (std::size_t i = 0; i < t.packages.size(); ++i) {
    const Package& p = t.packages[i];
    os << "package " << p.os_index << ": " << (p.model.empty() ? "?" : p.model);
    if (!p.vendor.empty()) os << " (" << p.vendor << ")";
    os << ", " << p.cores.size() << " cores, PUs " << format_cpu_list(p.pus) << "\n";
  }

  // Caches grouped by (level, type): size, instance count and how they are shared.
  std::map<std::pair<unsigned, int>, std::vector<const Cache*>> groups;
  for (const Cache& c : t.caches) groups[{c.level, static_cast<int>(c.type)}].push_back(&c);
  std::set<std::vector<unsigned>> core_sets;
  for (const Core& c : t.cores) core_sets.insert(c.pus);
  if (!groups.empty()) {
    os << "caches:";
    bool first = true;
    for (const auto& [key, list] : groups) {
      const Cache& c0 = *list.front();
      bool same_size = true, per_core = true;
      std::size_t sharing = 0;
      for (const Cache* c : list) {
        same_size = same_size && c->size == c0.size;
        per_core = per_core && core_sets.count(c->pus) != 0;
        sharing = std::max(sharing, c->pus.size());
      }
      os << (first ? " " : ", ") << cache_label(c0) << " " << format_bytes(c0.size)
         << (same_size ? "" : "(varies)") << " x" << list.size();
      if (per_core && list.size() == t.cores.size())
        os << " (per core)";
      else
        os << " (shared by " << sharing << (sharing == 1 ? " PU)" : " PUs)");
      first = false;
    }
    os << "\n";
  }

  for (const NumaNode& n : t.numa_nodes)
    os << "NUMA node " << n.os_index << ": " << format_bytes(n.local_memory) << ", PUs "
       << (n.pus.empty() ? "none (memory only)" : format_cpu_list(n.pus)) << "\n";

  const std::vector<unsigned> plan = pinning_plan(t, static_cast<unsigned>(t.pus.size()));
  os << "process may run on PUs " << (t.process_pus.empty() ? "?" : format_cpu_list(t.process_pus))
     << "; pinning order:";
  constexpr std::size_t kShown = 16;
  for (std::size_t i = 0; i < plan.size() && i < kShown; ++i) os << (i ? "," : " ") << plan[i];
  if (plan.size() > kShown) os << ",...";
  os << " (" << usable_physical_cores(t) << " physical cores first)\n";

  for (const PciDevice& d : t.pci_devices) {
    os << "PCI " << d.bus_id << " " << hex(d.vendor_id, 4).substr(2) << ":"
       << hex(d.device_id, 4).substr(2) << " " << d.class_name;
    if (!d.name.empty()) os << " \"" << d.name << "\"";
    if (d.numa_node >= 0 && t.numa_nodes.size() > 1) os << " numa " << d.numa_node;
    if (!d.os_devices.empty()) {
      os << " [";
      for (std::size_t i = 0; i < d.os_devices.size(); ++i)
        os << (i ? ", " : "") << d.os_devices[i].name;
      os << "]";
    }
    os << "\n";
  }
  if (!t.other_os_devices.empty()) {
    os << "other devices:";
    for (const OsDevice& d : t.other_os_devices) os << " " << d.name << " (" << d.type << ")";
    os << "\n";
  }
}

}  // namespace zen::hw
