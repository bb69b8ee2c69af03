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

// The reader's messages start with the path; in a listing the path is already shown.
std::string without_path_prefix(const std::string& message, const fs::path& path) {
  std::string prefix = path.string() + ": ";
  return message.starts_with(prefix) ? message.substr(prefix.size()) : message;
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
