#include "model_registry.h"

#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "api_error.h"

namespace zen::serving {

ModelRegistry::ModelRegistry(const host::PluginRegistry& plugins, const host::Config& config,
                             ModelOptions options, std::vector<ModelSpec> specs, Log log)
    : plugins_(plugins), config_(config), options_(std::move(options)), log_(std::move(log)) {
  for (ModelSpec& s : specs) {
    for (const Entry& e : entries_)
      if (e.spec.id == s.id)
        throw std::invalid_argument("two models are named '" + s.id +
                                    "': give one of them another name with --alias");
    entries_.push_back({std::move(s), State::kLoading, {}, nullptr});
  }
}

ModelRegistry::~ModelRegistry() { stop(); }

void ModelRegistry::start_loading() {
  loader_ = std::thread([this] { load_all(); });
}

void ModelRegistry::load_all() {
  for (size_t i = 0; i < entries_.size() && !stopping_; ++i) {
    const ModelSpec spec = entries_[i].spec;  // specs never change after construction
    const auto t0 = std::chrono::steady_clock::now();
    std::shared_ptr<ServedModel> model;
    std::string error;
    try {
      model = std::make_shared<ServedModel>(spec.id, spec.path, plugins_, config_, options_);
    } catch (const std::exception& e) {
      error = e.what();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    {
      std::lock_guard lock(mu_);
      Entry& e = entries_[i];
      e.state = model ? State::kReady : State::kFailed;
      e.error = error;
      e.model = model;
    }
    loaded_.notify_all();
    if (!log_) continue;
    if (model) {
      char line[256];
      std::snprintf(line, sizeof line, "model '%s' ready (%s, %s, context %u) in %.2f s",
                    spec.id.c_str(), model->architecture().c_str(), model->info().quant.c_str(),
                    model->info().n_ctx, seconds);
      log_(line);
      for (const std::string& a : model->lora_summary()) log_("model '" + spec.id + "' " + a);
    } else {
      log_("model '" + spec.id + "' failed to load: " + error);
    }
  }
}

std::optional<size_t> ModelRegistry::wait_loaded() {
  std::unique_lock lock(mu_);
  auto settled = [&] {
    for (const Entry& e : entries_)
      if (e.state == State::kLoading) return false;
    return true;
  };
  loaded_.wait(lock, [&] { return settled() || stopping_; });
  if (stopping_) return std::nullopt;
  size_t ready = 0;
  for (const Entry& e : entries_) ready += e.state == State::kReady;
  return ready;
}

std::shared_ptr<ServedModel> ModelRegistry::find(const std::string& id) const {
  std::lock_guard lock(mu_);
  const Entry* entry = nullptr;
  if (id.empty()) {
    if (entries_.size() != 1)
      throw ApiError::invalid("model", "'model' is required (this server serves " +
                                           std::to_string(entries_.size()) + " models)");
    entry = &entries_.front();
  } else {
    for (const Entry& e : entries_)
      if (e.spec.id == id) entry = &e;
  }
  if (!entry) throw ApiError::model_not_found(id);
  switch (entry->state) {
    case State::kReady:
      return entry->model;
    case State::kLoading:
      throw ApiError::unavailable("model '" + entry->spec.id + "' is loading", "model_loading");
    case State::kFailed:
      break;
  }
  throw ApiError::unavailable("model '" + entry->spec.id + "' failed to load: " + entry->error,
                              "model_failed");
}

std::vector<std::shared_ptr<ServedModel>> ModelRegistry::ready() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<ServedModel>> out;
  for (const Entry& e : entries_)
    if (e.state == State::kReady) out.push_back(e.model);
  return out;
}

nlohmann::json ModelRegistry::status() const {
  std::lock_guard lock(mu_);
  nlohmann::json models = nlohmann::json::array();
  // Ready once loading is over and something serves: a model that failed stays failed (it
  // is listed with its error and its requests are 503 model_failed), so waiting for it would
  // keep a load balancer away from the models that work, forever.
  bool loading = false, any_ready = false;
  for (const Entry& e : entries_) {
    static const char* kNames[] = {"loading", "ready", "failed"};
    nlohmann::json m = {{"id", e.spec.id}, {"state", kNames[static_cast<int>(e.state)]}};
    if (e.state == State::kFailed) m["error"] = e.error;
    loading = loading || e.state == State::kLoading;
    any_ready = any_ready || e.state == State::kReady;
    models.push_back(std::move(m));
  }
  return {{"ready", !stopping_ && !loading && any_ready}, {"models", std::move(models)}};
}

void ModelRegistry::stop() {
  {
    std::lock_guard lock(mu_);  // wait_loaded() checks stopping_ under the lock
    stopping_ = true;
  }
  loaded_.notify_all();
  if (loader_.joinable()) loader_.join();
  std::vector<std::shared_ptr<ServedModel>> models = ready();
  for (const auto& m : models)
    if (m->generates()) m->engine().stop();
}

}  // namespace zen::serving
