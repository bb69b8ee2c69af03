// Reference matmul: dst [M, N, B2, B3] = a [K, M, A2, A3] x b [K, N, B2, B3], a broadcast over
// the batch dims. Each output is one dot product accumulated in double (products of floats are
// exact in double), so the result is the correctly rounded float of a near-exact sum.
#include "kernels.h"
#include "tensor_access.h"

namespace ZEN_CPU_NS {
namespace {

template <class A>
void matmul(const KernelArgs& ar, int ith, int nth) {
  const zen_tensor &dst = *ar.dst, &a = *ar.src[0], &b = *ar.src[1];
  const int64_t K = a.ne[0], M = dst.ne[0];
  const int64_t r2 = b.ne[2] / a.ne[2], r3 = b.ne[3] / a.ne[3];
  // Work items are single outputs so a decode step (N = 1) still splits across threads.
  const Range r = share(M * rows(dst), ith, nth);
  for (int64_t u = r.begin; u < r.end; ++u) {
    const int64_t m = u % M;
    const RowIndex i = row_index(dst, u / M);  // (n, b2, b3)
    const char* arow = at(ar.s[0], a, 0, m, i.i2 / r2, i.i3 / r3);
    const char* bcol = at(ar.s[1], b, 0, i.i1, i.i2, i.i3);
    double acc = 0.0;
    for (int64_t k = 0; k < K; ++k)
      acc += static_cast<double>(load<A>(arow + k * static_cast<int64_t>(a.nb[0]))) *
             static_cast<double>(load<float>(bcol + k * static_cast<int64_t>(b.nb[0])));
    store<float>(at(ar.d, dst, m, i.i1, i.i2, i.i3), static_cast<float>(acc));
  }
}

constexpr KernelEntry kKernels[] = {
    {ZEN_OP_MATMUL, ZEN_TYPE_F32, ZEN_TYPE_F32, ZEN_TYPE_F32, matmul<float>},
    {ZEN_OP_MATMUL, ZEN_TYPE_F32, ZEN_TYPE_F16, ZEN_TYPE_F32, matmul<f16_t>},
    {ZEN_OP_MATMUL, ZEN_TYPE_F32, ZEN_TYPE_BF16, ZEN_TYPE_F32, matmul<bf16_t>},
};

}  // namespace

std::span<const KernelEntry> matmul_kernels() { return kKernels; }

}  // namespace ZEN_CPU_NS
