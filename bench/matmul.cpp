// matmul microbenchmarks: GEMV (N = 1, decode) and GEMM (N = 512, prefill) at the Qwen3-0.6B
// shapes, per weight type, on 1 and 2 threads, reporting weight GB/s and GFLOP/s.
//
// The benchmark calls the CPU device's matmul KernelFn directly: the kernel sources
// (kernels_matmul.cpp, matmul/*.cpp) are compiled into this binary with the avx2 variant's
// flags (x86-64-v3, the variant the loader picks on this Zen 3), and a small persistent
// spinning pool runs the kernel on nth threads with a real barrier for sync_threads(). That
// isolates the kernel (what this code controls) from the scheduler and the device's pool, which
// land separately and add a fixed per-node cost measured elsewhere.
//
// GEMV weights: enough copies of the matrix to cover 128 MiB, used in turn, so every
// iteration streams its weights from DRAM rather than from the 32 MiB L3 (the lm_head shape is
// larger than L3 by itself). The read bandwidth benchmark (bandwidth.cpp) runs in the same
// binary, so the ratio is read off one run.
//
// The "kept" cases (GEMVkept, BDkept, GEMMkept) give every weight copy panels kept as the CPU
// device keeps a model weight's (matmul/packed_weights.h), packed before timing: the path a
// model's matmuls take; the others pack into the scratch in every call (a matrix that is not a
// weight).
#include <benchmark/benchmark.h>

#include <atomic>
#include <barrier>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "kernels.h"
#include "matmul/gemm.h"
#include "matmul/packed_weights.h"
#include <zen/quant_codec.hpp>

namespace ZEN_CPU_NS {

class Barrier {
 public:
  explicit Barrier(int n) : b_(n) {}
  void wait() { b_.arrive_and_wait(); }

 private:
  std::barrier<> b_;
};

void sync_threads(const KernelArgs& a) {
  if (a.barrier) a.barrier->wait();
}

}  // namespace ZEN_CPU_NS

namespace {

namespace cpu = ZEN_CPU_NS;

// nth - 1 spinning workers plus the caller: run(f) calls f(ith) on every thread and returns when
// all are done.
class SpinPool {
 public:
  explicit SpinPool(int nth) : nth_(nth) {
    for (int i = 1; i < nth; ++i) workers_.emplace_back([this, i] { loop(i); });
  }
  ~SpinPool() {
    stop_ = true;
    gen_.fetch_add(1, std::memory_order_release);
    for (auto& t : workers_) t.join();
  }
  void run(const std::function<void(int)>& f) {
    job_ = &f;
    pending_.store(nth_ - 1, std::memory_order_relaxed);
    gen_.fetch_add(1, std::memory_order_release);
    f(0);
    while (pending_.load(std::memory_order_acquire) != 0) {
    }
  }

