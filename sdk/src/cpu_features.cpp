// CPU feature detection. Compiled for the baseline ISA only: see zen/cpu_features.hpp.
#include <zen/cpu_features.hpp>

#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif
#if defined(__linux__)
#include <sched.h>
#include <sys/syscall.h>
#endif

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#include <cstdio>
#endif

namespace zen::hw {

namespace {

// ---------------------------------------------------------------------------------------------
// Names

struct FeatureInfo {
  Feature f;
  const char* name;
  const char* arch;
};

constexpr std::array<FeatureInfo, kFeatureCount> kFeatures{{
    {Feature::SSE3, "SSE3", "x86_64"},
    {Feature::SSSE3, "SSSE3", "x86_64"},
    {Feature::SSE4_1, "SSE4_1", "x86_64"},
    {Feature::SSE4_2, "SSE4_2", "x86_64"},
    {Feature::POPCNT, "POPCNT", "x86_64"},
    {Feature::CX16, "CX16", "x86_64"},
    {Feature::LAHF_SAHF, "LAHF_SAHF", "x86_64"},
    {Feature::X86_64_V2, "X86_64_V2", "x86_64"},
    {Feature::AVX, "AVX", "x86_64"},
    {Feature::AVX2, "AVX2", "x86_64"},
    {Feature::FMA, "FMA", "x86_64"},
    {Feature::F16C, "F16C", "x86_64"},
    {Feature::BMI1, "BMI1", "x86_64"},
    {Feature::BMI2, "BMI2", "x86_64"},
    {Feature::LZCNT, "LZCNT", "x86_64"},
    {Feature::MOVBE, "MOVBE", "x86_64"},
    {Feature::X86_64_V3, "X86_64_V3", "x86_64"},
    {Feature::AVX512F, "AVX512F", "x86_64"},
    {Feature::AVX512BW, "AVX512BW", "x86_64"},
    {Feature::AVX512VL, "AVX512VL", "x86_64"},
    {Feature::AVX512DQ, "AVX512DQ", "x86_64"},
    {Feature::AVX512CD, "AVX512CD", "x86_64"},
    {Feature::X86_64_V4, "X86_64_V4", "x86_64"},
    {Feature::AVX512VNNI, "AVX512VNNI", "x86_64"},
    {Feature::AVX512BF16, "AVX512BF16", "x86_64"},
    {Feature::AVX512FP16, "AVX512FP16", "x86_64"},
    {Feature::AVX512VBMI, "AVX512VBMI", "x86_64"},
    {Feature::AVX_VNNI, "AVX_VNNI", "x86_64"},
    {Feature::AMX_TILE, "AMX_TILE", "x86_64"},
    {Feature::AMX_INT8, "AMX_INT8", "x86_64"},
    {Feature::AMX_BF16, "AMX_BF16", "x86_64"},
    {Feature::NEON, "NEON", "aarch64"},
    {Feature::FP16, "FP16", "aarch64"},
    {Feature::DOTPROD, "DOTPROD", "aarch64"},
    {Feature::I8MM, "I8MM", "aarch64"},
    {Feature::SVE, "SVE", "aarch64"},
    {Feature::SVE2, "SVE2", "aarch64"},
    {Feature::BF16, "BF16", "aarch64"},
}};

// The table is indexed by the enum: catch a reordering at compile time.
constexpr bool table_in_enum_order() {
  for (int i = 0; i < kFeatureCount; ++i)
    if (static_cast<int>(kFeatures[static_cast<std::size_t>(i)].f) != i) return false;
  return true;
}
static_assert(table_in_enum_order(), "kFeatures must list every Feature in enum order");

struct Alias {
  const char* name;
  Feature f;
};
constexpr Alias kAliases[] = {
    {"ASIMD", Feature::NEON},      {"ASIMDDP", Feature::DOTPROD}, {"ASIMDHP", Feature::FP16},
    {"ABM", Feature::LZCNT},       {"PNI", Feature::SSE3},        {"LAHF_LM", Feature::LAHF_SAHF},
    {"CMPXCHG16B", Feature::CX16}, {"SVEI8MM", Feature::I8MM},
};

// Upper-case alphanumerics only: "avx512_vnni" and "AVX-512 VNNI" both become "AVX512VNNI".
// Writes at most 32 characters; returns false if the name is longer than any feature name.
bool normalize(std::string_view in, char (&out)[33], std::size_t& len) noexcept {
  len = 0;
  for (char ch : in) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '_' || ch == '-' || ch == '.' || ch == ' ') continue;
    if (!std::isalnum(u)) return false;
    if (len == 32) return false;
    out[len++] = static_cast<char>(std::toupper(u));
  }
  out[len] = '\0';
  return true;
}

