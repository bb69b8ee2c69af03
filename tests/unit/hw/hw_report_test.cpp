// JSON and text renderings: keys present and values equal to the structs they render.
#include "hw/hw_report.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace zen::hw {
namespace {

TEST(HwReportJson, CpuFeatures) {
  const CpuFeatures c = detect_cpu();
  const nlohmann::json j = to_json(c);
  for (const char* k : {"arch", "vendor", "brand", "family", "model", "stepping", "logical_cpus",
                        "affinity_cpus", "isa_level", "cpuid", "usable", "os"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["arch"], c.arch);
  EXPECT_EQ(j["vendor"], c.vendor);
  EXPECT_EQ(j["brand"], c.brand);
  EXPECT_EQ(j["family"], c.family);
  EXPECT_EQ(j["model"], c.model);
  EXPECT_EQ(j["stepping"], c.stepping);
  EXPECT_EQ(j["logical_cpus"], c.logical_cpus);
  EXPECT_EQ(j["isa_level"], isa_level(c));
  int listed = 0;
  for (int i = 0; i < kFeatureCount; ++i) {
    const auto f = static_cast<Feature>(i);
    if (c.arch != feature_arch(f)) {
      EXPECT_FALSE(j["cpuid"].contains(name(f))) << name(f);
      continue;
    }
    ASSERT_TRUE(j["cpuid"].contains(name(f))) << name(f);
    EXPECT_EQ(j["cpuid"][name(f)], cpu_has(c, f)) << name(f);
    EXPECT_EQ(j["usable"][name(f)], usable(c, f)) << name(f);
    ++listed;
  }
  if (c.arch == "x86_64" || c.arch == "aarch64") {
    EXPECT_GT(listed, 0);
  }
  EXPECT_EQ(j["os"]["xcr0"], c.xcr0);
  EXPECT_EQ(j["os"]["avx"], c.os_avx);
  EXPECT_EQ(j["os"]["avx512"], c.os_avx512);
  EXPECT_EQ(j["os"]["amx"], c.os_amx);
  EXPECT_EQ(j["os"]["amx_reason"], c.amx_reason);
  // Serializes and parses back unchanged.
  EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
}

TEST(HwReportJson, Topology) {
  const Topology t = detect_topology();
  const nlohmann::json j = to_json(t);
  for (const char* k : {"hwloc_version", "total_memory", "os_memory", "summary", "packages",
                        "cores", "pus", "caches", "numa_nodes", "pci_devices", "other_os_devices",
                        "process_pus", "cores_synthesized"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["total_memory"], t.total_memory);
  EXPECT_EQ(j["summary"]["pus"], t.pus.size());
  EXPECT_EQ(j["summary"]["cores"], t.cores.size());
  EXPECT_EQ(j["summary"]["packages"], t.packages.size());
  EXPECT_EQ(j["summary"]["numa_nodes"], t.numa_nodes.size());
  EXPECT_EQ(j["summary"]["usable_physical_cores"], usable_physical_cores(t));

  ASSERT_EQ(j["pus"].size(), t.pus.size());
  for (std::size_t i = 0; i < t.pus.size(); ++i) {
    EXPECT_EQ(j["pus"][i]["os_index"], t.pus[i].os_index);
    EXPECT_EQ(j["pus"][i]["core"], t.pus[i].core);
    EXPECT_EQ(j["pus"][i]["numa_node"], t.pus[i].numa_node);
    EXPECT_EQ(j["pus"][i]["smt_rank"], t.pus[i].smt_rank);
  }
  ASSERT_EQ(j["cores"].size(), t.cores.size());
  for (std::size_t i = 0; i < t.cores.size(); ++i) EXPECT_EQ(j["cores"][i]["pus"], t.cores[i].pus);
  ASSERT_EQ(j["caches"].size(), t.caches.size());
  for (std::size_t i = 0; i < t.caches.size(); ++i) {
    EXPECT_EQ(j["caches"][i]["level"], t.caches[i].level);
    EXPECT_EQ(j["caches"][i]["size"], t.caches[i].size);
    EXPECT_EQ(j["caches"][i]["type"], cache_type_name(t.caches[i].type));
    EXPECT_EQ(j["caches"][i]["pus"], t.caches[i].pus);
  }
  ASSERT_EQ(j["numa_nodes"].size(), t.numa_nodes.size());
  for (std::size_t i = 0; i < t.numa_nodes.size(); ++i) {
    EXPECT_EQ(j["numa_nodes"][i]["local_memory"], t.numa_nodes[i].local_memory);
    EXPECT_EQ(j["numa_nodes"][i]["pus"], t.numa_nodes[i].pus);
  }
  ASSERT_EQ(j["pci_devices"].size(), t.pci_devices.size());
  for (std::size_t i = 0; i < t.pci_devices.size(); ++i) {
    const auto& d = t.pci_devices[i];
    const auto& jd = j["pci_devices"][i];
    EXPECT_EQ(jd["bus_id"], d.bus_id);
    EXPECT_EQ(jd["vendor_id"], d.vendor_id);
    EXPECT_EQ(jd["device_id"], d.device_id);
    EXPECT_EQ(jd["class_id"], d.class_id);
    EXPECT_EQ(jd["class_name"], d.class_name);
    ASSERT_EQ(jd["os_devices"].size(), d.os_devices.size());
    for (std::size_t k = 0; k < d.os_devices.size(); ++k) {
      EXPECT_EQ(jd["os_devices"][k]["name"], d.os_devices[k].name);
      EXPECT_EQ(jd["os_devices"][k]["type"], d.os_devices[k].type);
    }
  }
  EXPECT_EQ(j["process_pus"], t.process_pus);
  EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
}

TEST(HwReportText, CpuFeatures) {
  const CpuFeatures c = detect_cpu();
  std::ostringstream os;
  print_text(c, os);
  const std::string s = os.str();
  std::printf("%s", s.c_str());
  EXPECT_NE(s.find("ISA: " + isa_level(c)), std::string::npos);
  if (c.arch == "x86_64") {
    EXPECT_NE(s.find(std::string("AVX2 ") + (c.avx2 ? "yes" : "no") + " (os " +
                     (c.os_avx ? "yes" : "no") + ")"),
              std::string::npos);
    EXPECT_NE(
        s.find("AMX " + std::string(c.usable_amx() ? "yes" : "no") + " (" + c.amx_reason + ")"),
        std::string::npos);
    EXPECT_NE(s.find(std::string("x86-64-v2 ") + (c.x86_64_v2() ? "yes" : "no")),
              std::string::npos);
  }
  if (!c.brand.empty()) {
    EXPECT_NE(s.find(c.brand), std::string::npos);
  }
}

TEST(HwReportText, Topology) {
  const Topology t = detect_topology();
  std::ostringstream os;
  print_text(t, os);
  const std::string s = os.str();
  std::printf("%s", s.c_str());
  EXPECT_NE(s.find(std::to_string(t.pus.size()) + (t.pus.size() == 1 ? " PU" : " PUs")),
            std::string::npos);
  EXPECT_NE(s.find("memory " + format_bytes(t.total_memory)), std::string::npos);
  for (const Cache& c : t.caches) {
    std::string label = "L" + std::to_string(c.level);
    if (c.type == CacheType::Data) label += "d";
    if (c.type == CacheType::Instruction) label += "i";
    EXPECT_NE(s.find(label + " " + format_bytes(c.size)), std::string::npos) << label;
  }
  for (const PciDevice& d : t.pci_devices) EXPECT_NE(s.find("PCI " + d.bus_id), std::string::npos);
}

TEST(HwReportFormat, CpuList) {
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(format_cpu_list({0}), "0");
  EXPECT_EQ(format_cpu_list({3, 1, 2, 7, 9, 8, 5, 5}), "1-3,5,7-9");
  EXPECT_EQ(format_cpu_list({0, 2, 4}), "0,2,4");
}

TEST(HwReportFormat, Bytes) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(32768), "32 KiB");
  EXPECT_EQ(format_bytes(512 * 1024), "512 KiB");
  EXPECT_EQ(format_bytes(32ull << 20), "32 MiB");
  EXPECT_EQ(format_bytes(4679896ull * 1024), "4.46 GiB");
  EXPECT_EQ(format_bytes(1536ull << 20), "1.5 GiB");
}

}  // namespace
}  // namespace zen::hw
