// Hugging Face directories as models (issue 19): each tiny model saved by transformers itself
// (tests/data/models/tiny_hf, made by tools/make_tiny_models.py --save-hf) loads through the
// same host, plugin and CPU device as its GGUF conversion, and
//  - every tensor the GGUF holds comes out of the directory with the same type, shape and
//    bytes, and every hyperparameter both have is equal (the plugin's rows do what llama.cpp's
//    converter does: Llama's q/k rope order, Gemma's "+ 1" norms, stacked experts, Llama 3's
//    rope factors);
//  - its logits match transformers' own at every position of the committed prompts;
//  - the chat template and generation defaults come from the directory's files;
//  - a directory with something the plugin does not read, a malformed config or a model no
//    plugin answers to is refused with a message naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "quant/quantize_file.h"
#include "tiny_host.h"

namespace zen {
namespace {

namespace fs = std::filesystem;
using test::kTinyModelsDir;
using test::load_model;

const std::string kHfDir = std::string(ZEN_TEST_DATA_DIR) + "/models/tiny_hf/";

std::unique_ptr<host::LoadedModel> load(const std::string& path) {
  model::ContextParams params;
  params.n_ctx = 256;
  params.kv_type = ZEN_TYPE_F32;
  return load_model(path, params);
}

const nlohmann::json& manifest_entry(const std::string& name) {
  static const nlohmann::json m = [] {
    std::ifstream in(kTinyModelsDir + "manifest.json");
    return nlohmann::json::parse(in);
  }();
  for (const auto& e : m.at("models"))
    if (e.at("name") == name) return e;
  throw std::runtime_error("no tiny model " + name);
}

class HfModel : public ::testing::TestWithParam<std::string> {};

TEST_P(HfModel, TensorsAndHyperparametersEqualTheGgufConversion) {
  const std::string name = GetParam();
  auto hf = load(kHfDir + name);
  auto gg = load(kTinyModelsDir + name + ".gguf");
  const gguf::File& a = hf->file().gguf();
  const gguf::File& b = gg->file().gguf();
  EXPECT_EQ(hf->file().architecture(), gg->file().architecture());
  size_t compared = 0;
  for (const gguf::TensorInfo& want : b.tensors()) {
    const gguf::TensorInfo* got = a.find_tensor(want.name);
    ASSERT_NE(got, nullptr) << want.name << " is missing from the directory's model";
    EXPECT_EQ(got->type, want.type) << want.name;
    EXPECT_EQ(got->ne, want.ne) << want.name;
    ASSERT_EQ(got->n_bytes, want.n_bytes) << want.name;
    EXPECT_EQ(std::memcmp(got->data, want.data, want.n_bytes), 0) << want.name << ": bytes differ";
    ++compared;
  }
  EXPECT_EQ(a.tensors().size(), b.tensors().size());
  // Hyperparameters of the architecture both carry.
  const std::string prefix = gg->file().architecture() + ".";
  size_t keys = 0;
  for (const gguf::KeyValue& kv : b.metadata()) {
    if (!kv.key.starts_with(prefix)) continue;
    const gguf::Value* got = a.find(kv.key);
    if (!got) continue;
    ++keys;
    if (kv.value.is_integer()) {
      EXPECT_EQ(got->as_int<int64_t>(), kv.value.as_int<int64_t>()) << kv.key;
    } else if (kv.value.type() == gguf::ValueType::F32) {
      EXPECT_EQ(got->as_float(), kv.value.as_float()) << kv.key;
    }
  }
  std::printf("  %-9s %zu tensors identical to the GGUF's, %zu hyperparameters equal\n",
              name.c_str(), compared, keys);
  EXPECT_GE(keys, 6u);
}

TEST_P(HfModel, LogitsMatchTransformers) {
  const std::string name = GetParam();
  auto lm = load(kHfDir + name);
  const nlohmann::json& entry = manifest_entry(name);
  double worst = 0;
  for (const auto& p : entry.at("prompts")) {
    const auto ids = p.at("ids").get<std::vector<int32_t>>();
    const int64_t n_vocab = p.at("shape")[1];
    std::vector<float> want(ids.size() * n_vocab);
    std::ifstream in(kTinyModelsDir + p.at("logits").get<std::string>(), std::ios::binary);
    in.read(reinterpret_cast<char*>(want.data()), static_cast<std::streamsize>(want.size() * 4));
    ASSERT_EQ(static_cast<size_t>(in.gcount()), want.size() * 4);
    model::Context& ctx = lm->context();
    ctx.kv().clear();
    ctx.decode(model::Batch::sequence(ids, 0, 0, true));
    ASSERT_EQ(ctx.n_vocab(), n_vocab);
    for (size_t i = 0; i < ids.size(); ++i) {
      std::span<const float> got = ctx.logits(i);
      for (int64_t j = 0; j < n_vocab; ++j)
        worst = std::max(worst, std::fabs(double(got[j]) - want[i * n_vocab + j]));
    }
  }
  std::printf("  %-9s max abs difference from transformers %.3g\n", name.c_str(), worst);
  EXPECT_LE(worst, 1e-4);  // F32 weights and cache: float rounding only (arch_fidelity_test)
}

INSTANTIATE_TEST_SUITE_P(TinyModels, HfModel,
                         ::testing::Values("llama", "qwen3", "qwen3moe", "gemma3"));

// In-situ quantization is the offline quantizer run as the model loads: a tiny directory
// loaded with --isq Q8_0 holds exactly the tensors `zen-engine quantize DIR OUT Q8_0` writes.
TEST_P(HfModel, InSituQ8_0EqualsTheOfflineQuantizeBitForBit) {
  const std::string name = GetParam();
  host::Config config = test::host_once().config;
  config.isq = "Q8_0";
  model::ContextParams params;
  params.n_ctx = 64;
  host::LoadedModel isq(*test::host_once().registry, config, kHfDir + name, params);
  const fs::path out = fs::temp_directory_path() / ("zen-isq-" + name + ".gguf");
  quant::QuantizeFileOptions o;
  o.target = quant::find_file_type("Q8_0");
  o.threads = 2;
  auto plain = load(kHfDir + name);
  quant::quantize_file(plain->file().gguf(), kHfDir + name, out.string(), o);
  const gguf::File offline = gguf::File::open(out.string());
  const gguf::File& a = isq.file().gguf();
  size_t q8 = 0;
  ASSERT_EQ(a.tensors().size(), offline.tensors().size());
  for (const gguf::TensorInfo& want : offline.tensors()) {
    const gguf::TensorInfo* got = a.find_tensor(want.name);
    ASSERT_NE(got, nullptr) << want.name;
    EXPECT_EQ(got->type, want.type) << want.name;
    ASSERT_EQ(got->n_bytes, want.n_bytes) << want.name;
    EXPECT_EQ(std::memcmp(got->data, want.data, want.n_bytes), 0) << want.name << ": bytes differ";
    q8 += want.type == ZEN_TYPE_Q8_0;
  }
  EXPECT_EQ(a.find("general.file_type")->as_int<int64_t>(),
            offline.find("general.file_type")->as_int<int64_t>());
  std::printf("  %-9s %zu tensors Q8_0, all %zu identical to the offline file\n", name.c_str(), q8,
              a.tensors().size());
  EXPECT_GT(q8, 0u);
  fs::remove(out);
}

TEST(HfDirectory, ChatTemplateAndGenerationDefaultsComeFromItsFiles) {
  auto lm = load(kHfDir + "qwen3");
  const gguf::File& f = lm->file().gguf();
  const gguf::Value* tmpl = f.find("tokenizer.chat_template");
  ASSERT_NE(tmpl, nullptr);
  EXPECT_NE(tmpl->as_string().find("<|im_start|>"), std::string::npos);
  EXPECT_FLOAT_EQ(static_cast<float>(f.find("general.sampling.temp")->as_float()), 0.7f);
  EXPECT_EQ(f.find("general.sampling.top_k")->as_int<int64_t>(), 20);
  EXPECT_FLOAT_EQ(static_cast<float>(f.find("general.sampling.top_p")->as_float()), 0.8f);
  EXPECT_EQ(f.find("general.sampling.min_p"), nullptr);  // the file does not say
}

// A copy of a tiny directory to break in one way.
struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& model) {
    dir = fs::temp_directory_path() /
          ("zen-hf-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::copy(kHfDir + model, dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  void edit_config(const std::function<void(nlohmann::json&)>& f) const {
    nlohmann::json c = nlohmann::json::parse(std::ifstream(dir / "config.json"));
    f(c);
    std::ofstream(dir / "config.json") << c.dump();
  }
};

// Loading `dir` fails with a message holding every one of `parts`.
void expect_refused(const fs::path& dir, std::initializer_list<std::string> parts) {
  std::string why = "(loaded)";
  try {
    load(dir.string());
  } catch (const std::exception& e) {
    why = e.what();
  }
  for (const std::string& part : parts) EXPECT_NE(why.find(part), std::string::npos) << why;
}

// A single-file checkpoint as its JSON header and data bytes, to rewrite.
struct RawCheckpoint {
  nlohmann::json header;
  std::string data;

