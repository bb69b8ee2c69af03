// The compute shaders embedded in the plugin (SPIR-V compiled from shaders/*.comp by glslc at
// build time; see CMakeLists.txt).
#pragma once

#include <cstddef>
#include <cstdint>

namespace zen_vk {

enum class Shader {
  kCopy,
  kGetRows,
  kSetRows,
  kBinary,
  kUnary,
  kRmsNorm,
  kSoftmax,
  kRope,
  kMatmul,
  kAttention,
  kArgsort,
  kQuantizeAct,
  kConv,
  kUpsample,
  kArgsortMerge,
  kMatmulExt,
  kMatvec,
  kMatmulTiled,
  kAttentionSg,
  kAttentionMerge,
  kCount
};

struct ShaderCode {
  const char* name;
  const uint32_t* words;
  size_t bytes;
};

const ShaderCode& shader_code(Shader s);

}  // namespace zen_vk
