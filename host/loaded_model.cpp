#include "loaded_model.h"
#include <algorithm>

#include <zen/plugin.hpp>

#include "device_selection.h"
#include "lora/adapter.h"
#include "store/store.h"

namespace zen::host {

std::vector<model::ArchPlugin> arch_plugins(const PluginRegistry& plugins) {
  std::vector<model::ArchPlugin> out;
  for (const PluginRecord* r : plugins.loaded(ZEN_KIND_ARCH))
    out.push_back({r->display_name(), static_cast<const zen_arch_v1*>(r->vtable)});
  return out;
}

LoadedModel::LoadedModel(const PluginRegistry& plugins, const Config& config,
                         const std::string& path, model::ContextParams params,
                         model::EncoderParams encoder_params) {
  const std::vector<model::ArchPlugin> archs = arch_plugins(plugins);
  const auto isq = quant::in_situ_options(config.isq, config.cpu_threads, "isq");
  file_ = model::ModelFile::open(store::resolve(path).string(), archs, isq ? &*isq : nullptr);
  model_ = std::make_unique<model::Model>(file_, archs);
  for (const auto& [lora_path, scale] : config.lora) {
    if (model_->kind() != ZEN_MODEL_DECODER)
      throw Error(ZEN_ERR_UNSUPPORTED, path + ": LoRA adapters apply to text models only");
    params.lora.push_back(std::make_shared<const lora::Adapter>(
        lora::load(lora_path, file_->gguf(), model_->hf_map())));
    params.lora_scale.push_back(scale);
  }

  std::vector<DeviceCandidate> candidates = select_devices(plugins, config);
  std::vector<const DeviceCandidate*> chosen;
  for (const DeviceCandidate& c : candidates)
    if (c.chosen) chosen.push_back(&c);
  std::sort(chosen.begin(), chosen.end(),
            [](const DeviceCandidate* a, const DeviceCandidate* b) { return a->rank < b->rank; });
  if (chosen.empty()) throw Error(ZEN_ERR_NOT_FOUND, "no device to run on (see zen-engine probe)");
  try {
    for (const DeviceCandidate* c : chosen)
      devices_.push_back(graph::DeviceRef::open(c->table, c->index, c->id, c->plugin->last_error));
    if (model_->kind() == ZEN_MODEL_ENCODER)
      encoder_ = std::make_unique<model::Encoder>(*model_, devices_, std::move(encoder_params));
    else if (model_->kind() == ZEN_MODEL_DECODER)
      context_ = std::make_unique<model::Context>(*model_, devices_, std::move(params));
    // A media encoder's runner is made by its caller (model::MediaEncoder).
  } catch (...) {
    for (graph::DeviceRef& d : devices_) d.close();
    throw;
  }
}

LoadedModel::~LoadedModel() {
  context_.reset();  // the scheduler frees its arenas through the devices
  encoder_.reset();
  for (graph::DeviceRef& d : devices_) d.close();
}

model::Context& LoadedModel::context() {
  model_->expect_kind(ZEN_MODEL_DECODER);
  return *context_;
}

model::Encoder& LoadedModel::encoder() {
  model_->expect_kind(ZEN_MODEL_ENCODER);
  return *encoder_;
}

std::string LoadedModel::devices_summary() const {
  std::string s;
  for (const graph::DeviceRef& d : devices_)
    s += (s.empty() ? "" : ", ") + d.id + " (" + d.props.description + ")";
  return s;
}

}  // namespace zen::host
