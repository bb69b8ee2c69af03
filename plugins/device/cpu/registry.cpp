#include "kernels.h"

namespace ZEN_CPU_NS {
namespace {

uint32_t src_type(const zen_graph& g, const zen_tensor& t, int i) {
  return t.src[i] >= 0 && static_cast<uint32_t>(t.src[i]) < g.n_tensors
             ? zen_graph_tensor(&g, t.src[i])->type
             : kNoSrc;
}

bool matches(uint32_t want, uint32_t have) { return want == kAnyType || want == have; }

}  // namespace

const KernelEntry* find_kernel(const zen_graph& g, int32_t node) {
  if (node < 0 || static_cast<uint32_t>(node) >= g.n_tensors) return nullptr;
  const zen_tensor& t = *zen_graph_tensor(&g, node);
  const uint32_t s0 = src_type(g, t, 0), s1 = src_type(g, t, 1);
  for (auto family :
       {copy_kernels, matmul_kernels, binary_kernels, unary_kernels, norm_kernels, rope_kernels,
        activation_kernels, conv_kernels, sort_kernels, attention_kernels, dequant_kernels})
    for (const KernelEntry& e : family())
      if (e.op == t.op && matches(e.dst, t.type) && matches(e.src0, s0) && matches(e.src1, s1))
        return &e;
  return nullptr;
}

}  // namespace ZEN_CPU_NS