bool same_name(std::string_view a, const char* canonical) noexcept {
  char na[33], nb[33];
  std::size_t la = 0, lb = 0;
  if (!normalize(a, na, la) || !normalize(canonical, nb, lb)) return false;
  return la == lb && std::memcmp(na, nb, la) == 0;
}

[[maybe_unused]] std::string errno_text_impl(int rc, const char* buf) {
  return rc == 0 ? buf : "unknown error";
}
[[maybe_unused]] std::string errno_text_impl(const char* s, const char*) {
  return s ? s : "unknown error";
}

// Thread-safe strerror plus the symbolic name for the values arch_prctl can return.
[[maybe_unused]] std::string errno_text(int e) {
  char buf[128] = {};
  std::string text = errno_text_impl(strerror_r(e, buf, sizeof buf), buf);
  const char* sym = nullptr;
  switch (e) {
    case EINVAL:
      sym = "EINVAL";
      break;
    case EPERM:
      sym = "EPERM";
      break;
    case ENOSYS:
      sym = "ENOSYS";
      break;
    case EFAULT:
      sym = "EFAULT";
      break;
    case ENOMEM:
      sym = "ENOMEM";
      break;
    case EBUSY:
      sym = "EBUSY";
      break;
    default:
      break;
  }
  if (sym) text += std::string(" (") + sym + ")";
  return text;
}

unsigned online_cpus() {
#if defined(_SC_NPROCESSORS_ONLN)
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n > 0) return static_cast<unsigned>(n);
#endif
  return 0;
}

unsigned affinity_cpus(unsigned fallback) {
#if defined(__linux__)
  // Grow the set until the kernel accepts its size (machines with more than 1024 CPUs).
  for (int ncpus = 1024; ncpus <= (1 << 20); ncpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(ncpus);
    if (!set) break;
    const std::size_t size = CPU_ALLOC_SIZE(ncpus);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) == 0) {
      const int count = CPU_COUNT_S(size, set);
      CPU_FREE(set);
      return count > 0 ? static_cast<unsigned>(count) : fallback;
    }
    const int e = errno;
    CPU_FREE(set);
    if (e != EINVAL) break;
  }
#endif
  return fallback;
}

// ---------------------------------------------------------------------------------------------
// x86-64

#if defined(__x86_64__)

struct Regs {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

// False (and zeros) when the leaf is above the CPU's maximum for its range.
bool cpuid(unsigned leaf, unsigned subleaf, Regs& r) {
  r = Regs{};
  return __get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx) != 0;
}

constexpr bool bit(unsigned reg, unsigned n) { return ((reg >> n) & 1u) != 0; }

// XGETBV with ECX=0. Only valid when CPUID.1:ECX.OSXSAVE is set. Encoded as bytes so neither
// the compiler (-mxsave for _xgetbv) nor the assembler's feature checks get involved.
std::uint64_t read_xcr0() {
  unsigned lo = 0, hi = 0;
  __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0u));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}

constexpr std::uint64_t kXcr0Sse = 1ull << 1;
constexpr std::uint64_t kXcr0Ymm = 1ull << 2;
constexpr std::uint64_t kXcr0Opmask = 1ull << 5;
constexpr std::uint64_t kXcr0ZmmHi256 = 1ull << 6;
constexpr std::uint64_t kXcr0Hi16Zmm = 1ull << 7;
constexpr std::uint64_t kXcr0TileCfg = 1ull << 17;
constexpr std::uint64_t kXcr0TileData = 1ull << 18;

struct AmxPermission {
  bool granted = false;
  std::string reason;
};

