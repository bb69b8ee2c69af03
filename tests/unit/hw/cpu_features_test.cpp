// zen_hw_cpu against the kernel's view of this CPU (/proc/cpuinfo), plus the "usable" verdicts
// proven by executing the instructions in a forked child.
#include <zen/cpu_features.hpp>

#include <gtest/gtest.h>

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

namespace zen::hw {
namespace {

using test::cpuinfo_field;
using test::cpuinfo_flags;
using test::run_in_child;

std::vector<Feature> all_features() {
  std::vector<Feature> v;
  for (int i = 0; i < kFeatureCount; ++i) v.push_back(static_cast<Feature>(i));
  return v;
}

// ---------------------------------------------------------------------------------------------
// Names

TEST(CpuFeatureNames, RoundTripForEveryFeature) {
  for (Feature f : all_features()) {
    const std::string n = name(f);
    ASSERT_FALSE(n.empty());
    ASSERT_NE(n, "UNKNOWN");
    const auto back = feature_by_name(n);
    ASSERT_TRUE(back.has_value()) << n;
    EXPECT_EQ(*back, f) << n;
    const std::string arch = feature_arch(f);
    EXPECT_TRUE(arch == "x86_64" || arch == "aarch64") << n;
  }
}

TEST(CpuFeatureNames, NamesAreDistinct) {
  for (Feature a : all_features())
    for (Feature b : all_features())
      if (a != b) {
        EXPECT_STRNE(name(a), name(b));
      }
}

TEST(CpuFeatureNames, NamesTheCpuPluginUses) {
  EXPECT_EQ(feature_by_name("AVX2"), Feature::AVX2);
  EXPECT_EQ(feature_by_name("AVX512F"), Feature::AVX512F);
  EXPECT_EQ(feature_by_name("AVX512VNNI"), Feature::AVX512VNNI);
  EXPECT_EQ(feature_by_name("AMX_TILE"), Feature::AMX_TILE);
  EXPECT_EQ(feature_by_name("DOTPROD"), Feature::DOTPROD);
  EXPECT_EQ(feature_by_name("F16C"), Feature::F16C);
  EXPECT_EQ(feature_by_name("FMA"), Feature::FMA);
  EXPECT_EQ(feature_by_name("BMI2"), Feature::BMI2);
  EXPECT_EQ(feature_by_name("X86_64_V2"), Feature::X86_64_V2);
}

TEST(CpuFeatureNames, CaseAndSeparatorInsensitiveAndAliases) {
  EXPECT_EQ(feature_by_name("avx512_vnni"), Feature::AVX512VNNI);  // /proc/cpuinfo spelling
  EXPECT_EQ(feature_by_name("AVX-512-VNNI"), Feature::AVX512VNNI);
  EXPECT_EQ(feature_by_name("amx_tile"), Feature::AMX_TILE);
  EXPECT_EQ(feature_by_name("x86-64-v3"), Feature::X86_64_V3);
  EXPECT_EQ(feature_by_name("sse4.2"), Feature::SSE4_2);
  EXPECT_EQ(feature_by_name("asimd"), Feature::NEON);
  EXPECT_EQ(feature_by_name("asimddp"), Feature::DOTPROD);
  EXPECT_EQ(feature_by_name("pni"), Feature::SSE3);
  EXPECT_EQ(feature_by_name("abm"), Feature::LZCNT);
}

TEST(CpuFeatureNames, UnknownNamesAreNullopt) {
  EXPECT_EQ(feature_by_name(""), std::nullopt);
  EXPECT_EQ(feature_by_name("AVX3"), std::nullopt);
  EXPECT_EQ(feature_by_name("AVX512"), std::nullopt);  // a family, not a feature
  EXPECT_EQ(feature_by_name("SSE4"), std::nullopt);
  EXPECT_EQ(feature_by_name("AVX2 "), Feature::AVX2);  // separators are ignored ...
  EXPECT_EQ(feature_by_name("AVX2!"), std::nullopt);   // ... other punctuation is not
  EXPECT_EQ(feature_by_name(std::string(200, 'A')), std::nullopt);
  EXPECT_EQ(feature_by_name(std::string_view("AVX2\0", 5)), std::nullopt);
  EXPECT_STREQ(name(static_cast<Feature>(kFeatureCount)), "UNKNOWN");
}

// ---------------------------------------------------------------------------------------------
// Detection vs /proc/cpuinfo

TEST(DetectCpu, IdentityAndCounts) {
  const CpuFeatures c = detect_cpu();
#if defined(__x86_64__)
  EXPECT_EQ(c.arch, "x86_64");
#elif defined(__aarch64__)
  EXPECT_EQ(c.arch, "aarch64");
#endif
  EXPECT_EQ(c.logical_cpus, static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN)));
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_EQ(c.affinity_cpus, static_cast<unsigned>(CPU_COUNT(&set)));
  EXPECT_LE(c.affinity_cpus, c.logical_cpus);

#if defined(__x86_64__)
  const auto vendor = cpuinfo_field("vendor_id");
  if (!vendor) GTEST_SKIP() << "/proc/cpuinfo unreadable: identity not compared";
  EXPECT_EQ(c.vendor, *vendor);
  EXPECT_EQ(std::to_string(c.family), cpuinfo_field("cpu family").value_or("?"));
  EXPECT_EQ(std::to_string(c.model), cpuinfo_field("model").value_or("?"));
  EXPECT_EQ(std::to_string(c.stepping), cpuinfo_field("stepping").value_or("?"));
  EXPECT_EQ(c.brand, cpuinfo_field("model name").value_or("?"));
#endif
}

