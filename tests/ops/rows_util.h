// Shared by the row-op tests (norm, softmax, rope, activation, unary): inputs laid out packed,
// transposed (ne0 strided: a permuted view) or padded (rows longer than ne0: a sliced view), so
// every kernel's strided path and its packed fast path are both exercised.
#pragma once

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "graph/tensor.h"
#include "op_harness.h"

namespace zen::ops {

enum class Layout { packed, transposed, padded };

inline const char* layout_name(Layout l) {
  return l == Layout::packed ? "packed" : l == Layout::transposed ? "transposed" : "padded";
}

using Shape = std::array<int64_t, 4>;

inline int64_t count(const Shape& ne) { return ne[0] * ne[1] * ne[2] * ne[3]; }

// Index of (i0, i1, i2, i3) in a packed tensor of shape ne.
inline int64_t idx(const Shape& ne, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  return ((i3 * ne[2] + i2) * ne[1] + i1) * ne[0] + i0;
}

// Adds F32 input `name` whose logical value (shape ne, packed order) is `v`, stored per
// `layout`; sets `bytes` to what the input must be filled with and returns the view to use.
inline graph::TensorId strided_input(graph::Graph& g, const std::string& name, const Shape& ne,
                                     Layout layout, const std::vector<float>& v, HostData& bytes) {
  std::vector<float> stored;
  graph::TensorId id = graph::kNoTensor;
  switch (layout) {
    case Layout::packed:
      stored = v;
      id = g.input(name, ZEN_TYPE_F32, ne);
      break;
    case Layout::transposed: {  // stored [ne1, ne0, ne2, ne3], permuted back
      const Shape st{ne[1], ne[0], ne[2], ne[3]};
      stored.resize(v.size());
      for (int64_t i3 = 0; i3 < ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < ne[2]; ++i2)
          for (int64_t i1 = 0; i1 < ne[1]; ++i1)
            for (int64_t i0 = 0; i0 < ne[0]; ++i0)
              stored[idx(st, i1, i0, i2, i3)] = v[idx(ne, i0, i1, i2, i3)];
      id = g.permute(g.input(name, ZEN_TYPE_F32, st), {1, 0, 2, 3});
      break;
    }
    case Layout::padded: {  // rows of ne0 + 5, sliced to ne0; the padding holds garbage
      const Shape st{ne[0] + 5, ne[1], ne[2], ne[3]};
      stored.assign(count(st), 1e30f);
      for (int64_t i3 = 0; i3 < ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < ne[2]; ++i2)
          for (int64_t i1 = 0; i1 < ne[1]; ++i1)
            for (int64_t i0 = 0; i0 < ne[0]; ++i0)
              stored[idx(st, i0, i1, i2, i3)] = v[idx(ne, i0, i1, i2, i3)];
      id = g.slice(g.input(name, ZEN_TYPE_F32, st), 0, 0, ne[0]);
      break;
    }
  }
  bytes = HostData::of(stored);
  return id;
}

// v rounded to F16 or BF16 (in place: the values a kernel sees), returning the bits to feed.
inline std::vector<uint16_t> round_to_half(zen_type type, std::vector<float>& v) {
  const auto bits = type == ZEN_TYPE_F16 ? to_f16_bits(v) : to_bf16_bits(v);
  for (size_t i = 0; i < v.size(); ++i) {
    if (type == ZEN_TYPE_F16) {
      v[i] = f16_bits_to_float(bits[i]);
    } else {
      const uint32_t u = static_cast<uint32_t>(bits[i]) << 16;
      std::memcpy(&v[i], &u, 4);
    }
  }
  return bits;
}

// F16 / BF16 output bytes as floats.
inline std::vector<float> from_half(zen_type type, const std::vector<uint8_t>& raw) {
  std::vector<float> out(raw.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    uint16_t h;
    std::memcpy(&h, raw.data() + 2 * i, 2);
    if (type == ZEN_TYPE_F16) {
      out[i] = f16_bits_to_float(h);
    } else {
      const uint32_t u = static_cast<uint32_t>(h) << 16;
      std::memcpy(&out[i], &u, 4);
    }
  }
  return out;
}

inline int32_t f32_param(float f) {
  int32_t i;
  std::memcpy(&i, &f, sizeof i);
  return i;
}

}  // namespace zen::ops
