// Header-only C++ side of pipeline architectures (zen_model_kind ZEN_MODEL_PIPELINE, ABI
// 1.5): a plugin's run() drives its sub-models through the runtime it is handed. A Stage is
// one planned sub-model graph (the graph build() makes for a batch whose `stage` names it),
// computed as often as the loop needs:
//
//   void run(const zen_pipeline_call& call) const {
//     zen::Stage denoiser(call, zen::stage_batch(kDenoiser, {w, h, c, 1}));
//     for (uint32_t step = 0; step < steps; ++step) {
//       if (zen::cancelled(call)) throw zen::Error(ZEN_ERR_CANCELLED, "cancelled");
//       denoiser.set("latent", latent);
//       denoiser.compute();
//       latent = denoiser.get<float>("next", latent.size());
//     }
//     ...
//   }
#pragma once

#include <zen/arch.h>
#include <zen/plugin.hpp>

#include <array>
#include <string>
#include <vector>

namespace zen {

// The batch that asks build() for sub-model `stage` (with a shape in media_ne when it needs one).
inline zen_batch stage_batch(uint32_t stage, std::array<uint32_t, 4> ne = {1, 1, 1, 1}) {
  zen_batch b{};
  b.h = ZEN_HDR_INIT(zen_batch);
  for (size_t i = 0; i < ne.size(); ++i) b.media_ne[i] = ne[i];
  b.stage = stage;
  return b;
}

inline bool cancelled(const zen_pipeline_call& call) {
  return call.api->cancelled && call.api->cancelled(call.runtime) != 0;
}

class Stage {
 public:
  Stage(const zen_pipeline_call& call, const zen_batch& shape) : api_(call.api) {
    check(api_->plan(call.runtime, &shape, &r_), "planning stage " + std::to_string(shape.stage));
  }
  ~Stage() {
    if (r_) api_->release(r_);
  }
  Stage(const Stage&) = delete;
  Stage& operator=(const Stage&) = delete;

  template <class T>
  void set(const char* name, const std::vector<T>& v) {
    check(api_->set_input(r_, name, v.data(), v.size() * sizeof(T)),
          std::string("input '") + name + "'");
  }
  void compute() { check(api_->compute(r_), "computing"); }
  template <class T>
  std::vector<T> get(const char* name, size_t n) {
    std::vector<T> v(n);
    check(api_->get_output(r_, name, v.data(), n * sizeof(T)),
          std::string("output '") + name + "'");
    return v;
  }

 private:
  static void check(zen_status st, const std::string& what) {
    if (st != ZEN_OK) throw Error(st, "the runtime failed " + what);
  }
  const zen_runtime_api* api_;
  zen_stage_runner* r_ = nullptr;
};

}  // namespace zen
