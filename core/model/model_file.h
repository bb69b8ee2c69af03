// A model file as architecture plugins see it: the parsed GGUF behind the C "model" API
// (zen_model_api in sdk/include/zen/arch.h). A zen_model* handed to a plugin is a ModelFile*.
#pragma once

#include <string>
#include <string_view>

#include <zen/arch.h>

#include "gguf/gguf.h"

namespace zen::model {

class ModelFile {
 public:
  // Maps and validates the GGUF; errors name the path.
  explicit ModelFile(const std::string& path);

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
