// `zen-engine pull`: fetch a model into the store from a path, an http(s) URL, the Hugging Face
// Hub or an Ollama registry. The file is written as NAME.partial, hashed while written,
// verified (--sha256, the Ollama layer digest, the Hub's announced sha256), checked to be a
// GGUF, and only then renamed to NAME.gguf: the store never holds a half or wrong file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

#include "store/http_client.h"
#include "store/sources.h"

namespace zen::store {

struct PullOptions {
  std::optional<std::string> name;    // else the source's default name
  std::optional<std::string> sha256;  // expected digest (64 hex)
  bool force = false;                 // fetch again although NAME is in the store
  bool interactive_progress = false;  // redraw a bar (stderr is a TTY)
  HttpOptions http;
  SourceEndpoints endpoints;
};

struct PullResult {
  std::string name;
  std::filesystem::path path;
  uint64_t size = 0;
  std::string sha256;            // empty when already_present or for a repository
  uint32_t files = 1;            // a repository's files fetched
  bool verified = false;         // checked against an expected digest
  bool already_present = false;  // nothing fetched
};

// Progress and notes go to `log` (stderr). Throws zen::Error with one clear line.
PullResult pull(const std::string& source, const std::filesystem::path& dir,
                const PullOptions& options, std::ostream& log);

}  // namespace zen::store
