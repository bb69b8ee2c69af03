// CPU instruction-set detection with the operating system's side checked too.
//
// Part of the SDK (its library: ZenSDK::cpu_features, in tree zen_hw_cpu), linked into every
// CPU device plugin's probe, which runs before the host API exists.
// The library is compiled for the baseline ISA only (no -m flags, no LTO) and executes nothing
// beyond baseline x86-64 / aarch64: cpuid, xgetbv (only once cpuid reports OSXSAVE), getauxval
// and the arch_prctl system call. It has no dependencies besides the C/C++ runtime; JSON and
// text rendering live in zen_hw (hw/hw_report.h).
//
// "cpuid says X" and "X is usable" are different things: an instruction whose register state
// the OS does not save (XCR0) or does not permit (Linux AMX tile data needs
// arch_prctl(ARCH_REQ_XCOMP_PERM)) raises SIGILL/#UD even though cpuid advertises it. Always
// decide with usable(), never with the raw cpuid bits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zen::hw {

// Every feature a plugin can require by name. Names (see name()) are stable: CMake files and
// config refer to them. Append only.
enum class Feature : std::uint8_t {
  // x86-64
  SSE3,
  SSSE3,
  SSE4_1,
  SSE4_2,
  POPCNT,
  CX16,
  LAHF_SAHF,
  X86_64_V2,  // composite: CX16 LAHF_SAHF POPCNT SSE3 SSE4_1 SSE4_2 SSSE3
  AVX,
  AVX2,
  FMA,
  F16C,
  BMI1,
  BMI2,
  LZCNT,
  MOVBE,
  X86_64_V3,  // composite: v2 + AVX AVX2 BMI1 BMI2 F16C FMA LZCNT MOVBE OSXSAVE, OS AVX state
  AVX512F,
  AVX512BW,
  AVX512VL,
  AVX512DQ,
  AVX512CD,
  X86_64_V4,  // composite: v3 + AVX512F BW CD DQ VL, OS AVX-512 state
  AVX512VNNI,
  AVX512BF16,
  AVX512FP16,
  AVX512VBMI,
  AVX_VNNI,
  AMX_TILE,
  AMX_INT8,
  AMX_BF16,
  // aarch64
  NEON,     // Advanced SIMD ("asimd")
  FP16,     // half-precision scalar + SIMD arithmetic ("fphp" + "asimdhp")
  DOTPROD,  // SDOT/UDOT ("asimddp")
  I8MM,     // SMMLA/UMMLA/USDOT
  SVE,
  SVE2,
  BF16,   // BFDOT/BFMMLA/BFCVT
  Count_  // not a feature
};

inline constexpr int kFeatureCount = static_cast<int>(Feature::Count_);

// Stable upper-case name, e.g. "AVX2", "AVX512VNNI", "AMX_TILE", "X86_64_V3", "DOTPROD".
const char* name(Feature f) noexcept;

// Inverse of name(). Case-insensitive, and '_', '-', '.' and spaces are ignored, so
// "avx512_vnni", "AVX-512-VNNI" and "AVX512VNNI" are the same. A few aliases are accepted
// ("ASIMD" = NEON, "ASIMDDP" = DOTPROD, "ABM" = LZCNT, "PNI" = SSE3, "LAHF_LM" = LAHF_SAHF,
// "ASIMDHP" = FP16). Unknown names give nullopt.
std::optional<Feature> feature_by_name(std::string_view s) noexcept;

// Which architecture a feature belongs to: "x86_64" or "aarch64".
const char* feature_arch(Feature f) noexcept;

struct CpuFeatures {
  // Special members are defined out of line, in this (baseline-compiled) library, so a plugin
  // whose other objects are built with -mavx512f etc. cannot end up using an ISA-flagged copy
  // of them (inline functions are merged by the linker, and any copy may win).
  CpuFeatures();
  CpuFeatures(const CpuFeatures&);
  CpuFeatures(CpuFeatures&&) noexcept;
  CpuFeatures& operator=(const CpuFeatures&);
  CpuFeatures& operator=(CpuFeatures&&) noexcept;
  ~CpuFeatures();

  // Identification.
  std::string arch;    // "x86_64", "aarch64" or the compiler's idea of anything else
  std::string vendor;  // x86: cpuid vendor ("GenuineIntel", "AuthenticAMD"); aarch64: MIDR
                       // implementer ("ARM", "Apple", "0x..") from sysfs, empty if unreadable
  std::string brand;   // x86: cpuid brand string, trimmed; aarch64: empty
  // x86: display family/model (extended fields folded in), stepping.
  // aarch64: MIDR variant / part number / revision.
  unsigned family = 0, model = 0, stepping = 0;
  unsigned logical_cpus = 0;   // online logical CPUs (sysconf)
  unsigned affinity_cpus = 0;  // logical CPUs this process may run on (sched_getaffinity)

  // x86: what cpuid reports.
  bool sse3 = false, ssse3 = false, sse4_1 = false, sse4_2 = false, popcnt = false, cx16 = false,
       lahf_sahf = false;
  bool xsave = false, osxsave = false;
  bool avx = false, avx2 = false, fma = false, f16c = false, bmi1 = false, bmi2 = false,
       lzcnt = false, movbe = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false, avx512cd = false,
       avx512vnni = false, avx512bf16 = false, avx512fp16 = false, avx512vbmi = false;
  bool avx_vnni = false;
  bool amx_tile = false, amx_int8 = false, amx_bf16 = false;

  // x86: what the OS enables.
  std::uint64_t xcr0 = 0;  // 0 unless OSXSAVE
  bool os_avx = false;     // OSXSAVE and XCR0 bits 1,2 (SSE, YMM state)
  bool os_avx512 = false;  // os_avx and XCR0 bits 5,6,7 (opmask, ZMM_Hi256, Hi16_ZMM)
  bool os_amx = false;     // XCR0 bits 17,18 (XTILECFG, XTILEDATA) and, on Linux,
                           // arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) succeeded
  std::string amx_reason;  // why AMX is or is not usable, e.g. "usable", "cpuid: no AMX",
                           // "arch_prctl(ARCH_REQ_XCOMP_PERM) refused: Invalid argument"

  // aarch64: HWCAP/HWCAP2 bits (the kernel only reports what it enables, so these are usable).
  bool neon = false, fp16 = false, dotprod = false, i8mm = false, sve = false, sve2 = false,
       bf16 = false;

  // Convenience: cpuid AND OS.
  bool x86_64_v2() const noexcept;    // the whole x86-64-v2 set (no OS state involved)
  bool usable_avx2() const noexcept;  // AVX2 alone (FMA/F16C are separate; see X86_64_V3)
  bool usable_x86_64_v3() const noexcept;
  bool usable_avx512() const noexcept;  // AVX512 F BW VL DQ and os_avx512
  bool usable_amx() const noexcept;     // AMX_TILE and os_amx
};

// Detects the running CPU. Cheap after the first call (the AMX permission request is made at
// most once per process, thread-safely; the rest is a handful of cpuid instructions).
CpuFeatures detect_cpu();

// What cpuid (or HWCAP) reports, without the OS side. Composite features: all parts present.
bool cpu_has(const CpuFeatures& c, Feature f) noexcept;

// cpuid AND the OS saves/permits the state the instructions touch. This is the check to use.
bool usable(const CpuFeatures& c, Feature f) noexcept;

// Human-readable microarchitecture level: "x86-64-v4", "x86-64-v3", "x86-64-v2", "x86-64",
// "aarch64", "aarch64+dotprod" ... (usable features only).
std::string isa_level(const CpuFeatures& c);

}  // namespace zen::hw
