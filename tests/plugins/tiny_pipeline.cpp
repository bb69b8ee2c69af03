// "tiny_denoiser": a test-only pipeline architecture (ZEN_MODEL_PIPELINE) in the shape of a
// diffusion model, written only against the SDK: a text encoder (byte embeddings, mean-pooled
// into a conditioning vector), a denoiser called once per step (3x3 convolution, conditioning,
// erf GELU; an Euler step x - dt * v), and a decoder (1x1 convolution to RGB). Its run() drives
// the three sub-models through the runtime and reports each step. The noise is seeded and
// reproducible: splitmix64 uniforms through Box-Muller (tools/make_tiny_pipeline.py does the
// same in numpy and keeps the reference image).
#include <zen/arch.hpp>
#include <zen/pipeline.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

enum Stage : uint32_t { kText = 0, kDenoise = 1, kDecode = 2 };

// The noise: splitmix64 uniforms in (0, 1], two per pair of normals (Box-Muller).
std::vector<float> seeded_noise(uint64_t seed, size_t n) {
  auto next = [&seed] {
    uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  };
  std::vector<float> out(n);
  for (size_t i = 0; i < n; i += 2) {
    const double u1 = 1.0 - next(), u2 = next();  // u1 in (0, 1]
    const double r = std::sqrt(-2.0 * std::log(u1)), a = 2.0 * M_PI * u2;
    out[i] = static_cast<float>(r * std::cos(a));
    if (i + 1 < n) out[i + 1] = static_cast<float>(r * std::sin(a));
  }
  return out;
}

class TinyDenoiser {
 public:
  static constexpr const char* kNames[] = {"tiny_denoiser"};
  static constexpr zen_model_kind kKind = ZEN_MODEL_PIPELINE;
  static constexpr uint32_t kTasks = ZEN_TASK_IMAGE;
  static constexpr uint32_t kDefaultSize = 8, kDefaultSteps = 4;

  explicit TinyDenoiser(const zen::ModelInfo& m) : c_(m.u32("{arch}.channels")) {
    const int64_t c = c_;
    m.expect("txt.byte_embd.weight", {c, 256});
    m.expect("den.conv.weight", {3, 3, c, c});
    m.expect("den.conv.bias", {c});
    m.expect("dec.conv.weight", {1, 1, c, 3});
    m.expect("dec.conv.bias", {3});
  }

  void build(zen::Graph& g, const zen_batch& b) const {
    const int64_t c = c_, w = b.media_ne[0], h = b.media_ne[1];
    switch (b.stage) {
      case kText: {  // bytes [L] -> the mean of their embeddings [C, 1]
        const int64_t len = b.media_ne[0];
        zen_t x =
            g.get_rows(g.weight("txt.byte_embd.weight"), g.input("bytes", ZEN_TYPE_I32, {len}));
        zen_t xt = g.cpy(g.permute(x, {1, 0, 2, 3}), ZEN_TYPE_F32);  // [L, C]
        g.output(g.matmul(xt, g.input("pool", ZEN_TYPE_F32, {len, 1})), "cond");
        break;
      }
      case kDenoise: {  // latent [W, H, C] -> latent - dt * v(latent, cond)
        zen_t x = g.input("latent", ZEN_TYPE_F32, {w, h, c, 1});
        zen_t v = g.op(ZEN_OP_CONV2D, {g.weight("den.conv.weight"), x}, {1, 1, 1, 1, 1, 1});
        v = g.add(v, g.reshape(g.weight("den.conv.bias"), {1, 1, c, 1}));
        v = g.add(v, g.input("cond", ZEN_TYPE_F32, {1, 1, c, 1}));
        v = g.gelu(v, /*erf=*/true);
        g.output(g.add(x, g.mul(v, g.input("minus_dt", ZEN_TYPE_F32, {1, 1, 1, 1}))), "next");
        break;
      }
      case kDecode: {  // latent [W, H, C] -> rgb [W, H, 3]
        zen_t x = g.input("latent", ZEN_TYPE_F32, {w, h, c, 1});
        zen_t rgb = g.op(ZEN_OP_CONV2D, {g.weight("dec.conv.weight"), x}, {1, 1, 0, 0, 1, 1});
        g.output(g.add(rgb, g.reshape(g.weight("dec.conv.bias"), {1, 1, 3, 1})), "rgb");
        break;
      }
      default:
        throw zen::Error(ZEN_ERR_INVALID_ARG, "no stage " + std::to_string(b.stage));
    }
  }

  void run(const zen_pipeline_call& call) const {
    const zen_image_request& r = *call.image;
    const uint32_t w = r.width ? r.width : kDefaultSize, h = r.height ? r.height : kDefaultSize;
    const uint32_t steps = r.steps ? r.steps : kDefaultSteps;
    const std::string prompt = r.prompt.ptr ? std::string(r.prompt.ptr, r.prompt.len) : "";
    if (prompt.empty()) throw zen::Error(ZEN_ERR_INVALID_ARG, "the prompt is empty");

    std::vector<int32_t> bytes(prompt.begin(), prompt.end());
    for (int32_t& b : bytes) b &= 0xFF;
    zen::Stage text(call, zen::stage_batch(kText, {static_cast<uint32_t>(bytes.size()), 1, 1, 1}));
    text.set("bytes", bytes);
    text.set("pool", std::vector<float>(bytes.size(), 1.0f / static_cast<float>(bytes.size())));
    text.compute();
    const std::vector<float> cond = text.get<float>("cond", c_);

    const size_t n = static_cast<size_t>(w) * h * c_;
    std::vector<float> latent = seeded_noise(r.has_seed ? r.seed : std::random_device{}(), n);
    zen::Stage denoiser(call, zen::stage_batch(kDenoise, {w, h, c_, 1}));
    denoiser.set("cond", cond);
    denoiser.set("minus_dt", std::vector<float>{-1.0f / static_cast<float>(steps)});
    for (uint32_t step = 0; step < steps; ++step) {
      if (zen::cancelled(call))
        throw zen::Error(ZEN_ERR_CANCELLED, "cancelled at step " + std::to_string(step));
      denoiser.set("latent", latent);
      denoiser.compute();
      latent = denoiser.get<float>("next", n);
      const zen_image_event progress{ZEN_HDR_INIT(zen_image_event), step + 1, steps, nullptr, 0, 0};
      call.on_image(call.user, &progress, nullptr, 0);
    }

    zen::Stage decoder(call, zen::stage_batch(kDecode, {w, h, c_, 1}));
    decoder.set("latent", latent);
    decoder.compute();
    const std::vector<float> planes = decoder.get<float>("rgb", static_cast<size_t>(w) * h * 3);
    std::vector<uint8_t> rgb(planes.size());  // [W, H, 3] planes -> interleaved rows, top first
    for (size_t ch = 0; ch < 3; ++ch)
      for (size_t i = 0; i < static_cast<size_t>(w) * h; ++i) {
        const float v = std::clamp((planes[ch * w * h + i] + 1.0f) * 0.5f, 0.0f, 1.0f);
        rgb[i * 3 + ch] = static_cast<uint8_t>(std::lround(v * 255.0f));
      }
    const zen_image_event done{ZEN_HDR_INIT(zen_image_event), steps, steps, rgb.data(), w, h};
    call.on_image(call.user, &done, nullptr, 1);
  }

 private:
  uint32_t c_;
};

}  // namespace

ZEN_EXPORT_ARCH(TinyDenoiser, "tiny-denoiser", "1.0.0")