 private:
  void loop(int ith) {
    uint64_t seen = 0;
    for (;;) {
      uint64_t g;
      while ((g = gen_.load(std::memory_order_acquire)) == seen) {
      }
      seen = g;
      if (stop_) return;
      (*job_)(ith);
      pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }
  int nth_;
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> gen_{0};
  std::atomic<int> pending_{0};
  const std::function<void(int)>* job_ = nullptr;
  std::atomic<bool> stop_{false};
};

struct Buffer {
  void* p;
  explicit Buffer(size_t n) : p(std::aligned_alloc(64, (n + 63) / 64 * 64)) {}
  ~Buffer() { std::free(p); }
  char* data() const { return static_cast<char*>(p); }
};

zen_tensor tensor(zen_type type, std::initializer_list<int64_t> ne) {
  zen_tensor t{};
  t.type = type;
  int i = 0;
  for (int64_t v : ne) t.ne[i++] = v;
  for (; i < ZEN_MAX_DIMS; ++i) t.ne[i] = 1;
  const int64_t bs = zen::quant::block_size(type);
  t.nb[0] = zen::quant::block_bytes(type);
  t.nb[1] = t.nb[0] * (t.ne[0] / bs);
  for (int d = 2; d < ZEN_MAX_DIMS; ++d) t.nb[d] = t.nb[d - 1] * t.ne[d - 1];
  return t;
}

// One weight matrix [K, M] of `type`: a quantized random slab replicated to fill the matrix.
void fill_weights(zen_type type, int64_t K, int64_t M, char* out) {
  const int64_t slab_rows = std::min<int64_t>(M, 64);
  std::vector<float> src(K * slab_rows);
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0.0f, 0.02f);
  for (auto& v : src) v = nd(rng);
  const uint64_t rb = zen::quant::row_bytes(type, K);
  std::vector<char> slab(rb * slab_rows);
  for (int64_t r = 0; r < slab_rows; ++r)
    zen::quant::quantize_row(type, &src[r * K], slab.data() + r * rb, K);
  for (int64_t r = 0; r < M; r += slab_rows)
    std::memcpy(out + r * rb, slab.data(), rb * std::min(slab_rows, M - r));
}

constexpr int64_t kMaxDecodeBatch = 64;  // "BD" cases: N decode rows of a serving step

void BM_Matmul(benchmark::State& state, zen_type type, int64_t K, int64_t M, int64_t N, bool hot,
               bool kept) {
  const int nth = static_cast<int>(state.range(0));
  const zen_tensor a = tensor(type, {K, M}), b = tensor(ZEN_TYPE_F32, {K, N});
  zen_tensor dst = tensor(ZEN_TYPE_F32, {M, N});
  dst.op = ZEN_OP_MATMUL;
  const uint64_t wbytes = a.nb[1] * M;
  // Copies covering 128 MiB for GEMV and batched decode so the weights come from DRAM, as in a
  // model's step; one copy for prefill GEMM (compute-bound).
  const int copies = N <= kMaxDecodeBatch && !hot
                         ? static_cast<int>(std::max<uint64_t>(1, (128u << 20) / wbytes))
                         : 1;
  Buffer w(wbytes * copies), x(b.nb[1] * N), y(dst.nb[1] * N);
  fill_weights(type, K, M, w.data());
  for (int c = 1; c < copies; ++c) std::memcpy(w.data() + c * wbytes, w.data(), wbytes);
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int64_t i = 0; i < K * N; ++i) reinterpret_cast<float*>(x.data())[i] = u(rng);

  const cpu::KernelEntry* entry = nullptr;
  for (const auto& e : cpu::matmul_kernels())
    if (e.op == ZEN_OP_MATMUL && e.src0 == type) entry = &e;
  if (!entry) {
    state.SkipWithError("no kernel for this type");
    return;
  }
  const zen_tensor* srcs[ZEN_MAX_SRC] = {&a, &b};
  const uint64_t ws = entry->work_size ? entry->work_size(dst, srcs, nth) : 0;
  Buffer work(ws + 64);
  cpu::Barrier barrier(nth);
  cpu::KernelArgs args{&dst, y.data(), {&a, &b}, {nullptr, x.data()}};
  args.work = work.data();
  args.work_size = ws;
  args.barrier = nth > 1 ? &barrier : nullptr;
  SpinPool pool(nth);
  int c = 0;
  std::function<void(int)> job = [&](int ith) { entry->fn(args, ith, nth); };
  cpu::mm::PackedWeights packed;
  std::vector<cpu::mm::PackedMatrix*> panels(static_cast<size_t>(copies), nullptr);
  if (kept)
    for (int i = 0; i < copies; ++i) {  // pack every copy before timing
      panels[i] = packed.find(a, w.data() + i * wbytes);
      args.s[0] = w.data() + i * wbytes;
      args.packed = panels[i];
      pool.run(job);
    }
  for (auto _ : state) {
    const int i = c++ % copies;
    args.s[0] = w.data() + i * wbytes;
    args.packed = panels[i];
    pool.run(job);
    benchmark::DoNotOptimize(y.data());
  }
  const double it = static_cast<double>(state.iterations());
  state.counters["GB/s"] =
      benchmark::Counter(it * static_cast<double>(wbytes) / 1e9, benchmark::Counter::kIsRate);
  state.counters["GFLOP/s"] =
      benchmark::Counter(it * 2.0 * K * M * N / 1e9, benchmark::Counter::kIsRate);
}

