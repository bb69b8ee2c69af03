// The "gguf-blocks" Quantizer plugin loaded through the real host loader: its table lists every
// supported type with the right sizes, and each type round-trips through the table's function
// pointers to the same bytes and floats as the reference codecs linked into this test.
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <zen/quant.h>

#include "config.h"
#include "host_api.h"
#include "plugin_registry.h"
#include <zen/quant_codec.hpp>

using namespace zen::host;

namespace {

struct Loaded {
  Config config;
  std::unique_ptr<PluginRegistry> registry;
  Loaded() {
    config.plugin_paths = {ZEN_BUILD_PLUGIN_DIR};
    registry = std::make_unique<PluginRegistry>(config, host_api(config));
  }
  const zen_quant_v1* table() const {
    const PluginRecord* r = registry->find(ZEN_KIND_QUANT, "gguf-blocks");
    return r ? static_cast<const zen_quant_v1*>(r->vtable) : nullptr;
  }
};

TEST(QuantPlugin, LoadsThroughHostAndListsTypes) {
  Loaded l;
  const zen_quant_v1* t = l.table();
  ASSERT_NE(t, nullptr) << "gguf-blocks not loaded from " << ZEN_BUILD_PLUGIN_DIR;
  // Every block format with a reference codec, plus F16/BF16.
  const zen_type want[] = {
      ZEN_TYPE_F16,  ZEN_TYPE_BF16, ZEN_TYPE_Q4_0,   ZEN_TYPE_Q4_1,   ZEN_TYPE_Q5_0, ZEN_TYPE_Q5_1,
      ZEN_TYPE_Q8_0, ZEN_TYPE_Q8_1, ZEN_TYPE_Q2_K,   ZEN_TYPE_Q3_K,   ZEN_TYPE_Q4_K, ZEN_TYPE_Q5_K,
      ZEN_TYPE_Q6_K, ZEN_TYPE_Q8_K, ZEN_TYPE_IQ4_NL, ZEN_TYPE_IQ4_XS, ZEN_TYPE_MXFP4};
  ASSERT_EQ(t->n_types, std::size(want));
  for (uint32_t i = 0; i < t->n_types; ++i) {
    const zen_quant_type* q = t->types[i];
    ASSERT_NE(q, nullptr);
    EXPECT_EQ(q->type, uint32_t(want[i]));
    EXPECT_GE(q->h.struct_size, sizeof(zen_quant_type));
    EXPECT_EQ(q->block_size, uint64_t(zen::quant::block_size(want[i]))) << q->name;
    EXPECT_EQ(q->block_bytes, zen::quant::block_bytes(want[i])) << q->name;
    // The activation side of each dot product is an 8-bit (or the same float) format.
    const uint32_t vd = q->vec_dot_type;
    if (want[i] == ZEN_TYPE_F16 || want[i] == ZEN_TYPE_BF16)
      EXPECT_EQ(vd, uint32_t(want[i])) << q->name;
    else if (q->block_size == 256)
      EXPECT_EQ(vd, uint32_t(ZEN_TYPE_Q8_K)) << q->name;
    else
      EXPECT_TRUE(vd == ZEN_TYPE_Q8_0 || vd == ZEN_TYPE_Q8_1) << q->name;
    ASSERT_NE(q->to_float, nullptr);
    ASSERT_NE(q->from_float, nullptr);
  }
}

TEST(QuantPlugin, EveryTypeRoundTripsThroughTableFunctions) {
  Loaded l;
  const zen_quant_v1* t = l.table();
  ASSERT_NE(t, nullptr);
  const int64_t n = 2 * 256;
  std::mt19937 rng(5);
  std::normal_distribution<float> dist;
  std::vector<float> x(n);
  for (auto& v : x) v = dist(rng);
  for (uint32_t i = 0; i < t->n_types; ++i) {
    const zen_quant_type* q = t->types[i];
    const auto type = static_cast<zen_type>(q->type);
    const size_t bytes = size_t(n / q->block_size) * q->block_bytes;
    std::vector<uint8_t> a(bytes, 0xAB), b(bytes, 0xCD);
    ASSERT_EQ(q->from_float(x.data(), a.data(), n, nullptr), bytes) << q->name;
    ASSERT_EQ(zen::quant::quantize_row(type, x.data(), b.data(), n), bytes);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), bytes), 0) << q->name;
    std::vector<float> ya(n), yb(n);
    q->to_float(a.data(), ya.data(), n);
    zen::quant::dequantize_row(type, a.data(), yb.data(), n);
    double err = 0;
    for (int64_t j = 0; j < n; ++j) {
      ASSERT_EQ(std::memcmp(&ya[j], &yb[j], 4), 0) << q->name << " " << j;
      err += (double(ya[j]) - x[j]) * (double(ya[j]) - x[j]);
    }
    // Loose sanity bound (the per-type bounds live in codec_test): every format keeps the
    // RMS error of N(0, 1) data below 0.4 (Q2_K, the coarsest, measures ~0.31).
    EXPECT_LT(std::sqrt(err / double(n)), 0.4) << q->name;
    // Importance weights are accepted by every type.
    std::vector<float> w(n, 1.f);
    EXPECT_EQ(q->from_float(x.data(), a.data(), n, w.data()), bytes) << q->name;
  }
}

}  // namespace