// Linux (5.16+) keeps AMX tile data disabled per process (XFD) until the process asks for it.
// Asking is harmless and idempotent; the answer is process-wide, so it is requested once.
AmxPermission request_amx_permission() {
#if defined(__linux__)
  constexpr long kArchGetXcompPerm = 0x1022;
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtileData = 18;
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtileData) != 0) {
    const int e = errno;
    return {false, "arch_prctl(ARCH_REQ_XCOMP_PERM) refused: " + errno_text(e)};
  }
  unsigned long mask = 0;
  if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &mask) != 0) {
    const int e = errno;
    return {false, "arch_prctl(ARCH_GET_XCOMP_PERM) failed: " + errno_text(e)};
  }
  if ((mask & (1ul << kXfeatureXtileData)) == 0)
    return {false, "arch_prctl(ARCH_REQ_XCOMP_PERM) succeeded but XTILEDATA is not permitted"};
  return {true, "usable"};
#else
  return {true, "usable (XCR0 enables tile state; no per-process permission on this OS)"};
#endif
}

const AmxPermission& amx_permission() {
  static const AmxPermission p = request_amx_permission();  // thread-safe, once
  return p;
}

void detect_x86(CpuFeatures& c) {
  c.arch = "x86_64";
  Regs r;
  if (!cpuid(0, 0, r)) return;
  const unsigned max_leaf = r.eax;
  char vendor[13] = {};
  std::memcpy(vendor + 0, &r.ebx, 4);
  std::memcpy(vendor + 4, &r.edx, 4);
  std::memcpy(vendor + 8, &r.ecx, 4);
  c.vendor = vendor;

  if (max_leaf >= 1) {
    cpuid(1, 0, r);
    const unsigned step = r.eax & 0xF, mod = (r.eax >> 4) & 0xF, fam = (r.eax >> 8) & 0xF;
    const unsigned ext_mod = (r.eax >> 16) & 0xF, ext_fam = (r.eax >> 20) & 0xFF;
    c.family = fam == 0xF ? fam + ext_fam : fam;
    c.model = (fam == 0x6 || fam == 0xF) ? (ext_mod << 4) + mod : mod;
    c.stepping = step;

    c.sse3 = bit(r.ecx, 0);
    c.ssse3 = bit(r.ecx, 9);
    c.fma = bit(r.ecx, 12);
    c.cx16 = bit(r.ecx, 13);
    c.sse4_1 = bit(r.ecx, 19);
    c.sse4_2 = bit(r.ecx, 20);
    c.movbe = bit(r.ecx, 22);
    c.popcnt = bit(r.ecx, 23);
    c.xsave = bit(r.ecx, 26);
    c.osxsave = bit(r.ecx, 27);
    c.avx = bit(r.ecx, 28);
    c.f16c = bit(r.ecx, 29);
  }

  if (max_leaf >= 7) {
    cpuid(7, 0, r);
    const unsigned max_sub7 = r.eax;
    c.bmi1 = bit(r.ebx, 3);
    c.avx2 = bit(r.ebx, 5);
    c.bmi2 = bit(r.ebx, 8);
    c.avx512f = bit(r.ebx, 16);
    c.avx512dq = bit(r.ebx, 17);
    c.avx512cd = bit(r.ebx, 28);
    c.avx512bw = bit(r.ebx, 30);
    c.avx512vl = bit(r.ebx, 31);
    c.avx512vbmi = bit(r.ecx, 1);
    c.avx512vnni = bit(r.ecx, 11);
    c.amx_bf16 = bit(r.edx, 22);
    c.avx512fp16 = bit(r.edx, 23);
    c.amx_tile = bit(r.edx, 24);
    c.amx_int8 = bit(r.edx, 25);
    if (max_sub7 >= 1) {
      cpuid(7, 1, r);
      c.avx_vnni = bit(r.eax, 4);
      c.avx512bf16 = bit(r.eax, 5);
    }
  }

  if (cpuid(0x80000000u, 0, r)) {
    const unsigned max_ext = r.eax;
    if (max_ext >= 0x80000001u) {
      cpuid(0x80000001u, 0, r);
      c.lahf_sahf = bit(r.ecx, 0);
      c.lzcnt = bit(r.ecx, 5);
    }
    if (max_ext >= 0x80000004u) {
      char brand[49] = {};
      for (unsigned i = 0; i < 3; ++i) {
        cpuid(0x80000002u + i, 0, r);
        std::memcpy(brand + 16 * i + 0, &r.eax, 4);
        std::memcpy(brand + 16 * i + 4, &r.ebx, 4);
        std::memcpy(brand + 16 * i + 8, &r.ecx, 4);
        std::memcpy(brand + 16 * i + 12, &r.edx, 4);
      }
      std::string b(brand);
      const auto first = b.find_first_not_of(' ');
      const auto last = b.find_last_not_of(' ');
      c.brand = first == std::string::npos ? std::string() : b.substr(first, last - first + 1);
    }
  }

  // The OS side. XGETBV itself is only legal once the OS has set CR4.OSXSAVE.
  if (c.osxsave) {
    c.xcr0 = read_xcr0();
    c.os_avx = (c.xcr0 & (kXcr0Sse | kXcr0Ymm)) == (kXcr0Sse | kXcr0Ymm);
    const std::uint64_t zmm = kXcr0Opmask | kXcr0ZmmHi256 | kXcr0Hi16Zmm;
    c.os_avx512 = c.os_avx && (c.xcr0 & zmm) == zmm;
  }

  if (!c.amx_tile) {
    c.amx_reason = "cpuid: no AMX";
  } else if (!c.osxsave) {
    c.amx_reason = "cpuid has AMX but the OS has not enabled XSAVE (OSXSAVE clear)";
  } else if ((c.xcr0 & (kXcr0TileCfg | kXcr0TileData)) != (kXcr0TileCfg | kXcr0TileData)) {
    c.amx_reason =
        "cpuid has AMX but XCR0 lacks XTILECFG/XTILEDATA (bits 17,18): the OS does "
        "not manage tile state";
  } else {
    const AmxPermission& p = amx_permission();
    c.os_amx = p.granted;
    c.amx_reason = p.reason;
  }
}

