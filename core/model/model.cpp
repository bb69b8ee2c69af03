#include "model/model.h"

#include <zen/plugin.hpp>

namespace zen::model {
namespace {

const ArchPlugin* find_arch(const std::string& name, std::span<const ArchPlugin> archs) {
  for (const ArchPlugin& a : archs)
    for (uint32_t i = 0; i < a.table->n_names; ++i)
      if (a.table->names[i] && name == a.table->names[i]) return &a;
  return nullptr;
}

}  // namespace

Model::Model(std::shared_ptr<const ModelFile> file, std::span<const ArchPlugin> archs)
    : file_(std::move(file)) {
  const std::string& name = file_->architecture();
  const ArchPlugin* a = find_arch(name, archs);
  if (!a) {
    std::string known;
    for (const ArchPlugin& x : archs)
      for (uint32_t i = 0; i < x.table->n_names; ++i)
        known += (known.empty() ? "" : ", ") + std::string(x.table->names[i]);
    throw Error(ZEN_ERR_UNSUPPORTED, file_->path() + ": no architecture plugin for '" + name +
                                         "' (loaded: " + (known.empty() ? "none" : known) + ")");
  }
  arch_ = *a;
  char err[512] = "";
  zen_status st = arch_.table->load(file_->handle(), &state_, err, sizeof err);
  if (st != ZEN_OK || !state_)
    throw Error(st == ZEN_OK ? ZEN_ERR_INTERNAL : st,
                file_->path() + ": " + arch_.plugin + ": " + (err[0] ? err : "load failed"));
  if (ZEN_HAS_MEMBER(arch_.table, zen_arch_v1, model_kind))
    kind_ = static_cast<zen_model_kind>(arch_.table->model_kind);
  if (ZEN_HAS_MEMBER(arch_.table, zen_arch_v1, loaded_kind) && arch_.table->loaded_kind)
    kind_ = static_cast<zen_model_kind>(arch_.table->loaded_kind(state_));
  const char* abi_gap = nullptr;
  if (kind_ != ZEN_MODEL_DECODER && kind_ != ZEN_MODEL_ENCODER &&
      kind_ != ZEN_MODEL_MEDIA_ENCODER && kind_ != ZEN_MODEL_PIPELINE)
    abi_gap = "declares a model kind this host does not know (zen_arch_v1.model_kind)";
  else if (kind_ == ZEN_MODEL_PIPELINE && (!ZEN_HAS_MEMBER(arch_.table, zen_arch_v1, run) ||
                                           !arch_.table->run || !arch_.table->pipeline_tasks))
    abi_gap = "is a pipeline without run() or the tasks it answers (zen_arch_v1.run, ABI 1.5)";
  else if (kind_ == ZEN_MODEL_DECODER &&
           (!ZEN_HAS_MEMBER(arch_.table, zen_arch_v1, cache_rows) || !arch_.table->cache_rows))
    abi_gap = "does not describe its KV cache (zen_arch_v1.cache_rows, ABI 1.1)";
  if (abi_gap) {
    arch_.table->unload(state_);
    throw Error(ZEN_ERR_ABI, arch_.plugin + ": the plugin " + abi_gap);
  }
  for (uint32_t il = 0; kind_ == ZEN_MODEL_DECODER; ++il) {
    KvLayer l;
    if (arch_.table->cache_rows(state_, il, &l.k_row, &l.v_row) != ZEN_OK) break;
    kv_layers_.push_back(l);
  }
  if (auto n = file_->gguf().find_int<uint32_t>(file_->key("{arch}.context_length")))
    n_ctx_train_ = *n;
}

void Model::expect_kind(zen_model_kind want) const {
  if (kind_ == want) return;
  const char* what = "";
  switch (kind_) {
    case ZEN_MODEL_ENCODER:
      what = " is an encoder: it makes embeddings, not text (zen-engine embed)";
      break;
    case ZEN_MODEL_MEDIA_ENCODER:
      what =
          " is an image/audio encoder: it makes a decoder's input rows, not text (zen-engine "
          "embed --media)";
      break;
    case ZEN_MODEL_PIPELINE:
      what = " is a pipeline (images or speech), not a text model";
      break;
    default:
      what = want == ZEN_MODEL_ENCODER ? " is not an encoder: it makes text, not embeddings"
                                       : " is a text model, not this kind of model";
      break;
  }
  throw Error(ZEN_ERR_INVALID_ARG, file_->path() + what);
}

std::optional<graph::WeightInfo> Model::weight(std::string_view name) const {
  const gguf::TensorInfo* t = file_->gguf().find_tensor(name);
  if (!t) return std::nullopt;
  graph::WeightInfo w;
  w.type = t->type;
  for (size_t i = 0; i < w.ne.size(); ++i) w.ne[i] = static_cast<int64_t>(t->ne[i]);
  // The mapping is read-only and no kernel writes a weight.
  w.where.host = const_cast<uint8_t*>(t->data);
  return w;
}

std::pair<graph::Graph, int64_t> Model::build_graph(const zen_batch& shape,
                                                    const graph::WeightResolver& resolve,
                                                    const char* output, const char* width_name,
                                                    uint32_t n_columns,
                                                    const graph::MatmulHook& on_matmul) const {
  graph::Graph g;
  graph::Builder b(g, resolve, on_matmul);
  char err[1024] = "";
  const zen_status st = arch_.table->build_graph(state_, b.handle(), &shape, err, sizeof err);
  if (st != ZEN_OK)
    throw Error(st, arch_.plugin + ": building the graph: " +
                        (err[0]                 ? err
                         : b.last_error.empty() ? "failed"
                                                : b.last_error));
  if (!output) return {std::move(g), 0};  // a pipeline's stage: its outputs are its own
  const graph::TensorId out = g.find(output);
  if (out == graph::kNoTensor || !(g.tensor(out).flags & ZEN_TENSOR_OUTPUT))
    throw Error(ZEN_ERR_INTERNAL,
                arch_.plugin + ": the graph has no \"" + std::string(output) + "\" output");
  const graph::Tensor& t = g.tensor(out);
  if (t.type != ZEN_TYPE_F32 || (n_columns != kAnyColumns && t.ne[1] != n_columns) ||
      t.ne[2] != 1 || t.ne[3] != 1)
    throw Error(ZEN_ERR_INTERNAL,
                arch_.plugin + ": \"" + output + "\" is " + graph::describe(t) +
                    ", expected F32 [" + width_name + ", " +
                    (n_columns == kAnyColumns ? std::string("rows") : std::to_string(n_columns)) +
                    "]");
  const int64_t width = t.ne[0];
  return {std::move(g), width};
}

Model::~Model() {
  if (state_) arch_.table->unload(state_);
}

}  // namespace zen::model
