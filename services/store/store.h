// The model store: a directory of NAME.gguf files and NAME/ Hugging Face directories (pulled
// with hf://owner/repo) that `serve -m NAME`, `run -m NAME` and the pull/list/rm commands share.
// Names are contained to the store: a name is one file-name component, never a path.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zen::store {

// Names and paths (names.cpp, library zen_store_names: what loading a model by name needs,
// without the HTTP client); listing and removal (store.cpp, in zen_store).
inline constexpr std::string_view kModelSuffix = ".gguf";
inline constexpr std::string_view kPartialSuffix = ".partial";

// $ZEN_MODELS_DIR, else $XDG_CACHE_HOME/zen-engine/models, else ~/.cache/zen-engine/models.
std::filesystem::path models_dir();

// A name in the store ("gemma-3-270m-q4_k_m" or with ".gguf"), a path to a file, or a path to
// a directory with a config.json; throws
// zen::Error "model 'x' not found (not a file, not in <dir>; try `zen-engine pull`)".
std::filesystem::path resolve(const std::string& name_or_path);

// The store name for `name` with any ".gguf" suffix dropped; throws zen::Error (invalid
// argument) for an empty name, a path ('/', '\\', ".."), a leading '.', control characters
// or NUL, or more than 200 bytes.
std::string checked_name(const std::string& name);

// A directory holding a config.json: a Hugging Face model directory.
bool is_model_directory(const std::filesystem::path& path);

// Where a checked name's file, and its download in progress, live.
std::filesystem::path model_path(const std::filesystem::path& dir, const std::string& name);
std::filesystem::path partial_path(const std::filesystem::path& dir, const std::string& name);

struct StoreEntry {
  std::string name;
  std::filesystem::path path;
  uint64_t size = 0;
  // From the GGUF header (a directory: config.json's class and the safetensors type holding the
  // most bytes); `error` is set instead when the model is not valid.
  std::string architecture, quant;
  std::optional<std::string> error;
};

// The store's models, sorted by name (an absent directory is an empty store).
std::vector<StoreEntry> list_models(const std::filesystem::path& dir);
// Names of downloads left incomplete (NAME.partial), to resume with `pull`.
std::vector<std::string> list_partials(const std::filesystem::path& dir);

// Deletes NAME.gguf or the directory NAME/, and any partial download of it; returns what was
// removed. Throws
// zen::Error (not found) "model 'x' is not in <dir>" when there is neither.
std::vector<std::filesystem::path> remove_model(const std::filesystem::path& dir,
                                                const std::string& name);

}  // namespace zen::store
