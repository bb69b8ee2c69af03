#include "safetensors/checkpoint.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <zen/json_depth.hpp>

namespace zen::safetensors {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr uint64_t kMaxIndexBytes = uint64_t{64} << 20;

json read_index(const fs::path& path) {
  std::error_code ec;
  const uint64_t size = fs::file_size(path, ec);
  if (ec) throw Error(path.string() + ": cannot read: " + ec.message());
  if (size > kMaxIndexBytes) throw Error(path.string() + ": larger than 64 MiB");
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  if (text::json_depth(s) > 8) throw Error(path.string() + ": nests deeper than 8 levels");
  json index = json::parse(s, nullptr, /*allow_exceptions=*/false);
  if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
    throw Error(path.string() + ": not an index (an object with a \"weight_map\" object)");
  return index;
}

// A shard name from the index: a plain file name in the directory, nothing that leaves it.
fs::path shard_path(const fs::path& dir, const std::string& name, const fs::path& index) {
  const fs::path p(name);
  if (name.empty() || p.has_parent_path() || p.is_absolute() || name == "." || name == "..")
    throw Error(index.string() + ": shard name '" + name + "' is not a file name in the directory");
  return dir / p;
}

}  // namespace

Checkpoint Checkpoint::open(const fs::path& path, const Limits& limits) {
  Checkpoint c;
  fs::path index_path;
  if (fs::is_directory(path)) {
    index_path = path / "model.safetensors.index.json";
    if (!fs::exists(index_path)) {
      index_path.clear();
      if (!fs::exists(path / "model.safetensors"))
        throw Error(path.string() +
                    ": no model.safetensors or model.safetensors.index.json in the directory");
      c.paths_.push_back(path / "model.safetensors");
    }
  } else {
    c.paths_.push_back(path);
  }

  std::map<std::string, std::string> wanted;  // tensor -> shard, from the index
  if (!index_path.empty()) {
    const json index = read_index(index_path);
    for (const auto& [tensor, shard] : index["weight_map"].items()) {
      if (!shard.is_string())
        throw Error(index_path.string() + ": weight_map['" + tensor + "'] is not a file name");
      const std::string name = shard.get<std::string>();
      wanted[tensor] = name;
      const fs::path p = shard_path(path, name, index_path);
      if (std::find(c.paths_.begin(), c.paths_.end(), p) == c.paths_.end()) c.paths_.push_back(p);
    }
    if (index.contains("metadata") && index["metadata"].is_object())
      for (const auto& [key, value] : index["metadata"].items())
        if (value.is_string() || value.is_number())
          c.metadata_[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }

  for (const fs::path& p : c.paths_) c.files_.push_back(File::open(p.string(), limits));
  for (size_t i = 0; i < c.files_.size(); ++i) {
    const std::string shard = c.paths_[i].filename().string();
    for (const Tensor& t : c.files_[i].tensors()) {
      if (!c.index_.emplace(t.name, &t).second)
        throw Error(c.paths_[i].string() + ": tensor '" + t.name + "' is in another shard too");
      if (index_path.empty()) continue;
      auto it = wanted.find(t.name);
      if (it == wanted.end())
        throw Error(c.paths_[i].string() + ": tensor '" + t.name + "' is not in the index");
      if (it->second != shard)
        throw Error(index_path.string() + ": '" + t.name + "' is listed in " + it->second +
                    " but lives in " + shard);
    }
    for (const auto& [key, value] : c.files_[i].metadata()) c.metadata_.emplace(key, value);
  }
  for (const auto& [tensor, shard] : wanted)
    if (!c.index_.count(tensor))
      throw Error(index_path.string() + ": '" + tensor + "' is listed in " + shard +
                  ", which does not hold it");
  return c;
}

const Tensor* Checkpoint::find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : it->second;
}

std::vector<const Tensor*> Checkpoint::tensors() const {
  std::vector<const Tensor*> all;
  for (const File& f : files_)
    for (const Tensor& t : f.tensors()) all.push_back(&t);
  return all;
}

}  // namespace zen::safetensors
