// A complete image encoder in one file, written only against the installed SDK: the shape of
// the vision towers that feed a decoder (LLaVA-style): the image cut into P x P patches by a
// strided convolution, learned position embeddings, and a two-layer GELU projector into the
// decoder's embedding width. It declares kKind = ZEN_MODEL_MEDIA_ENCODER, reads the runtime's
// "media" input [width, height, channels] (zen/arch.h) and marks "embeddings" [n_embd, N]: one
// row per patch, which a decoder reads as the input embeddings of N consecutive positions.
//
// GGUF layout (general.architecture "patch_projector"):
//   patch_projector.image_size, .patch_size, .embedding_length (the tower's width),
//   .projection_dim (the decoder's n_embd)
//   v.patch_embd.weight [P, P, C, n_v] (a Conv2d kernel), v.patch_embd.bias [n_v],
//   v.position_embd.weight [n_v, N], mm.0.weight [n_v, n_embd], mm.0.bias,
//   mm.2.weight [n_embd, n_embd], mm.2.bias
#include <zen/arch.hpp>

#include <string>

namespace {

class PatchImageEncoder {
 public:
  static constexpr const char* kNames[] = {"patch_projector"};
  static constexpr zen_model_kind kKind = ZEN_MODEL_MEDIA_ENCODER;
  static constexpr int64_t kChannels = 3;

  explicit PatchImageEncoder(const zen::ModelInfo& m)
      : image_(m.u32("{arch}.image_size")),
        patch_(m.u32("{arch}.patch_size")),
        n_v_(m.u32("{arch}.embedding_length")),
        n_embd_(m.u32("{arch}.projection_dim")) {
    if (patch_ == 0 || image_ % patch_ != 0)
      throw zen::Error(ZEN_ERR_INVALID_ARG, "image size " + std::to_string(image_) +
                                                " is not a multiple of the patch size " +
                                                std::to_string(patch_));
    const int64_t p = patch_, v = n_v_, d = n_embd_, n = n_patches();
    m.expect("v.patch_embd.weight", {p, p, kChannels, v});
    m.expect("v.patch_embd.bias", {v});
    m.expect("v.position_embd.weight", {v, n});
    m.expect("mm.0.weight", {v, d});
    m.expect("mm.0.bias", {d});
    m.expect("mm.2.weight", {d, d});
    m.expect("mm.2.bias", {d});
  }

  void build(zen::Graph& g, const zen_batch& b) const {
    const int64_t s = image_, grid = image_ / patch_;
    if (!ZEN_HAS_MEMBER(&b, zen_batch, media_ne) || b.media_ne[0] != s || b.media_ne[1] != s ||
        b.media_ne[2] != kChannels || b.media_ne[3] != 1)
      throw zen::Error(ZEN_ERR_INVALID_ARG, "the image must be " + std::to_string(s) + " x " +
                                                std::to_string(s) + " x 3 (the model's size)");
    zen_t image = g.input("media", ZEN_TYPE_F32, {s, s, kChannels, 1});
    // A stride-P convolution cuts and embeds the patches: [grid, grid, n_v], patch (x, y) at
    // x + grid * y, the row-major order of the reference's flatten.
    zen_t x = g.op(ZEN_OP_CONV2D, {g.weight("v.patch_embd.weight"), image},
                   {static_cast<int32_t>(patch_), static_cast<int32_t>(patch_), 0, 0, 1, 1});
    x = g.cpy(g.permute(g.reshape(x, {grid * grid, n_v_}), {1, 0, 2, 3}), ZEN_TYPE_F32);
    x = g.add(g.add(x, g.weight("v.patch_embd.bias")), g.weight("v.position_embd.weight"));
    x = g.name(x, "patches");
    auto linear = [&](const char* w, zen_t in) {
      return g.add(g.matmul(g.weight(std::string(w) + ".weight"), in),
                   g.weight(std::string(w) + ".bias"));
    };
    zen_t h = g.name(g.gelu(linear("mm.0", x), /*erf=*/true), "mm_0");
    g.output(linear("mm.2", h), "embeddings");  // [n_embd, n_patches]
  }

 private:
  int64_t n_patches() const { return static_cast<int64_t>(image_ / patch_) * (image_ / patch_); }

  uint32_t image_, patch_, n_v_, n_embd_;
};

}  // namespace

ZEN_EXPORT_ARCH(PatchImageEncoder, "patch-image-encoder", "1.0.0")
