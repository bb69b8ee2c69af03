#include "hf/directory.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <zen/json_depth.hpp>

#include "gguf/writer.h"
#include "hf/config_keys.h"
#include "hf/tensor_map.h"
#include "safetensors/checkpoint.h"
#include "tokenizer/hf_json.h"

namespace zen::hf {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr uintmax_t kMaxJsonBytes = uintmax_t{64} << 20;

std::string read_text(const fs::path& file) {
  std::error_code ec;
  const uintmax_t size = fs::file_size(file, ec);
  if (ec) throw std::runtime_error(file.string() + ": cannot read: " + ec.message());
  if (size > kMaxJsonBytes)
    throw std::runtime_error(file.string() + ": " + std::to_string(size) +
                             " bytes, more than the 64 MiB a model's text file may have");
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw std::runtime_error(file.string() + ": cannot read");
  return text.str();
}

// tokenizer_config.json's chat_template (a string, or a list of {name, template} where
// "default" is the main one and the others become tokenizer.chat_template.<name>), else
// chat_template.jinja, else chat_template.json's.
void add_chat_templates(const fs::path& dir, const json& tokenizer_config,
                        std::vector<gguf::KeyValue>& kv) {
  json tmpl = tokenizer_config.is_object() && tokenizer_config.contains("chat_template")
                  ? tokenizer_config["chat_template"]
                  : json();
  if (tmpl.is_null() && fs::exists(dir / "chat_template.jinja"))
    tmpl = read_text(dir / "chat_template.jinja");
  if (tmpl.is_null()) {
    const json j = read_json(dir / "chat_template.json", true);
    if (j.is_object() && j.contains("chat_template")) tmpl = j["chat_template"];
  }
  if (tmpl.is_string()) {
    kv.push_back({"tokenizer.chat_template", gguf::value_of(tmpl.get<std::string>())});
    return;
  }
  if (!tmpl.is_array()) {
    if (!tmpl.is_null())
      throw std::runtime_error(
          "tokenizer_config.json: chat_template is neither a string nor a "
          "list of {name, template}");
    return;
  }
  for (const json& t : tmpl) {
    if (!t.is_object() || !t.value("name", json()).is_string() ||
        !t.value("template", json()).is_string())
      throw std::runtime_error(
          "tokenizer_config.json: a chat_template entry is not {name, "
          "template}");
    const std::string name = t["name"];
    kv.push_back({name == "default" ? "tokenizer.chat_template" : "tokenizer.chat_template." + name,
                  gguf::value_of(t["template"].get<std::string>())});
  }
}

// generation_config.json's sampler settings as general.sampling.* keys.
void add_generation_defaults(const json& generation, std::vector<gguf::KeyValue>& kv) {
  static constexpr zen_hf_key kRows[] = {
      {"general.sampling.temp", "temperature", ZEN_HP_F32, nullptr},
      {"general.sampling.top_k", "top_k", ZEN_HP_U32, nullptr},
      {"general.sampling.top_p", "top_p", ZEN_HP_F32, nullptr},
      {"general.sampling.min_p", "min_p", ZEN_HP_F32, nullptr},
      {"general.sampling.penalty_repeat", "repetition_penalty", ZEN_HP_F32, nullptr},
  };
  if (!generation.is_object()) return;
  const zen_hf_map map{ZEN_HDR_INIT(zen_hf_map), kRows, 5, nullptr, 0};
  try {
    for (gguf::KeyValue& e : hparams_from_config(generation, map, "")) kv.push_back(std::move(e));
  } catch (const std::runtime_error& e) {
    std::string why = e.what();
    if (why.starts_with("config.json")) why = "generation_config.json" + why.substr(11);
    throw std::runtime_error(why);
  }
}

}  // namespace

json read_json(const fs::path& file, bool optional) {
  if (optional && !fs::exists(file)) return json();
  const std::string text = read_text(file);
  if (text::json_depth(text) > text::kMaxJsonDepth)  // the recursive parser's stack
    throw std::runtime_error(file.string() + ": JSON nests deeper than " +
                             std::to_string(text::kMaxJsonDepth) + " levels");
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw std::runtime_error(file.string() + ": not valid JSON: " + e.what());
  }
}

bool is_model_directory(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && fs::is_regular_file(path / "config.json", ec);
}

Directory::Directory(fs::path dir) : dir_(std::move(dir)) {
  config_ = read_json(dir_ / "config.json", false);
  if (!config_.is_object())
    throw std::runtime_error((dir_ / "config.json").string() + ": not a JSON object");
}

std::vector<std::string> Directory::class_names() const {
  std::vector<std::string> out;
  if (const json* a = find_path(config_, "architectures").value; a && a->is_array())
    for (const json& name : *a)
      if (name.is_string()) out.push_back(name);
  if (const json* t = find_path(config_, "model_type").value; t && t->is_string())
    out.push_back(*t);
  return out;
}

gguf::File Directory::assemble(const std::string& arch, const zen_hf_map& map,
                               const quant::InSituOptions* isq) const {
  const std::string where = dir_.string() + ": ";
  try {
    std::vector<gguf::KeyValue> kv;
    kv.push_back({"general.architecture", gguf::value_of(arch)});
    kv.push_back({"general.name", gguf::value_of(fs::absolute(dir_).filename().string())});
    for (gguf::KeyValue& e : hparams_from_config(config_, map, arch)) kv.push_back(std::move(e));
    if (fs::exists(dir_ / "tokenizer.json"))
      for (gguf::KeyValue& e : tokenizer::gguf_metadata_from_hf(dir_)) kv.push_back(std::move(e));
    const json tokenizer_config = read_json(dir_ / "tokenizer_config.json", true);
    add_chat_templates(dir_, tokenizer_config, kv);
    add_generation_defaults(read_json(dir_ / "generation_config.json", true), kv);

    MappedTensors t = map_tensors(safetensors::Checkpoint::open(dir_), map, kv, arch);
    return quant::assemble_placed(std::move(t.tensors), std::move(kv), isq, std::move(t.checkpoint),
                                  dir_.string());
  } catch (const std::runtime_error& e) {  // gguf::Error and safetensors::Error are ones
    const std::string why = e.what();
    throw std::runtime_error(why.starts_with(dir_.string()) ? why : where + why);
  }
}

}  // namespace zen::hf