#endif  // __x86_64__

// ---------------------------------------------------------------------------------------------
// aarch64

#if defined(__aarch64__)

const char* arm_implementer(unsigned id) {
  switch (id) {
    case 0x41:
      return "ARM";
    case 0x42:
      return "Broadcom";
    case 0x43:
      return "Cavium";
    case 0x46:
      return "Fujitsu";
    case 0x48:
      return "HiSilicon";
    case 0x4e:
      return "NVIDIA";
    case 0x51:
      return "Qualcomm";
    case 0x61:
      return "Apple";
    case 0x6d:
      return "Microsoft";
    case 0xc0:
      return "Ampere";
    default:
      return nullptr;
  }
}

void detect_aarch64(CpuFeatures& c) {
  c.arch = "aarch64";
  c.neon = true;  // Advanced SIMD is mandatory in the Linux/AAPCS64 baseline
#if defined(__linux__)
  // Bit values from the kernel's uapi asm/hwcap.h, spelled out so old headers still build.
  constexpr unsigned long kHwcapAsimd = 1ul << 1;
  constexpr unsigned long kHwcapFphp = 1ul << 9;
  constexpr unsigned long kHwcapAsimdhp = 1ul << 10;
  constexpr unsigned long kHwcapAsimddp = 1ul << 20;
  constexpr unsigned long kHwcapSve = 1ul << 22;
  constexpr unsigned long kHwcap2Sve2 = 1ul << 1;
  constexpr unsigned long kHwcap2I8mm = 1ul << 13;
  constexpr unsigned long kHwcap2Bf16 = 1ul << 14;
  const unsigned long hw = getauxval(AT_HWCAP);
  const unsigned long hw2 = getauxval(AT_HWCAP2);
  c.neon = (hw & kHwcapAsimd) != 0;
  c.fp16 = (hw & kHwcapFphp) != 0 && (hw & kHwcapAsimdhp) != 0;
  c.dotprod = (hw & kHwcapAsimddp) != 0;
  c.sve = (hw & kHwcapSve) != 0;
  c.sve2 = (hw2 & kHwcap2Sve2) != 0;
  c.i8mm = (hw2 & kHwcap2I8mm) != 0;
  c.bf16 = (hw2 & kHwcap2Bf16) != 0;

  // MIDR_EL1 as exported by the kernel: implementer [31:24], variant [23:20], part [15:4],
  // revision [3:0]. Optional; absent in some containers.
  if (std::FILE* f = std::fopen("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "r")) {
    unsigned long long midr = 0;
    if (std::fscanf(f, "%llx", &midr) == 1) {
      const unsigned impl = static_cast<unsigned>((midr >> 24) & 0xFF);
      const char* n = arm_implementer(impl);
      char buf[16];
      std::snprintf(buf, sizeof buf, "0x%02x", impl);
      c.vendor = n ? n : buf;
      c.family = static_cast<unsigned>((midr >> 20) & 0xF);  // variant
      c.model = static_cast<unsigned>((midr >> 4) & 0xFFF);  // part number
      c.stepping = static_cast<unsigned>(midr & 0xF);        // revision
    }
    std::fclose(f);
  }
#endif
}

#endif  // __aarch64__

}  // namespace

