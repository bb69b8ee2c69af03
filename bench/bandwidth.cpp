// Memory read bandwidth with 1..N threads over a buffer far larger than the last-level cache:
// the ceiling every decode-step (GEMV) figure is compared against, measured in the same run.
#include <benchmark/benchmark.h>

#include <immintrin.h>

#include <barrier>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

constexpr size_t kBytes = size_t{1} << 30;  // 1 GiB: 32x a 32 MiB L3

// Sum 64-byte lines with the widest loads the build allows; the sum defeats dead-code removal.
uint64_t read_range(const uint8_t* p, size_t n) {
#if defined(__AVX2__)
  __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
  for (size_t i = 0; i + 64 <= n; i += 64) {
    acc0 = _mm256_xor_si256(acc0, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i)));
    acc1 = _mm256_xor_si256(acc1, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 32)));
  }
  acc0 = _mm256_xor_si256(acc0, acc1);
  uint64_t out[4];
  std::memcpy(out, &acc0, sizeof out);
  return out[0] ^ out[1] ^ out[2] ^ out[3];
#else
  uint64_t acc = 0;
  for (size_t i = 0; i + 8 <= n; i += 8) {
    uint64_t v;
    std::memcpy(&v, p + i, 8);
    acc ^= v;
  }
  return acc;
#endif
}

void BM_ReadBandwidth(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  auto* buf = static_cast<uint8_t*>(std::aligned_alloc(64, kBytes));
  std::memset(buf, 1, kBytes);  // fault every page in before timing
  const size_t chunk = kBytes / threads / 64 * 64;
  std::vector<uint64_t> sink(threads);
  for (auto _ : state) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] { sink[t] = read_range(buf + t * chunk, chunk); });
    for (auto& th : pool) th.join();
    benchmark::DoNotOptimize(sink.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * chunk * threads);
  std::free(buf);
}

}  // namespace

BENCHMARK(BM_ReadBandwidth)->DenseRange(1, 2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
