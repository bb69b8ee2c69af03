// A model file as architecture plugins see it: the parsed GGUF behind the C "model" API
// (zen_model_api in sdk/include/zen/arch.h). A zen_model* handed to a plugin is a ModelFile*.
// A Hugging Face directory is assembled into the same GGUF view (core/hf) through the rows of
// the plugin that answers to its config.json, so nothing downstream tells the two apart.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <zen/arch.h>

#include "gguf/gguf.h"
#include "quant/in_situ.h"

namespace zen::model {

// An architecture plugin's table, with the name its plugin registered under (for messages).
struct ArchPlugin {
  std::string plugin;
  const zen_arch_v1* table = nullptr;
};

class ModelFile {
 public:
  // Maps and validates the GGUF; errors name the path.
  explicit ModelFile(const std::string& path);
  // A GGUF file, or a Hugging Face model directory (config.json and safetensors) assembled for
  // the plugin among `archs` that answers to its architecture; quantized as it loads when
  // `isq` is given (quant/in_situ.h). Errors name the path.
  static std::shared_ptr<const ModelFile> open(const std::string& path,
                                               std::span<const ArchPlugin> archs,
                                               const quant::InSituOptions* isq = nullptr);
  ModelFile(std::string path, gguf::File file);

  const std::string& path() const { return path_; }
  const gguf::File& gguf() const { return file_; }
  // general.architecture ("llama", "qwen3", ...).
  const std::string& architecture() const { return arch_; }
  // Replaces a leading "{arch}" with the architecture: "{arch}.block_count".
  std::string key(std::string_view k) const;

  const zen_model* handle() const { return reinterpret_cast<const zen_model*>(this); }
  static const ModelFile& from(const zen_model* m) {
    return *reinterpret_cast<const ModelFile*>(m);
  }
  // The table behind handle(); valid for the process lifetime.
  static const zen_model_api* api();

 private:
  std::string path_;
  gguf::File file_;
  std::string arch_;
};

}  // namespace zen::model