  explicit RawCheckpoint(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    uint64_t n = 0;
    in.read(reinterpret_cast<char*>(&n), 8);
    std::string text(n, '\0');
    in.read(text.data(), static_cast<std::streamsize>(n));
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    header = nlohmann::json::parse(text);
  }
  void write(const fs::path& file) const {
    const std::string text = header.dump();
    const uint64_t n = text.size();
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(&n), 8);
    out << text << data;
  }
};

// Appends a 4-element F32 tensor named `name`.
void add_tensor(const fs::path& file, const std::string& name) {
  RawCheckpoint c(file);
  c.header[name] = {
      {"dtype", "F32"}, {"shape", {4}}, {"data_offsets", {c.data.size(), c.data.size() + 16}}};
  c.data.append(16, '\0');
  c.write(file);
}

// Rewrites the matrices in BF16 (round to nearest even, done here by hand) and leaves the 1-D
// tensors F32, as mixed checkpoints are published.
void matrices_to_bf16(const fs::path& file) {
  RawCheckpoint c(file);
  std::string bytes;
  for (auto& [name, t] : c.header.items()) {
    if (name == "__metadata__") continue;
    const uint64_t begin = t["data_offsets"][0], end = t["data_offsets"][1];
    std::string d = c.data.substr(begin, end - begin);
    if (t["shape"].size() == 2) {
      std::string b(d.size() / 2, '\0');
      for (size_t i = 0; i < d.size() / 4; ++i) {
        uint32_t u;
        std::memcpy(&u, d.data() + 4 * i, 4);
        const uint16_t r = static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
        std::memcpy(b.data() + 2 * i, &r, 2);
      }
      d = b;
      t["dtype"] = "BF16";
    }
    t["data_offsets"] = {bytes.size(), bytes.size() + d.size()};
    bytes += d;
  }
  c.data = bytes;
  c.write(file);
}