#if defined(__x86_64__)

struct FlagMap {
  Feature f;
  const char* flag;  // Linux /proc/cpuinfo spelling
};

// Features whose cpuinfo flag is the raw cpuid bit (no OS state involved).
constexpr FlagMap kPlainFlags[] = {
    {Feature::SSE3, "pni"},          {Feature::SSSE3, "ssse3"},   {Feature::SSE4_1, "sse4_1"},
    {Feature::SSE4_2, "sse4_2"},     {Feature::POPCNT, "popcnt"}, {Feature::CX16, "cx16"},
    {Feature::LAHF_SAHF, "lahf_lm"}, {Feature::BMI1, "bmi1"},     {Feature::BMI2, "bmi2"},
    {Feature::LZCNT, "abm"},         {Feature::MOVBE, "movbe"},
};

// Features the kernel hides when it does not enable their register state: the flag appears
// exactly when the CPU has it AND the OS enabled the state.
constexpr FlagMap kOsStateFlags[] = {
    {Feature::AVX, "avx"},
    {Feature::AVX2, "avx2"},
    {Feature::FMA, "fma"},
    {Feature::F16C, "f16c"},
    {Feature::AVX_VNNI, "avx_vnni"},
    {Feature::AVX512F, "avx512f"},
    {Feature::AVX512BW, "avx512bw"},
    {Feature::AVX512VL, "avx512vl"},
    {Feature::AVX512DQ, "avx512dq"},
    {Feature::AVX512CD, "avx512cd"},
    {Feature::AVX512VNNI, "avx512_vnni"},
    {Feature::AVX512BF16, "avx512_bf16"},
    {Feature::AVX512FP16, "avx512_fp16"},
    {Feature::AVX512VBMI, "avx512vbmi"},
};

