// LoRA adapters (issue 19 item 5) on the committed tiny models, through the real host, plugins
// and CPU device. The references are peft's own logits (tools/make_tiny_lora.py): an adapter
// made by peft, saved by peft, loaded here as PEFT and (llama) as llama.cpp's GGUF layout,
// must move the logits exactly as peft moves them, at scale 1 and 0.5; sequences with and
// without an adapter share a batch, two adapters mix, the prefix cache never hands one
// adapter's K/V to another, and bad adapters are refused with a message naming what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "tiny_host.h"

namespace zen {
namespace {

namespace fs = std::filesystem;
using test::kTinyModelsDir;

const std::string kLoraDir = std::string(ZEN_TEST_DATA_DIR) + "/models/tiny_lora/";
const std::string kHfDir = std::string(ZEN_TEST_DATA_DIR) + "/models/tiny_hf/";
// F32 weights, adapters and cache: float rounding only (as hf_directory_test's bound).
constexpr double kTolerance = 1e-4;

const nlohmann::json& manifest() {
  static const nlohmann::json m = [] {
    std::ifstream in(kLoraDir + "manifest.json");
    return nlohmann::json::parse(in);
  }();
  return m;
}

const nlohmann::json& entry(const std::string& model) {
  for (const auto& e : manifest().at("adapters"))
    if (e.at("model") == model) return e;
  throw std::runtime_error("no adapter for " + model);
}

std::vector<float> read_f32(const std::string& path, size_t n) {
  std::vector<float> v(n);
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * 4));
  if (static_cast<size_t>(in.gcount()) != n * 4) throw std::runtime_error("short file " + path);
  return v;
}

std::unique_ptr<host::LoadedModel> load(const std::string& path,
                                        std::vector<std::pair<std::string, float>> lora,
                                        std::vector<std::string> devices = {}) {
  host::Config config = test::host_once().config;
  config.lora = std::move(lora);
  config.devices = std::move(devices);
  model::ContextParams params;
  params.n_ctx = 512;
  params.kv_type = ZEN_TYPE_F32;
  return std::make_unique<host::LoadedModel>(*test::host_once().registry, config, path, params);
}

// Largest |logit - reference| over every position of the (prompt, scale) references, each run
// as one sequence with logits at every position.
double worst_difference(host::LoadedModel& lm, const std::string& model, float scale,
                        const std::vector<float>& lora_scales_per_token = {}) {
  double worst = 0;
  size_t compared = 0;
  for (const auto& l : entry(model).at("logits")) {
    if (l.at("scale").get<float>() != scale) continue;
    const auto ids = l.at("ids").get<std::vector<int32_t>>();
    const int64_t n_vocab = l.at("shape")[1];
    const std::vector<float> want =
        read_f32(kLoraDir + l.at("file").get<std::string>(), ids.size() * n_vocab);
    model::Context& ctx = lm.context();
    ctx.kv().clear();
    model::Batch b = model::Batch::sequence(ids, 0, 0, true);
    for (size_t i = 0; i < ids.size() && !lora_scales_per_token.empty(); ++i)
      b.lora_scales.insert(b.lora_scales.end(), lora_scales_per_token.begin(),
                           lora_scales_per_token.end());
    ctx.decode(b);
    for (size_t i = 0; i < ids.size(); ++i) {
      std::span<const float> got = ctx.logits(i);
      for (int64_t j = 0; j < n_vocab; ++j)
        worst = std::max(worst, std::fabs(double(got[j]) - want[i * n_vocab + j]));
    }
    ++compared;
  }
  EXPECT_EQ(compared, 2u) << model << " scale " << scale;
  return worst;
}

class PeftAdapter : public ::testing::TestWithParam<std::string> {};

// The PEFT directory as peft saved it, on the GGUF conversion of the base model.
TEST_P(PeftAdapter, ChangesLogitsExactlyAsPeftDoes) {
  const std::string name = GetParam();
  const std::string adapter = kLoraDir + entry(name).at("peft").get<std::string>();
  for (float scale : {1.0f, 0.5f}) {
    auto lm = load(kTinyModelsDir + name + ".gguf", {{adapter, scale}});
    const double worst = worst_difference(*lm, name, scale);
    double moved = 0;
    for (const auto& l : entry(name).at("logits"))
      if (l.at("scale").get<float>() == scale)
        moved = std::max(moved, l.at("max_abs_change_from_base").get<double>());
    std::printf(
        "  %-7s PEFT scale %.1f: max |zen - peft| %.3g (the adapter moves logits by up "
        "to %.3g)\n",
        name.c_str(), scale, worst, moved);
    EXPECT_LE(worst, kTolerance);
    EXPECT_GT(moved, 1000 * kTolerance) << "the reference must show the adapter's effect";
  }
}