// -----------------------------------------------------------------------------------------------
// Public API

const char* name(Feature f) noexcept {
  const int i = static_cast<int>(f);
  if (i < 0 || i >= kFeatureCount) return "UNKNOWN";
  return kFeatures[static_cast<std::size_t>(i)].name;
}

const char* feature_arch(Feature f) noexcept {
  const int i = static_cast<int>(f);
  if (i < 0 || i >= kFeatureCount) return "";
  return kFeatures[static_cast<std::size_t>(i)].arch;
}

std::optional<Feature> feature_by_name(std::string_view s) noexcept {
  for (const auto& fi : kFeatures)
    if (same_name(s, fi.name)) return fi.f;
  for (const auto& a : kAliases)
    if (same_name(s, a.name)) return a.f;
  return std::nullopt;
}

CpuFeatures::CpuFeatures() = default;
CpuFeatures::CpuFeatures(const CpuFeatures&) = default;
CpuFeatures::CpuFeatures(CpuFeatures&&) noexcept = default;
CpuFeatures& CpuFeatures::operator=(const CpuFeatures&) = default;
CpuFeatures& CpuFeatures::operator=(CpuFeatures&&) noexcept = default;
CpuFeatures::~CpuFeatures() = default;

bool CpuFeatures::x86_64_v2() const noexcept { return cpu_has(*this, Feature::X86_64_V2); }
bool CpuFeatures::usable_avx2() const noexcept { return usable(*this, Feature::AVX2); }
bool CpuFeatures::usable_x86_64_v3() const noexcept { return usable(*this, Feature::X86_64_V3); }
bool CpuFeatures::usable_avx512() const noexcept {
  return usable(*this, Feature::AVX512F) && usable(*this, Feature::AVX512BW) &&
         usable(*this, Feature::AVX512VL) && usable(*this, Feature::AVX512DQ);
}
bool CpuFeatures::usable_amx() const noexcept { return usable(*this, Feature::AMX_TILE); }