const char* type_label(zen_type t) {
  switch (t) {
    case ZEN_TYPE_F32:
      return "F32";
    case ZEN_TYPE_F16:
      return "F16";
    case ZEN_TYPE_BF16:
      return "BF16";
    case ZEN_TYPE_Q4_0:
      return "Q4_0";
    case ZEN_TYPE_Q4_1:
      return "Q4_1";
    case ZEN_TYPE_Q5_0:
      return "Q5_0";
    case ZEN_TYPE_Q5_1:
      return "Q5_1";
    case ZEN_TYPE_Q8_0:
      return "Q8_0";
    case ZEN_TYPE_Q2_K:
      return "Q2_K";
    case ZEN_TYPE_Q3_K:
      return "Q3_K";
    case ZEN_TYPE_Q4_K:
      return "Q4_K";
    case ZEN_TYPE_Q5_K:
      return "Q5_K";
    case ZEN_TYPE_Q6_K:
      return "Q6_K";
    case ZEN_TYPE_IQ4_NL:
      return "IQ4_NL";
    case ZEN_TYPE_IQ4_XS:
      return "IQ4_XS";
    case ZEN_TYPE_MXFP4:
      return "MXFP4";
    default:
      return "?";
  }
}

void register_all() {
  // every weight type the CPU matmul supports
  const zen_type types[] = {ZEN_TYPE_F32,  ZEN_TYPE_F16,    ZEN_TYPE_BF16,   ZEN_TYPE_Q4_0,
                            ZEN_TYPE_Q4_1, ZEN_TYPE_Q5_0,   ZEN_TYPE_Q5_1,   ZEN_TYPE_Q8_0,
                            ZEN_TYPE_Q2_K, ZEN_TYPE_Q3_K,   ZEN_TYPE_Q4_K,   ZEN_TYPE_Q5_K,
                            ZEN_TYPE_Q6_K, ZEN_TYPE_IQ4_NL, ZEN_TYPE_IQ4_XS, ZEN_TYPE_MXFP4};
  const int64_t shapes[][2] = {{1024, 3072}, {3072, 1024}, {1024, 151936}};
  // N = 2..64: a batched decode step (N sequences, one token each).
  for (int64_t N : {int64_t{1}, int64_t{512}, int64_t{0}, int64_t{2}, int64_t{4}, int64_t{8},
                    int64_t{16}, int64_t{32}, int64_t{64}})
    for (zen_type t : types)
      for (const auto& s : shapes) {
        // N = 0 stands for "GEMVhot": N = 1 with one copy of the weights, L3-resident for the
        // small shapes: the kernel's compute ceiling, without DRAM.
        const bool hot = N == 0;
        if (hot && s[1] > 100000) continue;
        const bool batch = N > 1 && N <= kMaxDecodeBatch;
        if (N > kMaxDecodeBatch && s[1] > 100000) continue;  // lm_head prefill: minutes per run
        const std::string tn = type_label(t);
        for (const bool kept : {false, true}) {
          if (kept && (hot || !cpu::mm::gemm_type(t))) continue;
          const std::string bm = std::string(hot      ? "GEMVhot"
                                             : N == 1 ? "GEMV"
                                             : batch  ? "BD"
                                                      : "GEMM") +
                                 (kept ? "kept" : "") + "/" + tn + "/K" + std::to_string(s[0]) +
                                 "xM" + std::to_string(s[1]) + "xN" + std::to_string(hot ? 1 : N);
          benchmark::RegisterBenchmark(bm.c_str(), BM_Matmul, t, s[0], s[1], hot ? 1 : N, hot, kept)
              ->DenseRange(1, 2)
              ->ArgName("threads")
              ->UseRealTime()
              ->Unit(N <= kMaxDecodeBatch ? benchmark::kMicrosecond : benchmark::kMillisecond);
        }
      }
}

// Registered before main; main is bandwidth.cpp's BENCHMARK_MAIN, so one run reports the
// read bandwidth next to the kernels.
[[maybe_unused]] const bool kRegistered = (register_all(), true);

}  // namespace