INSTANTIATE_TEST_SUITE_P(TinyModels, PeftAdapter, ::testing::Values("llama", "qwen3", "gemma3"));

// The same llama adapter in llama.cpp's GGUF layout (what convert_lora_to_gguf.py writes;
// the generator checked llama.cpp itself reads it to peft's logits), and on the base model
// loaded from its Hugging Face directory rather than its GGUF.
TEST(GgufAdapter, EqualsPeftOnGgufAndDirectoryBases) {
  const std::string adapter = kLoraDir + entry("llama").at("gguf").get<std::string>();
  for (const std::string& base : {kTinyModelsDir + "llama.gguf", kHfDir + "llama"}) {
    auto lm = load(base, {{adapter, 1.0f}});
    const double worst = worst_difference(*lm, "llama", 1.0f);
    std::printf("  GGUF adapter on %s: max |zen - peft| %.3g\n", base.c_str(), worst);
    EXPECT_LE(worst, kTolerance);
  }
  const auto& e = entry("llama");
  ASSERT_TRUE(e.contains("peer_llama_cpp_max_abs_diff")) << "made without the peer installed";
  std::printf(
      "  llama.cpp with this file: max |llama.cpp - peft| %.3g (its own distance from "
      "transformers without an adapter: %.3g)\n",
      e.at("peer_llama_cpp_max_abs_diff").get<double>(),
      e.at("peer_llama_cpp_base_max_abs_diff").get<double>());
}

// The low-rank ops are ordinary graph ops: a GPU device runs them with the rest (here the
// Vulkan device on whatever the machine has: Mesa lavapipe in CI) and agrees with peft.
TEST(GpuDevice, VulkanRunsTheAdapterAndAgreesWithPeft) {
  const std::string adapter = kLoraDir + entry("qwen3").at("peft").get<std::string>();
  std::unique_ptr<host::LoadedModel> lm;
  try {
    lm = load(kTinyModelsDir + "qwen3.gguf", {{adapter, 1.0f}}, {"vulkan:0"});
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no Vulkan device here: " << e.what();
  }
  const double worst = worst_difference(*lm, "qwen3", 1.0f);
  const std::string placement = lm->context().placement();
  std::printf("  vulkan:0 %s: max |zen - peft| %.3g\n", placement.c_str(), worst);
  EXPECT_EQ(placement.find("cpu:0:"), std::string::npos) << "every node on the device";
  EXPECT_LE(worst, 1e-3);  // the device's float order differs from the CPU's, not its maths
}

// Two adapters loaded at once, selected per batch token: the GGUF and PEFT forms of the same
// adapter at 0.5 each equal either at 1; both at 0 is the base model (its own reference).
TEST(SeveralAdapters, MixPerTokenAndZeroIsTheBaseModel) {
  const auto& e = entry("llama");
  auto lm =
      load(kTinyModelsDir + "llama.gguf", {{kLoraDir + e.at("gguf").get<std::string>(), 1.0f},
                                           {kLoraDir + e.at("peft").get<std::string>(), 1.0f}});
  EXPECT_LE(worst_difference(*lm, "llama", 1.0f, {1.0f, 0.0f}), kTolerance);
  EXPECT_LE(worst_difference(*lm, "llama", 1.0f, {0.0f, 1.0f}), kTolerance);
  EXPECT_LE(worst_difference(*lm, "llama", 1.0f, {0.5f, 0.5f}), kTolerance);
  EXPECT_LE(worst_difference(*lm, "llama", 0.5f, {0.25f, 0.25f}), kTolerance);

  // Both off: the plain model's transformers reference (tests/data/models/tiny).
  const nlohmann::json tiny = [] {
    std::ifstream in(kTinyModelsDir + "manifest.json");
    return nlohmann::json::parse(in);
  }();
  for (const auto& m : tiny.at("models")) {
    if (m.at("name") != "llama") continue;
    const auto& p = m.at("prompts")[1];
    const auto ids = p.at("ids").get<std::vector<int32_t>>();
    const int64_t n_vocab = p.at("shape")[1];
    const auto want =
        read_f32(kTinyModelsDir + p.at("logits").get<std::string>(), ids.size() * n_vocab);
    model::Context& ctx = lm->context();
    ctx.kv().clear();
    model::Batch b = model::Batch::sequence(ids, 0, 0, true);
    b.lora_scales.assign(ids.size() * 2, 0.0f);
    ctx.decode(b);
    double worst = 0;
    for (size_t i = 0; i < ids.size(); ++i)
      for (int64_t j = 0; j < n_vocab; ++j)
        worst = std::max(worst, std::fabs(double(ctx.logits(i)[j]) - want[i * n_vocab + j]));
    EXPECT_LE(worst, kTolerance) << "scale 0 must be the base model";
  }
}

