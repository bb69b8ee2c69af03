#include "store/store.h"

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include <zen/plugin.hpp>

#include "gguf/text.h"

namespace zen::store {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxNameBytes = 200;

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
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

}  // namespace

bool is_model_directory(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p / "config.json", ec);
}

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

}  // namespace zen::store