bool cpu_has(const CpuFeatures& c, Feature f) noexcept {
  switch (f) {
    case Feature::SSE3:
      return c.sse3;
    case Feature::SSSE3:
      return c.ssse3;
    case Feature::SSE4_1:
      return c.sse4_1;
    case Feature::SSE4_2:
      return c.sse4_2;
    case Feature::POPCNT:
      return c.popcnt;
    case Feature::CX16:
      return c.cx16;
    case Feature::LAHF_SAHF:
      return c.lahf_sahf;
    case Feature::X86_64_V2:
      return c.cx16 && c.lahf_sahf && c.popcnt && c.sse3 && c.sse4_1 && c.sse4_2 && c.ssse3;
    case Feature::AVX:
      return c.avx;
    case Feature::AVX2:
      return c.avx2;
    case Feature::FMA:
      return c.fma;
    case Feature::F16C:
      return c.f16c;
    case Feature::BMI1:
      return c.bmi1;
    case Feature::BMI2:
      return c.bmi2;
    case Feature::LZCNT:
      return c.lzcnt;
    case Feature::MOVBE:
      return c.movbe;
    case Feature::X86_64_V3:
      return cpu_has(c, Feature::X86_64_V2) && c.avx && c.avx2 && c.bmi1 && c.bmi2 && c.f16c &&
             c.fma && c.lzcnt && c.movbe && c.osxsave;
    case Feature::AVX512F:
      return c.avx512f;
    case Feature::AVX512BW:
      return c.avx512bw;
    case Feature::AVX512VL:
      return c.avx512vl;
    case Feature::AVX512DQ:
      return c.avx512dq;
    case Feature::AVX512CD:
      return c.avx512cd;
    case Feature::X86_64_V4:
      return cpu_has(c, Feature::X86_64_V3) && c.avx512f && c.avx512bw && c.avx512cd &&
             c.avx512dq && c.avx512vl;
    case Feature::AVX512VNNI:
      return c.avx512vnni;
    case Feature::AVX512BF16:
      return c.avx512bf16;
    case Feature::AVX512FP16:
      return c.avx512fp16;
    case Feature::AVX512VBMI:
      return c.avx512vbmi;
    case Feature::AVX_VNNI:
      return c.avx_vnni;
    case Feature::AMX_TILE:
      return c.amx_tile;
    case Feature::AMX_INT8:
      return c.amx_int8;
    case Feature::AMX_BF16:
      return c.amx_bf16;
    case Feature::NEON:
      return c.neon;
    case Feature::FP16:
      return c.fp16;
    case Feature::DOTPROD:
      return c.dotprod;
    case Feature::I8MM:
      return c.i8mm;
    case Feature::SVE:
      return c.sve;
    case Feature::SVE2:
      return c.sve2;
    case Feature::BF16:
      return c.bf16;
    case Feature::Count_:
      break;
  }
  return false;
}

bool usable(const CpuFeatures& c, Feature f) noexcept {
  if (!cpu_has(c, f)) return false;
  switch (f) {
    // VEX-encoded: need the OS to save YMM state.
    case Feature::AVX:
    case Feature::AVX2:
    case Feature::FMA:
    case Feature::F16C:
    case Feature::AVX_VNNI:
    case Feature::X86_64_V3:
      return c.os_avx;
    // EVEX-encoded: need opmask and full ZMM state too.
    case Feature::AVX512F:
    case Feature::AVX512BW:
    case Feature::AVX512VL:
    case Feature::AVX512DQ:
    case Feature::AVX512CD:
    case Feature::X86_64_V4:
    case Feature::AVX512VNNI:
    case Feature::AVX512BF16:
    case Feature::AVX512FP16:
    case Feature::AVX512VBMI:
      return c.os_avx512;
    // Tile instructions: tile state in XCR0 and the per-process permission. The INT8 and BF16
    // tile ops are useless without the tile registers themselves.
    case Feature::AMX_TILE:
      return c.os_amx;
    case Feature::AMX_INT8:
    case Feature::AMX_BF16:
      return c.amx_tile && c.os_amx;
    // SSE-family and general-purpose instructions need no OS opt-in on a 64-bit OS; aarch64
    // HWCAPs only report what the kernel enabled.
    default:
      return true;
  }
}

std::string isa_level(const CpuFeatures& c) {
  if (c.arch == "x86_64") {
    if (usable(c, Feature::X86_64_V4)) return "x86-64-v4";
    if (usable(c, Feature::X86_64_V3)) return "x86-64-v3";
    if (usable(c, Feature::X86_64_V2)) return "x86-64-v2";
    return "x86-64";
  }
  if (c.arch == "aarch64") {
    std::string s = "aarch64";
    for (Feature f : {Feature::FP16, Feature::DOTPROD, Feature::I8MM, Feature::BF16, Feature::SVE,
                      Feature::SVE2}) {
      if (!usable(c, f)) continue;
      s += '+';
      for (const char* p = name(f); *p; ++p)
        s += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
    }
    return s;
  }
  return c.arch;
}

CpuFeatures detect_cpu() {
  CpuFeatures c;
#if defined(__x86_64__)
  detect_x86(c);
#elif defined(__aarch64__)
  detect_aarch64(c);
#elif defined(__i386__)
  c.arch = "i386";
#elif defined(__riscv)
  c.arch = "riscv64";
#else
  c.arch = "unknown";
#endif
#if !defined(__x86_64__)
  c.amx_reason = "not x86-64";
#endif
  c.logical_cpus = online_cpus();
  c.affinity_cpus = affinity_cpus(c.logical_cpus);
  return c;
}

}  // namespace zen::hw
