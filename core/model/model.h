// A loaded model: the GGUF file bound to the architecture plugin that answers to its
// general.architecture, with the plugin's per-model state. Weights stay in the mapped file
// (zero copy); a Context adds the KV cache and runs batches of a decoder, an Encoder runs an
// encoder's.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <zen/arch.h>

#include "graph/builder.h"
#include "model/kv_cache.h"
#include "model/model_file.h"

namespace zen::model {

class Model {
 public:
  // Picks the plugin whose names include the file's general.architecture and loads the model
  // through it; errors name the file and, when no plugin answers, the architectures known.
  Model(std::shared_ptr<const ModelFile> file, std::span<const ArchPlugin> archs);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const ModelFile& file() const { return *file_; }
  const ArchPlugin& arch() const { return arch_; }
  // A decoder runs in a Context (logits over a KV cache), an encoder in an Encoder (pooled
  // embeddings).
  zen_model_kind kind() const { return kind_; }
  // Throws "<file> is an encoder: it makes embeddings, not text" (or the converse) unless the
  // model is of kind `want`.
  void expect_kind(zen_model_kind want) const;
  zen_arch_model* state() const { return state_; }
  // The per-layer cache rows the architecture asks for.
  const std::vector<KvLayer>& kv_layers() const { return kv_layers_; }
  // A weight's type, shape and bytes in the mapped file, for a graph builder; nullopt when the
  // file has no tensor of that name.
  std::optional<graph::WeightInfo> weight(std::string_view name) const;
  // The architecture's graph for `shape` (leaves found through `resolve`) and the width of its
  // output `output`, which must be F32 [width, n_columns] ("logits" of a decoder, "embeddings"
  // of an encoder; `width_name` words the message). Throws naming the plugin otherwise. With
  // output NULL (a pipeline's stage) nothing is checked and the width is 0.
  // n_columns for an output whose column count the graph decides (a media encoder's rows).
  static constexpr uint32_t kAnyColumns = UINT32_MAX;
  // `on_matmul` sees every matmul by a weight (LoRA).
  std::pair<graph::Graph, int64_t> build_graph(const zen_batch& shape,
                                               const graph::WeightResolver& resolve,
                                               const char* output, const char* width_name,
                                               uint32_t n_columns,
                                               const graph::MatmulHook& on_matmul = {}) const;
  // The plugin's Hugging Face rows (PEFT adapters' names), or NULL.
  const zen_hf_map* hf_map() const {
    return ZEN_HAS_MEMBER(arch_.table, zen_arch_v1, hf) ? arch_.table->hf : nullptr;
  }
  // {arch}.context_length, or 0 when the file does not say.
  uint32_t n_ctx_train() const { return n_ctx_train_; }

 private:
  std::shared_ptr<const ModelFile> file_;
  ArchPlugin arch_;
  zen_arch_model* state_ = nullptr;
  std::vector<KvLayer> kv_layers_;
  uint32_t n_ctx_train_ = 0;
  zen_model_kind kind_ = ZEN_MODEL_DECODER;
};

}  // namespace zen::model