// Published checkpoints are mostly BF16: its matrices are used in place (zero copy), and the
// model equals the offline BF16 conversion of the GGUF, tensor for tensor and logit for logit.
TEST(HfDirectory, Bf16CheckpointEqualsTheBf16ConversionOfTheGguf) {
  Scratch s("qwen3");
  matrices_to_bf16(s.dir / "model.safetensors");
  const fs::path out = fs::temp_directory_path() / "zen-hf-qwen3-bf16.gguf";
  quant::QuantizeFileOptions o;
  o.target = quant::find_file_type("BF16");
  quant::quantize_file(kTinyModelsDir + "qwen3.gguf", out.string(), o);
  auto hf = load(s.dir.string());
  auto gg = load(out.string());
  size_t bf16 = 0;
  for (const gguf::TensorInfo& want : gg->file().gguf().tensors()) {
    const gguf::TensorInfo* got = hf->file().gguf().find_tensor(want.name);
    ASSERT_NE(got, nullptr) << want.name;
    EXPECT_EQ(got->type, want.type) << want.name;
    ASSERT_EQ(got->n_bytes, want.n_bytes) << want.name;
    EXPECT_EQ(std::memcmp(got->data, want.data, want.n_bytes), 0) << want.name;
    bf16 += want.type == ZEN_TYPE_BF16;
  }
  EXPECT_GT(bf16, 20u);
  const std::vector<int32_t> ids = manifest_entry("qwen3").at("prompts")[2].at("ids");
  hf->context().decode(model::Batch::sequence(ids, 0, 0, true));
  gg->context().decode(model::Batch::sequence(ids, 0, 0, true));
  for (size_t i = 0; i < ids.size(); ++i) {
    std::span<const float> a = hf->context().logits(i), b = gg->context().logits(i);
    ASSERT_TRUE(std::equal(a.begin(), a.end(), b.begin())) << "position " << i;
  }
  std::printf("  qwen3 BF16 directory: %zu BF16 matrices, logits of %zu positions identical\n",
              bf16, ids.size());
  fs::remove(out);
}

