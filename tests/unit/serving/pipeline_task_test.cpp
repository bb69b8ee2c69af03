// The typed image task end to end through the engine API table (zen/frontend.h), as a frontend
// calls it: a served pipeline model (the test plugin "tiny_denoiser", tests/plugins) answers
// submit_image with progress events and the image numpy computed (tests/data/models/
// tiny_pipeline), says it serves images (task_kinds), refuses text and speech naming itself,
// and a cancel ends a long run between steps.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <zen/task.hpp>

#include "host_api.h"
#include "plugin_registry.h"
#include "services.h"
#include "serving/c_api.h"
#include "serving/engine_service.h"
#include "serving/model_registry.h"

namespace zen::serving {
namespace {

const std::string kDir = std::string(ZEN_TEST_DATA_DIR) + "/models/tiny_pipeline/";

// What one request's callbacks delivered, waited for until its last event.
struct Answer {
  std::mutex mu;
  std::condition_variable done;
  bool finished = false;
  std::vector<uint32_t> steps;
  std::vector<uint8_t> rgb;
  std::optional<task::TaskError> error;

  static void on_image(void* user, const zen_image_event* ev, const zen_task_error* err, int last) {
    Answer& a = *static_cast<Answer*>(user);
    std::lock_guard lock(a.mu);
    if (err) a.error = task::TaskError::copy_of(*err);
    if (ev && !ev->rgb) a.steps.push_back(ev->step);
    if (ev && ev->rgb) a.rgb.assign(ev->rgb, ev->rgb + size_t{ev->width} * ev->height * 3);
    if (last) {
      a.finished = true;
      a.done.notify_all();
    }
  }
  static void on_speech(void* user, const zen_speech_chunk*, const zen_task_error* err, int last) {
    on_image(user, nullptr, err, last);
  }
  static void on_generate(void* user, const zen_generate_event* ev, int last) {
    on_image(user, nullptr, ev->error, last);
  }
  void wait() {
    std::unique_lock lock(mu);
    ASSERT_TRUE(done.wait_for(lock, std::chrono::seconds(60), [this] { return finished; }));
  }
};

class ServedPipeline : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    config_ = new host::Config;
    config_->plugin_paths = {ZEN_BUILD_PLUGIN_DIR, ZEN_PIPELINE_PLUGIN_DIR};
    config_->devices = {"cpu"};
    config_->cpu_threads = 2;
    host::register_core_services();
    plugins_ = new host::PluginRegistry(*config_, host::host_api(*config_));
  }
  void SetUp() override {
    std::ifstream in(kDir + "reference.json");
    ref_ = nlohmann::json::parse(in);
    models_ = std::make_unique<ModelRegistry>(
        *plugins_, *config_, ModelOptions{},
        std::vector<ModelSpec>{{"tiny", kDir + "tiny_denoiser.gguf"}}, [](const std::string&) {});
    models_->start_loading();
    ASSERT_EQ(models_->wait_loaded(), std::optional<size_t>(1));
    service_ = std::make_unique<EngineService>(*models_, [](const std::string&) {});
    prompt_ = ref_.at("prompt").get<std::string>();
    request_ = zen_image_request{};
    request_.h = ZEN_HDR_INIT(zen_image_request);
    request_.model = "tiny";
    request_.prompt = {prompt_.data(), prompt_.size()};
    request_.width = ref_.at("width").get<uint32_t>();
    request_.height = ref_.at("height").get<uint32_t>();
    request_.steps = ref_.at("steps").get<uint32_t>();
    request_.has_seed = 1;
    request_.seed = ref_.at("seed").get<uint64_t>();
  }
  void TearDown() override {
    service_.reset();
    models_.reset();
  }
  zen_engine* engine() { return engine_handle(*service_); }

  static host::Config* config_;
  static host::PluginRegistry* plugins_;
  nlohmann::json ref_;
  std::unique_ptr<ModelRegistry> models_;
  std::unique_ptr<EngineService> service_;
  std::string prompt_;
  zen_image_request request_;
};
host::Config* ServedPipeline::config_ = nullptr;
host::PluginRegistry* ServedPipeline::plugins_ = nullptr;

TEST_F(ServedPipeline, AnswersTheImageTask) {
  const zen_engine_api* api = engine_api();
  EXPECT_EQ(api->task_kinds(engine(), "tiny"), static_cast<uint32_t>(ZEN_TASK_IMAGE));
  Answer a;
  uint64_t id = 0;
  ASSERT_EQ(api->submit_image(engine(), &request_, Answer::on_image, &a, &id), ZEN_OK);
  EXPECT_NE(id, 0u);
  a.wait();
  EXPECT_FALSE(a.error) << a.error->message;
  EXPECT_EQ(a.steps, (std::vector<uint32_t>{1, 2, 3}));
  const std::vector<int> want = ref_.at("rgb").get<std::vector<int>>();
  EXPECT_EQ(std::vector<int>(a.rgb.begin(), a.rgb.end()), want);
}

TEST_F(ServedPipeline, RefusesWhatItDoesNotServe) {
  const zen_engine_api* api = engine_api();
  Answer text;
  task::GenerateRequest g;
  g.model = "tiny";
  g.messages.push_back(task::Message::text(ZEN_ROLE_USER, "hi"));
  const task::GenerateRequestView view(g);
  api->submit_generate(engine(), view.get(), Answer::on_generate, &text, nullptr);
  text.wait();
  ASSERT_TRUE(text.error);
  EXPECT_NE(text.error->message.find("is an image or speech model"), std::string::npos)
      << text.error->message;

  Answer speech;
  const std::string words = "[S1] Hello.";
  zen_speech_request s{};
  s.h = ZEN_HDR_INIT(zen_speech_request);
  s.model = "tiny";
  s.text = {words.data(), words.size()};
  api->submit_speech(engine(), &s, Answer::on_speech, &speech, nullptr);
  speech.wait();
  ASSERT_TRUE(speech.error);
  EXPECT_EQ(speech.error->status, ZEN_ERR_INVALID_ARG);
  EXPECT_NE(speech.error->message.find("does not make speech"), std::string::npos);

  Answer unknown;
  request_.model = "nope";
  api->submit_image(engine(), &request_, Answer::on_image, &unknown, nullptr);
  unknown.wait();
  ASSERT_TRUE(unknown.error);
  EXPECT_EQ(unknown.error->status, ZEN_ERR_NOT_FOUND);
}

TEST_F(ServedPipeline, ACancelEndsALongRunBetweenSteps) {
  const zen_engine_api* api = engine_api();
  request_.steps = 100000;  // minutes of work, unless cancelled
  request_.width = request_.height = 64;
  Answer a;
  uint64_t id = 0;
  ASSERT_EQ(api->submit_image(engine(), &request_, Answer::on_image, &a, &id), ZEN_OK);
  api->cancel(engine(), id);
  a.wait();
  ASSERT_TRUE(a.error);
  EXPECT_EQ(a.error->code, "cancelled") << a.error->message;
  EXPECT_TRUE(a.rgb.empty());
  EXPECT_LT(a.steps.size(), 100000u);
}

}  // namespace
}  // namespace zen::serving
