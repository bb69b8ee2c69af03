// "gguf-blocks": the Quantizer plugin exposing the scalar reference codecs of the SDK (zen/quant_codec.hpp) as
// zen_quant_v1 tables, one zen_quant_type per GGUF block format it supports. The tables are
// constant data (no code runs at load time).
#include <zen/quant.h>
#include <zen/plugin.hpp>

#include <zen/quant_codec.hpp>

namespace {

using namespace zen::quant;

template <zen_type T>
void to_float(const void* src, float* dst, int64_t n) {
  dequantize_row(T, src, dst, n);
}

template <zen_type T>
uint64_t from_float(const float* src, void* dst, int64_t n, const float* importance) {
  return quantize_row(T, src, dst, n, importance);
}

template <zen_type T, uint32_t BlockSize, uint32_t BlockBytes, zen_type VecDot>
constexpr zen_quant_type make_type(const char* name) {
  return zen_quant_type{ZEN_HDR_INIT(zen_quant_type),
                        static_cast<uint32_t>(T),
                        name,
                        BlockSize,
                        BlockBytes,
                        static_cast<uint32_t>(VecDot),
                        &to_float<T>,
                        &from_float<T>};
}

// vec_dot_type: the activation format each type's integer dot product pairs with: Q8_0 for the
// 32-element symmetric formats, Q8_1 for the ones with a min (its s = d * sum(q) folds the min
// in), Q8_K for the 256-element super-block formats; F16/BF16 pair with themselves.
constexpr zen_quant_type kF16 = make_type<ZEN_TYPE_F16, 1, 2, ZEN_TYPE_F16>("F16");
constexpr zen_quant_type kBF16 = make_type<ZEN_TYPE_BF16, 1, 2, ZEN_TYPE_BF16>("BF16");
constexpr zen_quant_type kQ4_0 =
    make_type<ZEN_TYPE_Q4_0, QK4_0, sizeof(block_q4_0), ZEN_TYPE_Q8_0>("Q4_0");
constexpr zen_quant_type kQ4_1 =
    make_type<ZEN_TYPE_Q4_1, QK4_1, sizeof(block_q4_1), ZEN_TYPE_Q8_1>("Q4_1");
constexpr zen_quant_type kQ5_0 =
    make_type<ZEN_TYPE_Q5_0, QK5_0, sizeof(block_q5_0), ZEN_TYPE_Q8_0>("Q5_0");
constexpr zen_quant_type kQ5_1 =
    make_type<ZEN_TYPE_Q5_1, QK5_1, sizeof(block_q5_1), ZEN_TYPE_Q8_1>("Q5_1");
constexpr zen_quant_type kQ8_0 =
    make_type<ZEN_TYPE_Q8_0, QK8_0, sizeof(block_q8_0), ZEN_TYPE_Q8_0>("Q8_0");
constexpr zen_quant_type kQ8_1 =
    make_type<ZEN_TYPE_Q8_1, QK8_1, sizeof(block_q8_1), ZEN_TYPE_Q8_1>("Q8_1");
constexpr zen_quant_type kQ2_K =
    make_type<ZEN_TYPE_Q2_K, QK_K, sizeof(block_q2_K), ZEN_TYPE_Q8_K>("Q2_K");
constexpr zen_quant_type kQ3_K =
    make_type<ZEN_TYPE_Q3_K, QK_K, sizeof(block_q3_K), ZEN_TYPE_Q8_K>("Q3_K");
constexpr zen_quant_type kQ4_K =
    make_type<ZEN_TYPE_Q4_K, QK_K, sizeof(block_q4_K), ZEN_TYPE_Q8_K>("Q4_K");
constexpr zen_quant_type kQ5_K =
    make_type<ZEN_TYPE_Q5_K, QK_K, sizeof(block_q5_K), ZEN_TYPE_Q8_K>("Q5_K");
constexpr zen_quant_type kQ6_K =
    make_type<ZEN_TYPE_Q6_K, QK_K, sizeof(block_q6_K), ZEN_TYPE_Q8_K>("Q6_K");
constexpr zen_quant_type kQ8_K =
    make_type<ZEN_TYPE_Q8_K, QK_K, sizeof(block_q8_K), ZEN_TYPE_Q8_K>("Q8_K");
constexpr zen_quant_type kIQ4_NL =
    make_type<ZEN_TYPE_IQ4_NL, QK4_NL, sizeof(block_iq4_nl), ZEN_TYPE_Q8_0>("IQ4_NL");
constexpr zen_quant_type kIQ4_XS =
    make_type<ZEN_TYPE_IQ4_XS, QK_K, sizeof(block_iq4_xs), ZEN_TYPE_Q8_K>("IQ4_XS");
constexpr zen_quant_type kMXFP4 =
    make_type<ZEN_TYPE_MXFP4, QK_MXFP4, sizeof(block_mxfp4), ZEN_TYPE_Q8_0>("MXFP4");

constexpr const zen_quant_type* kTypes[] = {&kF16,  &kBF16, &kQ4_0,   &kQ4_1,   &kQ5_0, &kQ5_1,
                                            &kQ8_0, &kQ8_1, &kQ2_K,   &kQ3_K,   &kQ4_K, &kQ5_K,
                                            &kQ6_K, &kQ8_K, &kIQ4_NL, &kIQ4_XS, &kMXFP4};

constexpr zen_quant_v1 kTable = {ZEN_HDR_INIT(zen_quant_v1),
                                 static_cast<uint32_t>(sizeof(kTypes) / sizeof(kTypes[0])), kTypes};

}  // namespace

ZEN_DEFINE_PLUGIN(ZEN_KIND_QUANT, "gguf-blocks", "0.1.0", nullptr, &kTable,
                  (zen::write_reason(reason, reason_len, "portable scalar codecs"), 1u), (void)0)
