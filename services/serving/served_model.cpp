#include "served_model.h"

#include <sys/stat.h>

#include <cstdio>

#include <zen/task.h>

#include "api_error.h"
#include "chat_template.h"
#include "store/model_summary.h"

namespace zen::serving {
namespace {

int64_t file_mtime(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_mtime) : 0;
}

}  // namespace

ServedModel::ServedModel(std::string id, const std::string& path,
                         const host::PluginRegistry& plugins, const host::Config& config,
                         const ModelOptions& options)
    : id_(std::move(id)) {
  model::ContextParams params;
  params.n_ctx = options.n_ctx;
  params.gather_kv = options.engine.deterministic;
  loaded_ = std::make_unique<host::LoadedModel>(plugins, config, path, params);
  const model::ModelFile& file = loaded_->file();
  info_.architecture = file.architecture();
  info_.quant = store::summarize(file.gguf()).quant;  // as `zen-engine list` shows it
  info_.path = path;
  for (const gguf::TensorInfo& t : file.gguf().tensors()) info_.n_params += t.n_elements;
  info_.created = file_mtime(path);
  sampling_defaults_ = SamplingDefaults::from(file.gguf());
  if (loaded_->model().kind() == ZEN_MODEL_PIPELINE) {
    pipeline_ = std::make_unique<model::Pipeline>(loaded_->model(), loaded_->devices());
    return;
  }
  if (loaded_->model().kind() == ZEN_MODEL_ENCODER) {
    info_.n_ctx = loaded_->encoder().max_tokens();
    try {  // token ids still work without one
      tokenizer_ =
          std::make_unique<tokenizer::Tokenizer>(tokenizer::Tokenizer::from_gguf(file.gguf()));
    } catch (const std::exception& e) {
      tokenizer_error_ = e.what();
    }
    embedder_ = std::make_unique<Embedder>(id_, loaded_->encoder(), tokenizer_.get(),
                                           read_embedding_profile(file.gguf(), info_.architecture));
    return;
  }
  tokenizer_ = std::make_unique<tokenizer::Tokenizer>(tokenizer::Tokenizer::from_gguf(file.gguf()));
  eog_ = tokenizer_->eog_ids();

  template_source_ = chat_template_source(file);
  try {
    template_ = std::make_unique<tmpl::Template>(tmpl::Template::parse(template_source_));
  } catch (const std::exception& e) {
    template_error_ = e.what();
  }

  tool_format_ = chat::detect_tool_format(template_source_, file.architecture());
  template_has_reasoning_ = chat::template_has_reasoning(template_source_);

  engine_ = std::make_unique<engine::Engine>(loaded_->context(), options.engine);
  info_.n_ctx = engine_->n_ctx_per_seq();
}

std::vector<std::string> ServedModel::lora_summary() const {
  std::vector<std::string> lines;
  if (!engine_) return lines;
  const model::ContextParams& p = loaded_->context().params();
  for (size_t i = 0; i < p.lora.size(); ++i) {
    char line[512];
    std::snprintf(line, sizeof line, "LoRA %zu '%s' (%s, %zu matrices, %.2f MiB), default scale %g",
                  i, p.lora[i]->name.c_str(), p.lora[i]->format.c_str(), p.lora[i]->pairs.size(),
                  static_cast<double>(p.lora[i]->bytes()) / (1 << 20),
                  static_cast<double>(p.lora_scale[i]));
    lines.push_back(line);
  }
  return lines;
}

std::vector<float> ServedModel::lora_scales(
    const std::optional<std::vector<task::GenerateRequest::LoraPick>>& picks) const {
  if (!picks) return {};
  const lora::Adapters& loaded = loaded_->context().params().lora;
  std::string names;
  for (const auto& a : loaded) names += (names.empty() ? "" : ", ") + a->name;
  std::vector<float> scales(loaded.size(), 0.0f);
  for (const task::GenerateRequest::LoraPick& p : *picks) {
    size_t i = 0;
    while (i < loaded.size() &&
           (p.id >= 0 ? static_cast<size_t>(p.id) != i : loaded[i]->name != p.name))
      ++i;
    if (i == loaded.size())
      throw ApiError::invalid("lora",
                              "model '" + id_ + "' has no LoRA adapter " +
                                  (p.id >= 0 ? std::to_string(p.id) : "'" + p.name + "'") +
                                  (loaded.empty() ? " (it was started without --lora)"
                                                  : " (loaded: " + names + ", ids from 0)"));
    scales[i] = p.scale;
  }
  return scales;
}

const tokenizer::Tokenizer& ServedModel::tokenizer() const {
  if (!tokenizer_)
    throw ApiError::invalid("model", "model '" + id_ + "' has no tokenizer this server reads (" +
                                         tokenizer_error_ + "): send token ids");
  return *tokenizer_;
}

uint32_t ServedModel::task_kinds() const {
  if (pipeline_) return pipeline_->tasks();
  return embedder_ ? embedder_->task_kinds() : static_cast<uint32_t>(ZEN_TASK_GENERATE);
}

void ServedModel::check_generates() const {
  if (is_encoder())
    throw ApiError::invalid(
        "model", "model '" + id_ + "' is an embedding model: it answers " +
                     (embedder_->profile().reranker() ? "/v1/rerank" : "/v1/embeddings") +
                     ", not generation");
  if (pipeline_)
    throw ApiError::invalid("model",
                            "model '" + id_ + "' is an image or speech model, not a text model");
}

namespace {

// Runs one pipeline request, its failures as the ApiErrors a request ends with.
template <class F>
void run_pipeline(const model::Pipeline* p, uint32_t task, const std::string& id, std::mutex& mu,
                  F&& f) {
  if (!p || !(p->tasks() & task))
    throw ApiError::invalid("model", "model '" + id + "' does not make " +
                                         (task == ZEN_TASK_IMAGE ? "images" : "speech"));
  std::lock_guard lock(mu);
  try {
    f();
  } catch (const Error& e) {
    if (e.status == ZEN_ERR_CANCELLED) throw ApiError::unavailable(e.message, "cancelled");
    if (e.status == ZEN_ERR_INVALID_ARG) throw ApiError::invalid("", e.message);
    throw;
  }
}

}  // namespace

void ServedModel::image(const zen_image_request& request, zen_image_cb cb, void* user,
                        const std::atomic<bool>& cancel) {
  run_pipeline(pipeline_.get(), ZEN_TASK_IMAGE, id_, pipeline_mu_,
               [&] { pipeline_->image(request, cb, user, &cancel); });
}

void ServedModel::speech(const zen_speech_request& request, zen_speech_cb cb, void* user,
                         const std::atomic<bool>& cancel) {
  run_pipeline(pipeline_.get(), ZEN_TASK_SPEECH, id_, pipeline_mu_,
               [&] { pipeline_->speech(request, cb, user, &cancel); });
}

engine::Engine& ServedModel::engine() {
  check_generates();
  return *engine_;
}

const engine::Engine& ServedModel::engine() const {
  return const_cast<ServedModel*>(this)->engine();
}

Embedder& ServedModel::embedder() {
  if (!embedder_)
    throw ApiError::invalid(
        "model", "model '" + id_ + "' is a text generation model: it makes no embeddings");
  return *embedder_;
}

ServedModel::~ServedModel() {
  if (engine_) engine_->stop();
  engine_.reset();
}

const tmpl::Template& ServedModel::chat_template() const {
  if (!template_)
    throw ApiError::internal("the chat template of model '" + id_ +
                             "' cannot be parsed: " + template_error_);
  return *template_;
}

}  // namespace zen::serving
