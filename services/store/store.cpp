#include "store/store.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>
#include <system_error>

#include <zen/plugin.hpp>

#include "gguf/gguf.h"
#include "gguf/text.h"
#include "safetensors/checkpoint.h"
#include "store/model_summary.h"

namespace zen::store {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxNameBytes = 200;
constexpr std::string_view kModelSuffix = ".gguf";
constexpr std::string_view kPartialSuffix = ".partial";

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// The reader's messages start with the path; in a listing the path is already shown.
std::string without_path_prefix(const std::string& message, const fs::path& path) {
  std::string prefix = path.string() + ": ";
  return message.starts_with(prefix) ? message.substr(prefix.size()) : message;
}

// Why `base` (a name without ".gguf") cannot name a file in the store, or "".
std::string name_problem(const std::string& base) {
  if (base.empty()) return "empty";
  if (base.size() > kMaxNameBytes) return "longer than " + std::to_string(kMaxNameBytes) + " bytes";
  if (base.find_first_of("/\\") != std::string::npos)
    return "a name is not a path (no '/' or '\\')";
  if (base.find("..") != std::string::npos) return "'..' is not allowed";
  if (base.front() == '.') return "must not start with '.'";
  if (std::any_of(base.begin(), base.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    return "control characters and NUL are not allowed";
  if (base.ends_with(kPartialSuffix)) return "'.partial' is reserved for downloads";
  return "";
}

// A Hugging Face directory (pull hf://owner/repo): its class from config.json and the weight
// type holding the most bytes, read from the validated safetensors headers.
StoreEntry describe_directory(const fs::path& dir) {
  StoreEntry e;
  e.path = dir;
  e.name = dir.filename().string();
  std::error_code ec;
  for (const fs::directory_entry& f : fs::directory_iterator(dir, ec)) e.size += f.file_size(ec);
  try {
    std::ifstream in(dir / "config.json");
    const nlohmann::json config = nlohmann::json::parse(in);
    const nlohmann::json archs = config.value("architectures", nlohmann::json::array());
    e.architecture = !archs.empty() && archs[0].is_string() ? archs[0].get<std::string>()
                                                            : config.value("model_type", "?");
    std::map<std::string, uint64_t> bytes;
    for (const safetensors::Tensor* t : safetensors::Checkpoint::open(dir).tensors())
      bytes[safetensors::dtype_name(t->dtype)] += t->data.size();
    e.quant =
        bytes.empty() ? "?" : std::max_element(bytes.begin(), bytes.end(), [](auto& a, auto& b) {
                                return a.second < b.second;
                              })->first;
  } catch (const std::exception& ex) {
    e.error = gguf::to_valid_utf8(without_path_prefix(ex.what(), dir));
  }
  return e;
}

bool is_model_directory(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p / "config.json", ec);
}

StoreEntry describe(const fs::directory_entry& entry) {
  StoreEntry e;
  e.path = entry.path();
  e.name = e.path.stem().string();
  std::error_code ec;
  e.size = entry.file_size(ec);
  try {
    gguf::File file = gguf::File::open(e.path.string());
    ModelSummary summary = summarize(file);
    e.architecture = summary.architecture;
    e.quant = summary.quant;
  } catch (const std::exception& ex) {
    e.error = gguf::to_valid_utf8(without_path_prefix(ex.what(), e.path));
  }
  return e;
}

}  // namespace

fs::path models_dir() {
  if (std::string dir = env("ZEN_MODELS_DIR"); !dir.empty()) return dir;
  if (std::string cache = env("XDG_CACHE_HOME"); !cache.empty())
    return fs::path(cache) / "zen-engine" / "models";
  std::string home = env("HOME");
  if (home.empty())
    throw Error(ZEN_ERR_NOT_FOUND,
                "no model store: set ZEN_MODELS_DIR (neither XDG_CACHE_HOME nor HOME is set)");
  return fs::path(home) / ".cache" / "zen-engine" / "models";
}

std::string checked_name(const std::string& name) {
  std::string base = name;
  if (base.ends_with(kModelSuffix)) base.resize(base.size() - kModelSuffix.size());
  if (std::string why = name_problem(base); !why.empty())
    throw Error(ZEN_ERR_INVALID_ARG, "invalid model name " + gguf::quote(name) + ": " + why);
  return base;
}

fs::path model_path(const fs::path& dir, const std::string& name) {
  return dir / (name + std::string(kModelSuffix));
}

fs::path partial_path(const fs::path& dir, const std::string& name) {
  return dir / (name + std::string(kPartialSuffix));
}

fs::path resolve(const std::string& name_or_path) {
  std::error_code ec;
  if (!name_or_path.empty() && name_or_path.find('\0') == std::string::npos &&
      (fs::is_regular_file(name_or_path, ec) ||
       fs::is_regular_file(fs::path(name_or_path) / "config.json", ec)))
    return name_or_path;  // a GGUF file, or a Hugging Face model directory
  fs::path dir = models_dir();
  std::string name;
  try {
    name = checked_name(name_or_path);
  } catch (const Error&) {
    // Not a store name (a path that does not exist, "..", ...): reported as not found below.
  }
  if (!name.empty()) {
    fs::path path = model_path(dir, name);
    if (fs::is_regular_file(path, ec)) return path;
    if (is_model_directory(dir / name)) return dir / name;
  }
  throw Error(ZEN_ERR_NOT_FOUND, "model " + gguf::quote(name_or_path) +
                                     " not found (not a file, not in " + dir.string() +
                                     "; try `zen-engine pull`)");
}

std::vector<StoreEntry> list_models(const fs::path& dir) {
  std::vector<StoreEntry> entries;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return entries;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const fs::path& p = entry.path();
    if (p.extension() != kPartialSuffix && is_model_directory(p)) {
      entries.push_back(describe_directory(p));
      continue;
    }
    if (p.extension() != kModelSuffix || !entry.is_regular_file(ec)) continue;
    if (p.stem().string().empty() || p.filename().string().front() == '.') continue;
    entries.push_back(describe(entry));
  }
  std::sort(entries.begin(), entries.end(),
            [](const StoreEntry& a, const StoreEntry& b) { return a.name < b.name; });
  return entries;
}

