// One model as the server holds it: the loaded weights and Context, its tokenizer and chat
// template, and the Engine that schedules its requests; or, for an encoder, the Encoder that
// embeds (no engine, no template; a tokenizer when the file has one this server reads). Built on
// the registry's loader thread; immutable afterwards except through the Engine (which is
// thread-safe).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <zen/task.hpp>
#include "chat/tool_format.h"
#include "config.h"
#include "embedder.h"
#include "engine/engine.h"
#include "loaded_model.h"
#include "model/pipeline.h"
#include "plugin_registry.h"
#include "sampling_defaults.h"
#include "template/template.h"
#include "tokenizer/tokenizer.h"

namespace zen::serving {

// How every served model is set up (the serve flags and config).
struct ModelOptions {
  uint32_t n_ctx = 8192;        // KV cells shared by all sequences of one model
  engine::EngineParams engine;  // engine.deterministic also makes the Context gather K/V rows
};

// What GET /v1/models says about a model.
struct ModelInfo {
  std::string architecture, quant, path;
  uint32_t n_ctx = 0;  // longest prompt + generation of one request
  uint64_t n_params = 0;
  int64_t created = 0;  // unix time the file was written
};

class ServedModel {
 public:
  // Loads the file and starts its engine; throws zen::Error naming what failed.
  ServedModel(std::string id, const std::string& path, const host::PluginRegistry& plugins,
              const host::Config& config, const ModelOptions& options);
  ~ServedModel();  // stops the engine before the Context it drives goes away
  ServedModel(const ServedModel&) = delete;
  ServedModel& operator=(const ServedModel&) = delete;

  const std::string& id() const { return id_; }
  const ModelInfo& info() const { return info_; }
  // Throws ApiError 400 when the model has no tokenizer this server reads (an encoder's).
  const tokenizer::Tokenizer& tokenizer() const;
  // The zen_task_kind bits it serves (zen/task.h).
  uint32_t task_kinds() const;
  bool is_encoder() const { return embedder_ != nullptr; }
  // A text model (with an engine), not an encoder or a pipeline.
  bool generates() const { return engine_ != nullptr; }
  // An encoder's embed and rerank tasks; throws ApiError 400 for a text generator.
  Embedder& embedder();
  const std::string& architecture() const { return info_.architecture; }
  // The chat template's source, and the template parsed; throws ApiError 500 when the model's
  // template cannot be parsed (the model still serves completions).
  const std::string& template_source() const { return template_source_; }
  const tmpl::Template& chat_template() const;
  // How the model writes tool calls (from its template; kNone when it has no convention).
  chat::ToolFormat tool_format() const { return tool_format_; }
  // The template knows <think> reasoning (found once, at load).
  bool template_has_reasoning() const { return template_has_reasoning_; }
  // Ids that end a generation (EOS, end-of-turn, ...), for engine::Request::stop_tokens.
  const std::vector<int32_t>& eog_tokens() const { return eog_; }
  // The engine's per-adapter scales for a request's "lora" picks (empty: the defaults); throws
  // ApiError (invalid, param "lora") for an id or name the model has not loaded.
  // One line per loaded adapter: "LoRA 0 'name' (peft, 42 matrices, 1.2 MiB), default scale 1".
  std::vector<std::string> lora_summary() const;
  std::vector<float> lora_scales(
      const std::optional<std::vector<task::GenerateRequest::LoraPick>>& picks) const;
  // The model's own sampler settings, for the fields a request leaves out.
  const SamplingDefaults& sampling_defaults() const { return sampling_defaults_; }
  // A pipeline's image or speech (model::Pipeline), one request at a time: its events go to
  // cb. Throws ApiError: 400 for a model that does not make them or a request it refuses,
  // 503 cancelled when `cancel` was set between steps.
  void image(const zen_image_request& request, zen_image_cb cb, void* user,
             const std::atomic<bool>& cancel);
  void speech(const zen_speech_request& request, zen_speech_cb cb, void* user,
              const std::atomic<bool>& cancel);
  // Throws ApiError 400 for an encoder or a pipeline (they serve no text generation).
  void check_generates() const;
  // Throw as check_generates does.
  engine::Engine& engine();
  const engine::Engine& engine() const;

 private:
  std::string id_;
  ModelInfo info_;
  std::unique_ptr<host::LoadedModel> loaded_;
  SamplingDefaults sampling_defaults_;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer_;
  std::string template_source_, template_error_;
  std::unique_ptr<tmpl::Template> template_;
  chat::ToolFormat tool_format_ = chat::ToolFormat::kNone;
  bool template_has_reasoning_ = false;
  std::vector<int32_t> eog_;
  std::string tokenizer_error_;         // why an encoder has no tokenizer
  std::unique_ptr<Embedder> embedder_;  // an encoder's
  std::mutex pipeline_mu_;
  std::unique_ptr<model::Pipeline> pipeline_;  // a pipeline's
  std::unique_ptr<engine::Engine> engine_;     // declared last: destroyed first
};

}  // namespace zen::serving
