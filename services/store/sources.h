// What `zen-engine pull SRC` fetches: a local file, an http(s) URL, a Hugging Face Hub file
// (hf://owner/repo/path/file.gguf[@revision]) or repository (hf://owner/repo[@revision]) or an
// Ollama registry model (ollama://[namespace/]name[:tag]), turned into URLs and a default store
// name. Pure string work, no I/O, so every form is unit-tested.
#pragma once

#include <filesystem>
#include <string>

namespace zen::store {

enum class SourceKind { kLocalFile, kUrl, kHuggingFace, kHuggingFaceRepo, kOllama };

struct SourceEndpoints {
  std::string hugging_face = "https://huggingface.co";
  std::string ollama = "https://registry.ollama.ai";
};

// $ZEN_HF_ENDPOINT and $ZEN_OLLAMA_ENDPOINT over the defaults.
SourceEndpoints endpoints_from_environment();

struct Source {
  SourceKind kind = SourceKind::kLocalFile;
  std::filesystem::path path;  // kLocalFile
  // kUrl, kHuggingFace: the file. kOllama: the manifest; the blob is blob_url_prefix + digest.
  // kHuggingFaceRepo: the Hub API's file listing; a file is blob_url_prefix + its name.
  std::string url;
  std::string blob_url_prefix;
  std::string default_name;  // may be empty for a URL without a file name (then --name)
};

// Throws zen::Error (invalid argument) naming the source and the expected form.
Source parse_source(const std::string& text, const SourceEndpoints& endpoints);

}  // namespace zen::store