TEST(HfDirectory, ATensorThePluginDoesNotReadIsRefusedNotDropped) {
  Scratch s("llama");
  add_tensor(s.dir / "model.safetensors", "model.layers.0.self_attn.q_proj.bias");
  expect_refused(s.dir,
                 {"model.layers.0.self_attn.q_proj.bias", "not one the architecture plugin reads"});
}

TEST(HfDirectory, AMalformedConfigValueIsNamed) {
  Scratch s("qwen3");
  s.edit_config([](nlohmann::json& c) { c["num_attention_heads"] = -4; });
  expect_refused(s.dir, {"'num_attention_heads' is -4, not an unsigned 32-bit integer"});
}

TEST(HfDirectory, AModelNoPluginAnswersToIsNamed) {
  Scratch s("qwen3");
  s.edit_config([](nlohmann::json& c) {
    c["architectures"] = {"MambaForCausalLM"};
    c["model_type"] = "mamba";
  });
  expect_refused(s.dir, {"no architecture plugin loads Hugging Face 'MambaForCausalLM', 'mamba'"});
}

TEST(HfDirectory, AConfigThatIsNotJsonIsNamed) {
  Scratch s("qwen3");
  std::ofstream(s.dir / "config.json") << "{\"hidden_size\": 64,";
  expect_refused(s.dir, {"config.json: not valid JSON"});
}

TEST(HfDirectory, ConfigAndTokenizerThatNestTooDeeplyAreRefusedBeforeParsing) {
  Scratch s("qwen3");
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  std::ofstream(s.dir / "generation_config.json") << deep;
  expect_refused(s.dir, {"generation_config.json: JSON nests deeper than 64 levels"});
  fs::copy_file(kHfDir + "qwen3/generation_config.json", s.dir / "generation_config.json",
                fs::copy_options::overwrite_existing);
  std::ofstream(s.dir / "tokenizer.json") << deep;
  expect_refused(s.dir, {"tokenizer.json: JSON nests deeper than 64 levels"});
}

TEST(HfDirectory, AShapeThePluginDoesNotExpectIsNamed) {
  Scratch s("qwen3");
  s.edit_config([](nlohmann::json& c) { c["intermediate_size"] = 96; });
  expect_refused(s.dir, {"blk.0.ffn_gate.weight"});
}

}  // namespace
}  // namespace zen
