#include "shaders.h"

namespace zen_vk {
namespace {

// Each .spv.inc is glslc's "-mfmt=c" output: a brace-enclosed list of 32-bit words.
const uint32_t kCopy[] =
#include "copy.spv.inc"
    ;
const uint32_t kGetRows[] =
#include "get_rows.spv.inc"
    ;
const uint32_t kSetRows[] =
#include "set_rows.spv.inc"
    ;
const uint32_t kBinary[] =
#include "binary.spv.inc"
    ;
const uint32_t kUnary[] =
#include "unary.spv.inc"
    ;
const uint32_t kRmsNorm[] =
#include "rms_norm.spv.inc"
    ;
const uint32_t kSoftmax[] =
#include "softmax.spv.inc"
    ;
const uint32_t kRope[] =
#include "rope.spv.inc"
    ;
const uint32_t kMatmul[] =
#include "matmul.spv.inc"
    ;
const uint32_t kAttention[] =
#include "attention.spv.inc"
    ;
const uint32_t kArgsort[] =
#include "argsort.spv.inc"
    ;
const uint32_t kQuantizeAct[] =
#include "quantize_act.spv.inc"
    ;
const uint32_t kConv[] =
#include "conv.spv.inc"
    ;
const uint32_t kUpsample[] =
#include "upsample.spv.inc"
    ;
const uint32_t kArgsortMerge[] =
#include "argsort_merge.spv.inc"
    ;
const uint32_t kMatmulExt[] =
#include "matmul_ext.spv.inc"
    ;
const uint32_t kMatvec[] =
#include "matvec.spv.inc"
    ;
const uint32_t kMatmulTiled[] =
#include "matmul_tiled.spv.inc"
    ;
const uint32_t kAttentionSg[] =
#include "attention_sg.spv.inc"
    ;
const uint32_t kAttentionMerge[] =
#include "attention_merge.spv.inc"
    ;

const ShaderCode kShaders[] = {
    {"copy", kCopy, sizeof kCopy},
    {"get_rows", kGetRows, sizeof kGetRows},
    {"set_rows", kSetRows, sizeof kSetRows},
    {"binary", kBinary, sizeof kBinary},
    {"unary", kUnary, sizeof kUnary},
    {"rms_norm", kRmsNorm, sizeof kRmsNorm},
    {"softmax", kSoftmax, sizeof kSoftmax},
    {"rope", kRope, sizeof kRope},
    {"matmul", kMatmul, sizeof kMatmul},
    {"attention", kAttention, sizeof kAttention},
    {"argsort", kArgsort, sizeof kArgsort},
    {"quantize_act", kQuantizeAct, sizeof kQuantizeAct},
    {"conv", kConv, sizeof kConv},
    {"upsample", kUpsample, sizeof kUpsample},
    {"argsort_merge", kArgsortMerge, sizeof kArgsortMerge},
    {"matmul_ext", kMatmulExt, sizeof kMatmulExt},
    {"matvec", kMatvec, sizeof kMatvec},
    {"matmul_tiled", kMatmulTiled, sizeof kMatmulTiled},
    {"attention_sg", kAttentionSg, sizeof kAttentionSg},
    {"attention_merge", kAttentionMerge, sizeof kAttentionMerge},
};
static_assert(sizeof kShaders / sizeof kShaders[0] == static_cast<size_t>(Shader::kCount));

}  // namespace

const ShaderCode& shader_code(Shader s) { return kShaders[static_cast<size_t>(s)]; }

}  // namespace zen_vk
