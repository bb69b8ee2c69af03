// Runs a pipeline Model (zen_model_kind ZEN_MODEL_PIPELINE): the plugin's run() drives its
// sub-models (text encoders, a denoiser called once per step, a VAE; a decoder and a codec)
// through the runtime handed to it here, whose graphs are planned and computed on the model's
// devices like any other. One request at a time.
//
//   Pipeline p(model, devices);
//   p.image(request, on_event, user, &cancel_flag);
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "graph/device_ref.h"
#include "model/model.h"

namespace zen::model {

class Pipeline {
 public:
  Pipeline(const Model& model, std::vector<graph::DeviceRef> devices);

  // The zen_task_kind bits the plugin's run() answers.
  uint32_t tasks() const;
  // Runs one request: the events (progress, then the result with last = 1) go to cb. Throws
  // zen::Error, naming the plugin, when run() fails (cb then got no last event); a set
  // `cancel` ends the run between steps with ZEN_ERR_CANCELLED.
  void image(const zen_image_request& request, zen_image_cb cb, void* user,
             const std::atomic<bool>* cancel = nullptr);
  void speech(const zen_speech_request& request, zen_speech_cb cb, void* user,
              const std::atomic<bool>* cancel = nullptr);

 private:
  void run(zen_pipeline_call call, const std::atomic<bool>* cancel);

  const Model& model_;
  std::vector<graph::DeviceRef> devices_;
};

}  // namespace zen::model