TEST(DetectCpu, AgreesWithProcCpuinfoFlags) {
  const auto flags = cpuinfo_flags();
  if (!flags) GTEST_SKIP() << "/proc/cpuinfo has no flags line: nothing to compare against";
  const CpuFeatures c = detect_cpu();
  auto has = [&](const char* f) { return flags->count(f) != 0; };
  for (const auto& m : kPlainFlags)
    EXPECT_EQ(cpu_has(c, m.f), has(m.flag)) << name(m.f) << " vs cpuinfo '" << m.flag << "'";
  for (const auto& m : kOsStateFlags) {
    EXPECT_EQ(usable(c, m.f), has(m.flag)) << name(m.f) << " vs cpuinfo '" << m.flag << "'";
    if (has(m.flag)) {
      EXPECT_TRUE(cpu_has(c, m.f)) << name(m.f);
    }
  }
  // AMX: the kernel lists the flag when it manages tile state; we additionally need the
  // per-process permission. So: flag => cpuid, usable => flag.
  for (const auto& m :
       {FlagMap{Feature::AMX_TILE, "amx_tile"}, FlagMap{Feature::AMX_INT8, "amx_int8"},
        FlagMap{Feature::AMX_BF16, "amx_bf16"}}) {
    if (has(m.flag)) {
      EXPECT_TRUE(cpu_has(c, m.f)) << name(m.f);
    }
    if (usable(c, m.f)) {
      EXPECT_TRUE(has(m.flag)) << name(m.f);
    }
  }
  // x86-64-v2 is exactly its seven parts; on this workplace's machines it is present.
  const bool v2 = has("cx16") && has("lahf_lm") && has("popcnt") && has("pni") && has("sse4_1") &&
                  has("sse4_2") && has("ssse3");
  EXPECT_EQ(c.x86_64_v2(), v2);
  EXPECT_EQ(usable(c, Feature::X86_64_V2), v2);
  // The kernel enables XSAVE (and so OSXSAVE) whenever the CPU has it.
  if (has("xsave")) {
    EXPECT_TRUE(c.xsave);
    EXPECT_TRUE(c.osxsave);
  }
  // Full usable-feature agreement report, to read by eye in the test log.
  std::string mine;
  for (int i = 0; i < kFeatureCount; ++i)
    if (usable(c, static_cast<Feature>(i)))
      mine += std::string(" ") + name(static_cast<Feature>(i));
  std::printf("[ info     ] usable:%s\n[ info     ] amx: %s\n", mine.c_str(), c.amx_reason.c_str());
}

TEST(DetectCpu, OsStateIsConsistent) {
  const CpuFeatures c = detect_cpu();
  if (!c.osxsave) {
    EXPECT_EQ(c.xcr0, 0u);
    EXPECT_FALSE(c.os_avx);
  } else {
    EXPECT_EQ(c.xcr0 & 1u, 1u) << "XCR0 bit 0 (x87) is architecturally always set";
    EXPECT_EQ(c.os_avx, (c.xcr0 & 6u) == 6u);
    EXPECT_EQ(c.os_avx512, c.os_avx && (c.xcr0 & 0xE0u) == 0xE0u);
  }
  if (c.os_avx512) {
    EXPECT_TRUE(c.os_avx);
  }
  const auto flags = cpuinfo_flags();
  if (c.os_avx && c.avx && flags) {
    EXPECT_TRUE(flags->count("avx")) << "os_avx and cpuid AVX, but the kernel hides avx";
  }

  EXPECT_EQ(c.usable_avx2(), c.avx2 && c.os_avx);
  if (usable(c, Feature::AVX2)) {
    EXPECT_TRUE(c.avx2);
    EXPECT_TRUE(c.os_avx);
  }
  EXPECT_EQ(c.usable_avx512(), c.avx512f && c.avx512bw && c.avx512vl && c.avx512dq && c.os_avx512);
  EXPECT_EQ(c.usable_amx(), c.amx_tile && c.os_amx);
  // usable => cpu_has, for every feature.
  for (Feature f : all_features())
    if (usable(c, f)) {
      EXPECT_TRUE(cpu_has(c, f)) << name(f);
    }
  // Composite levels nest.
  if (usable(c, Feature::X86_64_V4)) {
    EXPECT_TRUE(usable(c, Feature::X86_64_V3));
  }
  if (usable(c, Feature::X86_64_V3)) {
    EXPECT_TRUE(usable(c, Feature::X86_64_V2));
  }
  // No aarch64 feature on x86.
  for (Feature f : all_features())
    if (std::string(feature_arch(f)) == "aarch64") {
      EXPECT_FALSE(cpu_has(c, f)) << name(f);
    }
}

