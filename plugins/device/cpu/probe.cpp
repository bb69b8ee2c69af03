// The CPU variant's probe: compiled with no ISA flags (see zen_add_cpu_variant), so it runs on
// any CPU of the architecture and decides whether the rest of this plugin can.
#include <zen/abi.h>
#include <zen/plugin.hpp>

#include <cstdio>
#include <string>
#include <string_view>

#include <zen/cpu_features.hpp>

namespace {

// Why a feature the variant needs cannot be used: missing in the CPU, or refused by the OS.
std::string why_unusable(const zen::hw::CpuFeatures& cpu, zen::hw::Feature f) {
  using zen::hw::Feature;
  if (f == Feature::AMX_TILE || f == Feature::AMX_INT8 || f == Feature::AMX_BF16)
    return cpu.amx_reason;
  if (!zen::hw::cpu_has(cpu, f)) return "not reported by the CPU";
  char xcr0[64];
  std::snprintf(xcr0, sizeof xcr0, "the OS does not enable its register state (XCR0=0x%llx)",
                static_cast<unsigned long long>(cpu.xcr0));
  return xcr0;
}

}  // namespace

// Who this plugin is, before init: the host initialises only the variant it picks.
ZEN_PLUGIN_IDENTIFY(out) {
  return zen::write_desc(out, ZEN_KIND_DEVICE, "cpu", "0.1.0", ZEN_CPU_VARIANT, nullptr);
}

ZEN_PLUGIN_PROBE(reason, reason_len) {
  const zen::hw::CpuFeatures cpu = zen::hw::detect_cpu();
  std::string missing;  // every required feature that cannot be used, with why
  std::string_view required = ZEN_CPU_REQUIRED_FEATURES;
  while (!required.empty()) {
    size_t comma = required.find(',');
    std::string_view name = required.substr(0, comma);
    required = comma == std::string_view::npos ? std::string_view{} : required.substr(comma + 1);
    auto feature = zen::hw::feature_by_name(name);
    std::string why = !feature                          ? "unknown feature name"
                      : !zen::hw::usable(cpu, *feature) ? why_unusable(cpu, *feature)
                                                        : "";
    if (!why.empty()) missing += (missing.empty() ? "" : "; ") + std::string(name) + ": " + why;
  }
  if (!missing.empty()) {
    zen::write_reason(reason, reason_len, "not usable here: " + missing);
    return 0;
  }
  zen::write_reason(reason, reason_len, "usable: " ZEN_CPU_REQUIRED_FEATURES);
  return ZEN_CPU_SCORE;
}
