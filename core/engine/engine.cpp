#include "engine/engine.h"

#include <cmath>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/scheduler.h"
#include "sampler/error.h"

namespace zen::engine {
namespace {

// More choices than this is a client mistake, not a workload.
constexpr int32_t kMaxChoices = 128;

void check_params(const EngineParams& p) {
  auto need = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("engine: ") + what);
  };
  need(p.max_running >= 1, "max_running must be >= 1");
  need(p.max_queued >= 1, "max_queued must be >= 1");
  need(p.prefill_chunk >= 1, "prefill_chunk must be >= 1");
  need(p.max_batch_tokens > p.max_running,
       "max_batch_tokens must exceed max_running (a decode token each, and room for a prompt)");
  need(p.prefill_chunk <= p.max_batch_tokens, "prefill_chunk must be <= max_batch_tokens");
  need(p.prefill_while_decoding >= 1, "prefill_while_decoding must be >= 1");
}

std::string vocab_error(const char* what, size_t index, int32_t id, int32_t n_vocab) {
  return std::string(what) + " " + std::to_string(index) + " is id " + std::to_string(id) +
         ", outside the vocabulary [0, " + std::to_string(n_vocab) + ")";
}

}  // namespace

Engine::Engine(model::Context& ctx, EngineParams params) : params_(params) {
  check_params(params_);
  if (params_.deterministic && !ctx.params().gather_kv)
    throw std::invalid_argument(
        "engine: deterministic mode needs a Context built with ContextParams::gather_kv");
  model::KvCache& kv = ctx.kv();
  if (params_.deterministic && params_.prefill_chunk % kv.block_size() != 0)
    throw std::invalid_argument(
        "engine: deterministic mode needs prefill_chunk (" + std::to_string(params_.prefill_chunk) +
        ") to be a multiple of the KV block size (" + std::to_string(kv.block_size()) + ")");
  kv.clear();
  n_vocab_ = ctx.probe_n_vocab();
  n_lora_ = ctx.lora_defaults().size();
  uint32_t n = params_.n_ctx_per_seq ? params_.n_ctx_per_seq : ctx.model().n_ctx_train();
  n_ctx_per_seq_ = n ? std::min(n, kv.size()) : kv.size();
  scheduler_ = std::make_unique<Scheduler>(ctx, params_, n_ctx_per_seq_, metrics_);
  scheduler_->publish_metrics();
  thread_ = std::thread([this] { run(); });
}

Engine::~Engine() { stop(); }

void Engine::validate(const Request& r) const {
  if (r.prompt.empty()) throw InvalidRequest("the prompt is empty");
  if (r.n < 1 || r.n > kMaxChoices)
    throw InvalidRequest("n must be in [1, " + std::to_string(kMaxChoices) + "], not " +
                         std::to_string(r.n));
  if (r.max_tokens == 0 || r.max_tokens < -1)
    throw InvalidRequest("max_tokens must be >= 1 (or -1: up to the context), not " +
                         std::to_string(r.max_tokens));
  for (size_t i = 0; i < r.prompt.size(); ++i)
    if (r.prompt[i] < 0 || r.prompt[i] >= n_vocab_)
      throw InvalidRequest(vocab_error("prompt token", i, r.prompt[i], n_vocab_));
  for (size_t i = 0; i < r.stop_tokens.size(); ++i)
    if (r.stop_tokens[i] < 0 || r.stop_tokens[i] >= n_vocab_)
      throw InvalidRequest(vocab_error("stop token", i, r.stop_tokens[i], n_vocab_));
  if (!r.lora.empty() && r.lora.size() != n_lora_)
    throw InvalidRequest(std::to_string(r.lora.size()) + " LoRA scales given; the model has " +
                         std::to_string(n_lora_) + " adapters");
  for (float s : r.lora)
    if (!std::isfinite(s)) throw InvalidRequest("a LoRA scale is not a finite number");
  try {
    sampling::validate(r.sampling, n_vocab_);
  } catch (const sampling::InvalidParams& e) {
    throw InvalidRequest(e.what());
  }
  const uint64_t generate = r.max_tokens > 0 ? static_cast<uint64_t>(r.max_tokens) : 1;
  if (r.prompt.size() + generate > n_ctx_per_seq_)
    throw ContextExceeded("this request needs " + std::to_string(r.prompt.size() + generate) +
                          " tokens (" + std::to_string(r.prompt.size()) + " in the prompt, " +
                          std::to_string(generate) + " to generate); the context holds " +
                          std::to_string(n_ctx_per_seq_) + " per sequence");
}

uint64_t Engine::submit(Request request, std::shared_ptr<Sink> sink) {
  if (!sink) throw InvalidRequest("no sink to deliver the tokens to");
  validate(request);
  const uint32_t prompt_tokens = static_cast<uint32_t>(request.prompt.size());
  uint64_t id = 0;
  {
    std::lock_guard lock(mu_);
    if (stopping_) throw QueueFull("the engine is stopping");
    if (inbox_.size() + scheduler_->queued() >= params_.max_queued)
      throw QueueFull("the queue is full (" + std::to_string(params_.max_queued) +
                      " requests waiting)");
    id = next_id_++;
    inbox_.push_back({id, std::move(request), std::move(sink), MetricsRecorder::Clock::now()});
  }
  metrics_.request_accepted(prompt_tokens);
  wake_.notify_one();
  return id;
}

void Engine::cancel(uint64_t id) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;  // stop() cancels everything anyway
    cancels_.insert(id);
  }
  wake_.notify_one();
}

Metrics Engine::metrics() const {
  Metrics m = metrics_.snapshot();
  std::lock_guard lock(mu_);
  m.queued = static_cast<uint32_t>(inbox_.size()) + scheduler_->queued();
  return m;
}

void Engine::stop() {
  if (std::this_thread::get_id() == thread_.get_id())
    throw std::logic_error("engine: stop() called from a Sink (the engine thread)");
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void Engine::run() {
  for (;;) {
    std::unordered_set<uint64_t> cancels;
    bool stopping = false;
    {
      std::unique_lock lock(mu_);
      if (!scheduler_->has_work())
        wake_.wait(lock, [&] { return stopping_ || !inbox_.empty() || !cancels_.empty(); });
      // Moved under the lock, so submit() never sees a request in neither place.
      for (Submitted& s : inbox_)
        scheduler_->enqueue(s.id, std::move(s.request), std::move(s.sink), s.when);
      inbox_.clear();
      cancels.swap(cancels_);
      stopping = stopping_;
    }
    for (uint64_t id : cancels) scheduler_->cancel(id);
    try {
      if (stopping) {
        scheduler_->cancel_all();
      } else {
        scheduler_->step();
      }
    } catch (const std::exception& e) {
      // A bug, not a request's fault; the sequences in flight end, the engine keeps serving.
      scheduler_->fail_running(std::string("engine: ") + e.what());
    }
    if (stopping) return;
  }
}

}  // namespace zen::engine