TEST(DetectCpu, AmxVerdictExplainsItself) {
  const CpuFeatures c = detect_cpu();
  ASSERT_FALSE(c.amx_reason.empty());
  if (!c.amx_tile) {
    EXPECT_EQ(c.amx_reason, "cpuid: no AMX");
    EXPECT_FALSE(usable(c, Feature::AMX_TILE));
    EXPECT_FALSE(usable(c, Feature::AMX_INT8));
    EXPECT_FALSE(usable(c, Feature::AMX_BF16));
  } else if (!c.os_amx) {
    // This workplace's Intel VMs: cpuid advertises AMX, the OS refuses tile data.
    EXPECT_FALSE(usable(c, Feature::AMX_TILE));
    EXPECT_FALSE(c.usable_amx());
    EXPECT_NE(c.amx_reason, "usable");
    EXPECT_TRUE(c.amx_reason.find("XCR0") != std::string::npos ||
                c.amx_reason.find("arch_prctl") != std::string::npos ||
                c.amx_reason.find("XSAVE") != std::string::npos)
        << c.amx_reason;
  } else {
    EXPECT_EQ(c.amx_reason, "usable");
    EXPECT_TRUE(usable(c, Feature::AMX_TILE));
  }
}

// The verdicts are only worth something if executing the instructions agrees. Each check runs
// in a forked child: a SIGILL there is a failed expectation, not a crashed test binary.
__attribute__((target("avx2"))) int run_avx2() {
  int out = 0;
  __asm__ volatile(
      "vpcmpeqd %%ymm0, %%ymm0, %%ymm0\n\t"
      "vpaddd %%ymm0, %%ymm0, %%ymm1\n\t"
      "vmovd %%xmm1, %0\n\t"
      "vzeroupper"
      : "=r"(out)
      :
      : "xmm0", "xmm1");
  return out == -2 ? 0 : 1;
}

__attribute__((target("avx512f"))) int run_avx512f() {
  int out = 0;
  __asm__ volatile(
      "vpternlogd $0xff, %%zmm0, %%zmm0, %%zmm0\n\t"
      "vpaddd %%zmm0, %%zmm0, %%zmm1\n\t"
      "vmovd %%xmm1, %0\n\t"
      "vzeroupper"
      : "=r"(out)
      :
      : "xmm0", "xmm1");
  return out == -2 ? 0 : 1;
}

int run_amx_tile() {
  // Palette 1, tmm0 = 1 row x 4 bytes; zero it, then release the tile state.
  alignas(64) unsigned char cfg[64] = {};
  cfg[0] = 1;
  cfg[16] = 4;  // colsb[0] (bytes per row)
  cfg[48] = 1;  // rows[0]
  __asm__ volatile(
      ".byte 0xc4, 0xe2, 0x78, 0x49, 0x00\n\t"  // ldtilecfg (%rax)
      ".byte 0xc4, 0xe2, 0x7b, 0x49, 0xc0\n\t"  // tilezero %tmm0
      ".byte 0xc4, 0xe2, 0x78, 0x49, 0xc0"      // tilerelease
      :
      : "a"(cfg)
      : "memory");
  return 0;
}

void expect_runs(int status, const char* what) {
  ASSERT_NE(status, -1) << "fork/waitpid failed";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << what << " judged usable but the child "
      << (WIFSIGNALED(status) ? std::string("died of signal ") + strsignal(WTERMSIG(status))
                              : "exited " + std::to_string(WEXITSTATUS(status)));
}

TEST(UsableMeansExecutable, Avx2) {
  const CpuFeatures c = detect_cpu();
  if (!usable(c, Feature::AVX2))
    GTEST_SKIP() << "AVX2 not usable on this machine: nothing to execute";
  expect_runs(run_in_child(run_avx2), "AVX2");
}

