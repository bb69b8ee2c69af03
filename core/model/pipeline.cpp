#include "model/pipeline.h"

#include <memory>
#include <string>

#include <zen/plugin.hpp>

#include "graph/scheduler.h"

// The runtime a pipeline's run() calls back into (zen_runtime_api). C handles over C++
// objects; every call catches what it throws and keeps the message for the run's error.
struct zen_runtime {
  const zen::model::Model* model;
  std::vector<zen::graph::DeviceRef> devices;
  const std::atomic<bool>* cancel;
  std::string error;  // the first failed call's message
};

struct zen_stage_runner {
  explicit zen_stage_runner(zen_runtime* r) : rt(r), sched(r->devices) {}
  zen_runtime* rt;
  zen::graph::Scheduler sched;
};

namespace zen::model {
namespace {

template <class F>
zen_status guarded_call(zen_runtime* rt, F&& f) {
  try {
    f();
    return ZEN_OK;
  } catch (const Error& e) {
    if (rt && rt->error.empty()) rt->error = e.what();
    return e.status == ZEN_OK ? ZEN_ERR_INTERNAL : e.status;
  } catch (const std::exception& e) {
    if (rt && rt->error.empty()) rt->error = e.what();
    return ZEN_ERR_INTERNAL;
  }
}

zen_status plan(zen_runtime* rt, const zen_batch* shape, zen_stage_runner** out) {
  if (!rt || !shape || !out) return ZEN_ERR_INVALID_ARG;
  return guarded_call(rt, [&] {
    graph::Graph g =
        rt->model
            ->build_graph(
                *shape, [rt](std::string_view name) { return rt->model->weight(name); }, nullptr,
                "", 0)
            .first;
    auto runner = std::make_unique<zen_stage_runner>(rt);
    runner->sched.plan(std::move(g));
    *out = runner.release();
  });
}

zen_status set_input(zen_stage_runner* r, const char* name, const void* data, uint64_t bytes) {
  if (!r || !name || (bytes && !data)) return ZEN_ERR_INVALID_ARG;
  return guarded_call(r->rt, [&] { r->sched.set_input(name, data, bytes); });
}

zen_status compute(zen_stage_runner* r) {
  if (!r) return ZEN_ERR_INVALID_ARG;
  return guarded_call(r->rt, [&] { r->sched.compute(); });
}

zen_status get_output(zen_stage_runner* r, const char* name, void* data, uint64_t bytes) {
  if (!r || !name || (bytes && !data)) return ZEN_ERR_INVALID_ARG;
  return guarded_call(r->rt, [&] { r->sched.get_output(name, data, bytes); });
}

void release(zen_stage_runner* r) { delete r; }

int cancelled(zen_runtime* rt) { return rt && rt->cancel && rt->cancel->load() ? 1 : 0; }

const zen_runtime_api kRuntimeApi = {
    ZEN_HDR_INIT(zen_runtime_api), plan, set_input, compute, get_output, release, cancelled};

}  // namespace

Pipeline::Pipeline(const Model& model, std::vector<graph::DeviceRef> devices)
    : model_(model), devices_(std::move(devices)) {
  model_.expect_kind(ZEN_MODEL_PIPELINE);
}

uint32_t Pipeline::tasks() const { return model_.arch().table->pipeline_tasks; }

void Pipeline::run(zen_pipeline_call call, const std::atomic<bool>* cancel) {
  if (!(tasks() & call.task))
    throw Error(ZEN_ERR_UNSUPPORTED, model_.arch().plugin + " does not answer this task");
  zen_runtime rt{&model_, devices_, cancel, {}};
  call.h = ZEN_HDR_INIT(zen_pipeline_call);
  call.runtime = &rt;
  call.api = &kRuntimeApi;
  char err[1024] = "";
  const zen_status st = model_.arch().table->run(model_.state(), &call, err, sizeof err);
  if (st != ZEN_OK)
    throw Error(st, model_.arch().plugin + ": " +
                        (err[0]             ? std::string(err)
                         : rt.error.empty() ? "run failed"
                                            : rt.error));
}

void Pipeline::image(const zen_image_request& request, zen_image_cb cb, void* user,
                     const std::atomic<bool>* cancel) {
  zen_pipeline_call call{};
  call.task = ZEN_TASK_IMAGE;
  call.image = &request;
  call.on_image = cb;
  call.user = user;
  run(call, cancel);
}

void Pipeline::speech(const zen_speech_request& request, zen_speech_cb cb, void* user,
                      const std::atomic<bool>* cancel) {
  zen_pipeline_call call{};
  call.task = ZEN_TASK_SPEECH;
  call.speech = &request;
  call.on_speech = cb;
  call.user = user;
  run(call, cancel);
}

}  // namespace zen::model
