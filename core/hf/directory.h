// A model as Hugging Face publishes it: a directory with config.json, safetensors shards
// (model.safetensors or model.safetensors.index.json) and, usually, tokenizer.json,
// tokenizer_config.json and generation_config.json. assemble() turns it into the GGUF view the
// engine reads (gguf::File::assemble): the plugin's hyperparameter and tensor rows, the
// tokenizer as GGUF tokenizer.ggml.* keys, the chat template, and the generation defaults as
// general.sampling.* keys (the keys llama.cpp's converter writes for them).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <zen/arch.h>
#include <nlohmann/json.hpp>

#include "gguf/gguf.h"
#include "quant/in_situ.h"

namespace zen::hf {

// True when `path` is a directory holding config.json.
bool is_model_directory(const std::filesystem::path& path);

class Directory {
 public:
  // Reads config.json; std::runtime_error naming the file when it is missing or malformed.
  explicit Directory(std::filesystem::path dir);

  const std::filesystem::path& path() const { return dir_; }
  // The names a plugin may answer to: config.json's "architectures", then its "model_type".
  std::vector<std::string> class_names() const;
  // The model for the plugin named `arch` (its general.architecture) with rows `map`,
  // quantized as it loads when `isq` is given.
  gguf::File assemble(const std::string& arch, const zen_hf_map& map,
                      const quant::InSituOptions* isq = nullptr) const;

 private:
  std::filesystem::path dir_;
  nlohmann::json config_;
};

// A JSON file of the directory, parsed strictly; std::runtime_error naming it otherwise.
// nullopt-like: an empty JSON (null) when the file does not exist and `optional`.
nlohmann::json read_json(const std::filesystem::path& file, bool optional);

}  // namespace zen::hf
