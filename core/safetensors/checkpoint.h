// A safetensors checkpoint as Hugging Face publishes it: one file, or a directory with
// model.safetensors (one file) or model.safetensors.index.json and the shards its "weight_map"
// names. Every shard is validated (safetensors/file.h); the index must list every tensor of
// every shard and nothing else, each in the shard that holds it, shard names must be plain
// file names in the directory (no paths), and no tensor may live in two shards.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "safetensors/file.h"

namespace zen::safetensors {

class Checkpoint {
 public:
  // Throws Error naming the file and the problem.
  static Checkpoint open(const std::filesystem::path& path, const Limits& limits = {});

  const Tensor* find(std::string_view name) const;
  // Every tensor, shard by shard in the index's order, each shard's in header order.
  std::vector<const Tensor*> tensors() const;
  const std::vector<std::filesystem::path>& files() const { return paths_; }
  // The index's "metadata" values that are numbers or strings (total_size, ...), and each
  // shard's __metadata__ (the first shard's for a key they share).
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

 private:
  std::vector<File> files_;
  std::vector<std::filesystem::path> paths_;
  std::map<std::string, const Tensor*, std::less<>> index_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace zen::safetensors