std::vector<std::string> list_partials(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return names;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == kPartialSuffix) names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<fs::path> remove_model(const fs::path& dir, const std::string& name) {
  std::string checked = checked_name(name);
  fs::path model = model_path(dir, checked), partial = partial_path(dir, checked);
  std::error_code ec;
  std::vector<fs::path> removed;
  for (const fs::path& d : {dir / checked, partial}) {  // a repository and its download
    if (!fs::is_directory(fs::symlink_status(d, ec)) || (d != partial && !is_model_directory(d)))
      continue;
    if (fs::remove_all(d, ec) == static_cast<std::uintmax_t>(-1) || ec)
      throw Error(ZEN_ERR_IO, "cannot remove " + d.string() + ": " + ec.message());
    removed.push_back(d);
  }
  if (removed.empty() && !fs::is_regular_file(model, ec) && !fs::is_regular_file(partial, ec))
    throw Error(ZEN_ERR_NOT_FOUND, "model " + gguf::quote(checked) + " is not in " + dir.string());
  for (const fs::path& p : {model, partial, fs::path(partial.string() + ".json")}) {
    fs::file_status status = fs::symlink_status(p, ec);  // a symlinked model: remove the link
    if (!fs::exists(status) || fs::is_directory(status)) continue;
    if (!fs::remove(p, ec))
      throw Error(ZEN_ERR_IO, "cannot remove " + p.string() + ": " + ec.message());
    removed.push_back(p);
  }
  return removed;
}

}  // namespace zen::store
