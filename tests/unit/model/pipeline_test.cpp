// A pipeline architecture (ZEN_MODEL_PIPELINE) through the real runtime: the test plugin
// "tiny_denoiser" (tests/plugins/tiny_pipeline.cpp) drives three sub-models (text encoder,
// denoiser once per step, decoder) with the runtime model::Pipeline hands it. Its image must
// be the one numpy computed from the same seeded noise (tools/make_tiny_pipeline.py, committed
// in tests/data/models/tiny_pipeline), with one progress event per step, the same image for
// the same seed, and a cancel between steps.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <zen/plugin.hpp>

#include "host_api.h"
#include "loaded_model.h"
#include "model/pipeline.h"
#include "plugin_registry.h"
#include "services.h"

namespace zen {
namespace {

const std::string kDir = std::string(ZEN_TEST_DATA_DIR) + "/models/tiny_pipeline/";

struct PipelineHost {
  host::Config config;
  std::unique_ptr<host::PluginRegistry> registry;
  PipelineHost() {
    config.plugin_paths = {ZEN_BUILD_PLUGIN_DIR, ZEN_PIPELINE_PLUGIN_DIR};
    config.devices = {"cpu"};
    config.cpu_threads = 2;
    host::register_core_services();
    registry = std::make_unique<host::PluginRegistry>(config, host::host_api(config));
  }
};

PipelineHost& pipeline_host() {
  static PipelineHost h;
  return h;
}

struct Events {
  std::vector<uint32_t> steps;  // progress: steps done
  std::vector<uint8_t> rgb;
  uint32_t width = 0, height = 0, lasts = 0;
  std::atomic<bool>* cancel_after_first = nullptr;

  static void on_image(void* user, const zen_image_event* ev, const zen_task_error*, int last) {
    Events& e = *static_cast<Events*>(user);
    if (!ev->rgb) {
      e.steps.push_back(ev->step);
      if (e.cancel_after_first) *e.cancel_after_first = true;
      return;
    }
    e.rgb.assign(ev->rgb, ev->rgb + static_cast<size_t>(ev->width) * ev->height * 3);
    e.width = ev->width;
    e.height = ev->height;
    e.lasts += last ? 1 : 0;
  }
};

class TinyPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(kDir + "reference.json");
    ref_ = nlohmann::json::parse(in);
    lm_ = std::make_unique<host::LoadedModel>(*pipeline_host().registry, pipeline_host().config,
                                              kDir + "tiny_denoiser.gguf", model::ContextParams{});
    pipeline_ = std::make_unique<model::Pipeline>(lm_->model(), lm_->devices());
    prompt_ = ref_.at("prompt").get<std::string>();
    request_ = zen_image_request{};
    request_.h = ZEN_HDR_INIT(zen_image_request);
    request_.prompt = {prompt_.data(), prompt_.size()};
    request_.width = ref_.at("width").get<uint32_t>();
    request_.height = ref_.at("height").get<uint32_t>();
    request_.steps = ref_.at("steps").get<uint32_t>();
    request_.has_seed = 1;
    request_.seed = ref_.at("seed").get<uint64_t>();
  }
  Events run(const std::atomic<bool>* cancel = nullptr, Events e = {}) {
    pipeline_->image(request_, Events::on_image, &e, cancel);
    return e;
  }

  nlohmann::json ref_;
  std::unique_ptr<host::LoadedModel> lm_;
  std::unique_ptr<model::Pipeline> pipeline_;
  std::string prompt_;
  zen_image_request request_;
};

TEST_F(TinyPipeline, DrivesItsSubModelsToTheReferenceImage) {
  EXPECT_EQ(pipeline_->tasks(), static_cast<uint32_t>(ZEN_TASK_IMAGE));
  const Events e = run();
  EXPECT_EQ(e.steps, (std::vector<uint32_t>{1, 2, 3}));
  ASSERT_EQ(e.lasts, 1u);
  EXPECT_EQ(e.width, request_.width);
  EXPECT_EQ(e.height, request_.height);
  const std::vector<int> want = ref_.at("rgb").get<std::vector<int>>();
  ASSERT_EQ(e.rgb.size(), want.size());
  int worst = 0, exact = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    worst = std::max(worst, std::abs(static_cast<int>(e.rgb[i]) - want[i]));
    exact += e.rgb[i] == want[i];
  }
  std::printf("rgb: %d of %zu values exact, worst %d apart\n", exact, want.size(), worst);
  // F32 here, float64 in numpy: a value on a rounding edge may land one step apart.
  EXPECT_LE(worst, 1);
  EXPECT_GE(exact, static_cast<int>(want.size()) * 9 / 10);
}

TEST_F(TinyPipeline, TheSeedDecidesTheImage) {
  const std::vector<uint8_t> a = run().rgb, b = run().rgb;
  EXPECT_EQ(a, b);
  request_.seed += 1;
  EXPECT_NE(run().rgb, a);
}

TEST_F(TinyPipeline, ACancelStopsBetweenSteps) {
  std::atomic<bool> cancel{false};
  Events e;
  e.cancel_after_first = &cancel;
  try {
    pipeline_->image(request_, Events::on_image, &e, &cancel);
    FAIL() << "the run went on after the cancel";
  } catch (const Error& err) {
    EXPECT_EQ(err.status, ZEN_ERR_CANCELLED) << err.what();
  }
  EXPECT_EQ(e.steps, std::vector<uint32_t>{1});
  EXPECT_EQ(e.lasts, 0u);  // no result after a cancel
}

TEST_F(TinyPipeline, OtherRunnersRefuseIt) {
  try {
    lm_->context();
    FAIL() << "a pipeline got a decoding context";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("is a pipeline"), std::string::npos) << err.what();
  }
  request_.prompt = {nullptr, 0};
  EXPECT_THROW(run(), Error);  // the plugin refuses an empty prompt, and says so
}

}  // namespace
}  // namespace zen