// One batch, two sequences: seq 0 with the adapter, seq 1 without. Each gets its own logits.
TEST(SharedBatch, SequencesWithAndWithoutAnAdapterShareABatch) {
  const auto& e = entry("qwen3");
  auto lm =
      load(kTinyModelsDir + "qwen3.gguf", {{kLoraDir + e.at("peft").get<std::string>(), 1.0f}});
  const auto& l = e.at("logits")[0];  // short_text at scale 1
  ASSERT_EQ(l.at("scale").get<float>(), 1.0f);
  const auto ids = l.at("ids").get<std::vector<int32_t>>();
  const int64_t n_vocab = l.at("shape")[1];
  const auto with = read_f32(kLoraDir + l.at("file").get<std::string>(), ids.size() * n_vocab);
  const auto without = read_f32(kTinyModelsDir + "qwen3.short_text.f32", ids.size() * n_vocab);
  model::Batch b;
  for (int32_t seq : {0, 1})
    for (size_t i = 0; i < ids.size(); ++i) {
      b.tokens.push_back(ids[i]);
      b.positions.push_back(static_cast<int32_t>(i));
      b.seq_ids.push_back(seq);
      b.logits.push_back(1);
      b.lora_scales.push_back(seq == 0 ? 1.0f : 0.0f);
    }
  model::Context& ctx = lm->context();
  ctx.kv().clear();
  ctx.decode(b);
  double worst_with = 0, worst_without = 0;
  for (size_t i = 0; i < ids.size(); ++i)
    for (int64_t j = 0; j < n_vocab; ++j) {
      worst_with =
          std::max(worst_with, std::fabs(double(ctx.logits(i)[j]) - with[i * n_vocab + j]));
      worst_without = std::max(worst_without, std::fabs(double(ctx.logits(ids.size() + i)[j]) -
                                                        without[i * n_vocab + j]));
    }
  std::printf("  one batch: with adapter %.3g from peft, without %.3g from transformers\n",
              worst_with, worst_without);
  EXPECT_LE(worst_with, kTolerance);
  EXPECT_LE(worst_without, kTolerance);
}

// ---- the engine: per-request selection and the prefix cache ---------------------------------

class Collect : public engine::Sink {
 public:
  bool on_token(int, int32_t token, const sampling::Logprobs*) override {
    tokens.push_back(token);
    return true;
  }
  void on_finish(int, engine::Finish, const std::string& e) override { error = e; }
  void on_done(const engine::Usage& u) override {
    std::lock_guard lock(mu);
    usage = u;
    done = true;
    cv.notify_all();
  }
  void wait() {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(120), [&] { return done; }));
  }
  std::vector<int32_t> tokens;
  std::string error;
  engine::Usage usage;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
};

std::shared_ptr<Collect> generate(engine::Engine& eng, const std::vector<int32_t>& prompt,
                                  std::vector<float> lora) {
  engine::Request r;
  r.prompt = prompt;
  r.max_tokens = 12;
  r.sampling.temperature = 0.0f;
  r.lora = std::move(lora);
  auto sink = std::make_shared<Collect>();
  eng.submit(std::move(r), sink);
  sink->wait();
  return sink;
}

