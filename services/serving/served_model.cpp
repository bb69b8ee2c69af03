#include "served_model.h"

#include <sys/stat.h>

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

  info_.architecture = file.architecture();
  info_.quant = store::summarize(file.gguf()).quant;  // as `zen-engine list` shows it
  info_.path = path;
  info_.n_ctx = engine_->n_ctx_per_seq();
  for (const gguf::TensorInfo& t : file.gguf().tensors()) info_.n_params += t.n_elements;
  info_.created = file_mtime(path);
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
