// JSON and text renderings of what zen::hw detected (used by `zen-engine probe`).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <zen/cpu_features.hpp>
#include "hw/topology.h"

namespace zen::hw {

// {"arch","vendor","brand","family","model","stepping","logical_cpus","affinity_cpus",
//  "isa_level", "cpuid": {"AVX2": true, ...}, "usable": {"AVX2": true, ...},
//  "os": {"osxsave","xcr0","xcr0_hex","avx","avx512","amx","amx_reason"}}
// "cpuid"/"usable" list the features of the detected architecture only (name() keys).
nlohmann::json to_json(const CpuFeatures& c);

// {"hwloc_version","total_memory","os_memory","summary":{"packages","cores","pus","numa_nodes","smt",
//  "usable_physical_cores"}, "packages":[{"os_index","vendor","model","cores","pus"}],
//  "cores":[{"os_index","package","pus"}], "pus":[{"os_index","core","package","numa_node",
//  "smt_rank"}], "caches":[{"level","type","size","line_size","associativity","pus"}],
//  "numa_nodes":[{"os_index","local_memory","pus"}], "pci_devices":[{"bus_id","vendor_id",
//  "device_id","subvendor_id","subdevice_id","class_id","class_name","revision",
//  "link_speed_gbps","name","numa_node","os_devices":[{"name","type","subtype"}]}],
//  "other_os_devices":[...], "process_pus":[...], "cores_synthesized"}
// Ids are numbers; bus ids and *_hex fields are strings.
nlohmann::json to_json(const Topology& t);

// A few compact lines, e.g.
//   CPU: AMD EPYC (AuthenticAMD family 25 model 1 stepping 1), 2 logical CPUs
//   ISA: x86-64-v3 | x86-64-v2 yes | AVX2 yes (os yes) | AVX-512F no | ... | AMX no (cpuid: no AMX)
void print_text(const CpuFeatures& c, std::ostream& os);

// A few compact lines: counts, memory, caches, NUMA nodes, pinning order, PCI devices.
void print_text(const Topology& t, std::ostream& os);

// "0-3,8,10-11" for a list of CPU indexes (sorted and deduplicated first).
std::string format_cpu_list(std::vector<unsigned> cpus);

// "32 KiB", "512 KiB", "32 MiB", "4.46 GiB": binary units, up to two decimals, no trailing zeros.
std::string format_bytes(std::uint64_t bytes);

}  // namespace zen::hw
