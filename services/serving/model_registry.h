// The models a server serves, by id. Loading happens on a thread of its own so the frontends
// answer (/ready 503, requests 503 "model_loading") while weights are mapped and engines start;
// models load one after another in the order given.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "served_model.h"

namespace zen::serving {

struct ModelSpec {
  std::string id;    // what clients put in "model"
  std::string path;  // the GGUF file
};

class ModelRegistry {
 public:
  using Log = std::function<void(const std::string& line)>;

  // Throws std::invalid_argument for two models with one id. Nothing loads yet.
  ModelRegistry(const host::PluginRegistry& plugins, const host::Config& config,
                ModelOptions options, std::vector<ModelSpec> specs, Log log);
  ~ModelRegistry();  // stop()
  ModelRegistry(const ModelRegistry&) = delete;
  ModelRegistry& operator=(const ModelRegistry&) = delete;

  // Starts the loader thread; `log` hears "model 'x' ready (...)" or "... failed: why".
  void start_loading();
  // Blocks until every model is ready or failed, and returns how many are ready; nullopt when
  // stop() came first.
  std::optional<size_t> wait_loaded();

  // The model for a request's "model" field ("" = the only model served). ApiError 404 for an
  // unknown id, 503 while it loads or when it failed to load.
  std::shared_ptr<ServedModel> find(const std::string& id) const;
  std::vector<std::shared_ptr<ServedModel>> ready() const;
  // {"ready": loading is over, one model at least serves, not stopping; "models": [{"id",
  // "state", "error"?}]}
  nlohmann::json status() const;

  // Stops loading after the current model and stops every engine (in-flight requests end
  // cancelled). Idempotent.
  void stop();

 private:
  enum class State { kLoading, kReady, kFailed };
  struct Entry {
    ModelSpec spec;
    State state = State::kLoading;
    std::string error;
    std::shared_ptr<ServedModel> model;
  };
  void load_all();

  const host::PluginRegistry& plugins_;
  const host::Config& config_;
  ModelOptions options_;
  Log log_;
  mutable std::mutex mu_;
  std::condition_variable loaded_;
  std::vector<Entry> entries_;
  std::atomic<bool> stopping_{false};
  std::thread loader_;
};

}  // namespace zen::serving