TEST(UsableMeansExecutable, Avx512) {
  const CpuFeatures c = detect_cpu();
  if (!usable(c, Feature::AVX512F))
    GTEST_SKIP() << "AVX-512F not usable on this machine (cpuid " << (c.avx512f ? "yes" : "no")
                 << ", os " << (c.os_avx512 ? "yes" : "no") << ")";
  expect_runs(run_in_child(run_avx512f), "AVX-512F");
}

TEST(UsableMeansExecutable, AmxTile) {
  const CpuFeatures c = detect_cpu();
  if (!c.amx_tile) GTEST_SKIP() << "cpuid reports no AMX on this machine: " << c.amx_reason;
  if (usable(c, Feature::AMX_TILE)) {
    // detect_cpu() already requested the permission in this process; the child inherits it.
    expect_runs(run_in_child(run_amx_tile), "AMX_TILE");
  } else {
    // The workplace's Intel VMs: cpuid says AMX, we say unusable. A tile instruction must
    // indeed fault there, proving the verdict was needed.
    const int status = run_in_child(run_amx_tile);
    EXPECT_TRUE(WIFSIGNALED(status))
        << "AMX judged unusable (" << c.amx_reason << ") but a tile instruction ran fine";
  }
}

#endif  // __x86_64__

#if defined(__aarch64__)
TEST(DetectCpu, AgreesWithProcCpuinfoFeatures) {
  const auto flags = cpuinfo_flags();
  if (!flags) GTEST_SKIP() << "/proc/cpuinfo has no Features line: nothing to compare against";
  const CpuFeatures c = detect_cpu();
  auto has = [&](const char* f) { return flags->count(f) != 0; };
  EXPECT_EQ(c.neon, has("asimd"));
  EXPECT_EQ(c.fp16, has("fphp") && has("asimdhp"));
  EXPECT_EQ(c.dotprod, has("asimddp"));
  EXPECT_EQ(c.i8mm, has("i8mm"));
  EXPECT_EQ(c.sve, has("sve"));
  EXPECT_EQ(c.sve2, has("sve2"));
  EXPECT_EQ(c.bf16, has("bf16"));
  for (Feature f : all_features())
    if (std::string(feature_arch(f)) == "x86_64") {
      EXPECT_FALSE(usable(c, f)) << name(f);
    }
}
#endif

// ---------------------------------------------------------------------------------------------
// Repeatability and thread safety (the AMX permission request is made once).

bool same(const CpuFeatures& a, const CpuFeatures& b) {
  for (Feature f : all_features())
    if (cpu_has(a, f) != cpu_has(b, f) || usable(a, f) != usable(b, f)) return false;
  return a.arch == b.arch && a.vendor == b.vendor && a.brand == b.brand && a.family == b.family &&
         a.model == b.model && a.stepping == b.stepping && a.xcr0 == b.xcr0 &&
         a.os_amx == b.os_amx && a.amx_reason == b.amx_reason;
}

TEST(DetectCpu, RepeatableAcrossCallsAndThreads) {
  const CpuFeatures first = detect_cpu();
  EXPECT_TRUE(same(first, detect_cpu()));
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i)
        if (!same(first, detect_cpu())) ++mismatches;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(DetectCpu, IsaLevelMatchesUsableFeatures) {
  const CpuFeatures c = detect_cpu();
  const std::string level = isa_level(c);
#if defined(__x86_64__)
  if (usable(c, Feature::X86_64_V4)) {
    EXPECT_EQ(level, "x86-64-v4");
  } else if (usable(c, Feature::X86_64_V3)) {
    EXPECT_EQ(level, "x86-64-v3");
  } else if (usable(c, Feature::X86_64_V2)) {
    EXPECT_EQ(level, "x86-64-v2");
  } else
    EXPECT_EQ(level, "x86-64");
#elif defined(__aarch64__)
  EXPECT_EQ(level.rfind("aarch64", 0), 0u);
  EXPECT_EQ(level.find("+dotprod") != std::string::npos, c.dotprod);
#endif
}

}  // namespace
}  // namespace zen::hw
