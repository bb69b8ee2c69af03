// A model ready to run: its GGUF mapped, bound to the loaded architecture plugin that answers
// to it, the chosen devices opened (in the config's order of preference) and a Context with
// its KV cache (a decoder), or an Encoder (an encoder model). What `run`, `perplexity`,
// `bench`, `embed` and the server start from.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config.h"
#include "graph/device_ref.h"
#include "model/context.h"
#include "model/encoder.h"
#include "model/model.h"
#include "plugin_registry.h"

namespace zen::host {

// The loaded architecture plugins' tables (what model::ModelFile::open and model::Model take).
std::vector<model::ArchPlugin> arch_plugins(const PluginRegistry& plugins);

class LoadedModel {
 public:
  // Throws zen::Error naming the file, the missing plugin or the failing device.
  LoadedModel(const PluginRegistry& plugins, const Config& config, const std::string& path,
              model::ContextParams params, model::EncoderParams encoder_params = {});
  ~LoadedModel();
  LoadedModel(const LoadedModel&) = delete;
  LoadedModel& operator=(const LoadedModel&) = delete;

  const model::ModelFile& file() const { return *file_; }
  const model::Model& model() const { return *model_; }
  // Throw when the model is of the other kind, saying so.
  model::Context& context();
  model::Encoder& encoder();
  const std::vector<graph::DeviceRef>& devices() const { return devices_; }
  // "cpu (CPU, avx2 build, 2 threads pinned to cores)"
  std::string devices_summary() const;

 private:
  std::shared_ptr<const model::ModelFile> file_;
  std::unique_ptr<model::Model> model_;
  std::vector<graph::DeviceRef> devices_;
  std::unique_ptr<model::Context> context_;
  std::unique_ptr<model::Encoder> encoder_;
};

}  // namespace zen::host