TEST(EngineLora, PerRequestScalesAndPrefixCacheKeptApart) {
  const auto& e = entry("llama");
  auto lm =
      load(kTinyModelsDir + "llama.gguf", {{kLoraDir + e.at("peft").get<std::string>(), 1.0f}});
  auto plain = load(kTinyModelsDir + "llama.gguf", {});
  std::vector<int32_t> prompt;
  for (int i = 0; i < 40; ++i) prompt.push_back(1 + (i * 37) % 500);  // 2 full blocks of 16
  engine::Engine eng(lm->context(), {});
  engine::Engine base(plain->context(), {});

  const auto adapted = generate(eng, prompt, {});  // the default scale: 1
  const auto off = generate(eng, prompt, {0.0f});
  const auto reference = generate(base, prompt, {});
  const auto again = generate(eng, prompt, {1.0f});
  EXPECT_EQ(off->tokens, reference->tokens) << "scale 0 must generate as the base model";
  EXPECT_NE(adapted->tokens, reference->tokens) << "the adapter must change the text";
  EXPECT_EQ(again->tokens, adapted->tokens);
  // The second request's prompt was cached under the adapter: none of it may be reused
  // without it; the third (the adapter again) reuses the first one's blocks.
  EXPECT_EQ(off->usage.cached_tokens, 0u);
  EXPECT_EQ(again->usage.cached_tokens, 32u);
  std::printf("  engine: adapter on/off/on cached %u/%u/%u prompt tokens\n",
              adapted->usage.cached_tokens, off->usage.cached_tokens, again->usage.cached_tokens);

  engine::Request bad;
  bad.prompt = prompt;
  bad.lora = {1.0f, 1.0f};
  EXPECT_THROW(eng.submit(std::move(bad), std::make_shared<Collect>()), engine::InvalidRequest);
}

// ---- refusals ----------------------------------------------------------------------------------

std::string load_error(const std::string& model, const std::string& adapter) {
  try {
    load(kTinyModelsDir + model + ".gguf", {{adapter, 1.0f}});
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(LoraRefusals, BadAdaptersAreRefusedNamingTheProblem) {
  const fs::path tmp = fs::temp_directory_path() / "zen_lora_test";
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  auto expect_error = [](const std::string& got, const std::string& part) {
    EXPECT_NE(got.find(part), std::string::npos) << "error: '" << got << "' lacks '" << part << "'";
  };
  expect_error(load_error("llama", (tmp / "missing.gguf").string()), "no such file");
  // Another architecture's GGUF adapter, and another model's PEFT adapter (shapes differ).
  expect_error(load_error("qwen3", kLoraDir + "llama.lora.gguf"), "is for 'llama'");
  expect_error(load_error("llama", kLoraDir + "gemma3_peft"),
               "'model.layers.3.mlp.down_proj' is not a weight the 'llama' plugin maps");
  expect_error(load_error("llama", kLoraDir + "qwen3_peft"), "in the adapter");
  // A model file is not an adapter.
  expect_error(load_error("llama", kTinyModelsDir + "llama.gguf"), "not a LoRA adapter");
  // Truncated GGUF adapter.
  {
    std::ifstream in(kLoraDir + "llama.lora.gguf", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(tmp / "cut.gguf", std::ios::binary).write(bytes.data(), bytes.size() / 2);
  }
  expect_error(load_error("llama", (tmp / "cut.gguf").string()), "cut.gguf");
  // PEFT configs this engine cannot honour.
  for (const auto& [key, value, part] :
       std::vector<std::tuple<std::string, nlohmann::json, std::string>>{
           {"use_dora", true, "DoRA"},
           {"peft_type", "IA3", "not LORA"},
           {"modules_to_save", nlohmann::json::array({"lm_head"}), "modules_to_save"}}) {
    const fs::path dir = tmp / ("peft_" + key);
    fs::create_directories(dir);
    fs::copy_file(kLoraDir + "llama_peft/adapter_model.safetensors",
                  dir / "adapter_model.safetensors");
    std::ifstream in(kLoraDir + "llama_peft/adapter_config.json");
    nlohmann::json config = nlohmann::json::parse(in);
    config[key] = value;
    std::ofstream(dir / "adapter_config.json") << config.dump();
    expect_error(load_error("llama", dir.string()), part);
  }
  // A Hugging Face model directory is not a PEFT adapter.
  expect_error(load_error("llama", kHfDir + "llama"), "adapter_config.json");
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace zen
