// The engine thread's side of an Engine: the queue of accepted requests, the running sequences,
// admission by KV blocks, one step at a time (plan, decode, sample, stream), cancellation and
// preemption. Single-threaded: only the engine thread touches it (Engine does the locking).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/metrics.h"
#include "engine/sequence.h"
#include "engine/step_planner.h"
#include "model/context.h"

namespace zen::engine {

// An accepted request and its choices.
struct Job {
  uint64_t id = 0;
  Request request;
  std::shared_ptr<Sink> sink;
  MetricsRecorder::Clock::time_point submitted;
  std::vector<Sequence> choices;  // never resized once made: Sequence* stay valid
  uint64_t seed = 0;              // choice i samples with seed + i
  std::vector<float> lora;        // each adapter's scale for every token of this job
  uint64_t lora_root = 0;         // its prefix-cache root (KvCache::publish): 0 = no adapter
  bool first_token = false;
  bool prompt_ready = false;  // choice 0 has its prompt in the cache: the others may attach it
  uint32_t unfinished = 0;
  Usage usage;
  bool done() const { return unfinished == 0; }
};

class Scheduler {
 public:
  Scheduler(model::Context& ctx, const EngineParams& params, uint32_t n_ctx_per_seq,
            MetricsRecorder& metrics);
  ~Scheduler();

  void enqueue(uint64_t id, Request request, std::shared_ptr<Sink> sink,
               MetricsRecorder::Clock::time_point submitted);
  void cancel(uint64_t id);  // unknown ids are ignored
  void cancel_all();
  // Fails every running sequence (an unexpected error escaped a step).
  void fail_running(const std::string& message);

  // Something to run now: running sequences, or queued work that may be admitted.
  bool has_work() const;
  // Admits what fits, runs one batch, streams its tokens.
  void step();

  // Requests in the queue. The one member other threads may read (Engine::submit's QueueFull
  // check sees admissions at once, not only after the step that made them).
  uint32_t queued() const { return queue_size_.load(std::memory_order_relaxed); }
  uint32_t running() const { return static_cast<uint32_t>(running_.size()); }
  void publish_metrics();

 private:
  void admit();
  bool try_admit(Sequence& s);
  void preempt(Sequence& s);
  StepPlan plan();
  void execute(std::span<const Work> work);
  void publish_blocks(Sequence& s);
  void sample(Sequence& s, std::span<const float> logits);
  void finish(Sequence& s, Finish reason, const std::string& error = {});
  void end_queued(Job& job, Finish reason, const std::string& error = {});
  void release(Sequence& s);
  void drop_done_jobs();
  void queue_changed() { queue_size_.store(static_cast<uint32_t>(queue_.size())); }
  int32_t acquire_seq_id();

  model::Context& ctx_;
  model::KvCache& kv_;
  EngineParams params_;
  StepLimits limits_;
  uint32_t n_ctx_per_seq_;
  MetricsRecorder& metrics_;

  std::deque<std::unique_ptr<Job>> queue_;    // accepted, choice 0 not admitted yet (FIFO)
  std::atomic<uint32_t> queue_size_ = 0;      // queue_.size(), updated with it
  std::vector<std::unique_ptr<Job>> active_;  // admitted, in admission order
  std::vector<Sequence*> running_;            // in admission order
  std::vector<int32_t> free_seq_ids_;
  int32_t next_seq_id_ = 0;
  uint64_t admissions_ = 0;
  // Admission failed for lack of blocks; retried once a sequence gives blocks back.
  bool admission_blocked_ = false;
  uint32_t step_tokens_ = 0;  // tokens given to sinks during the current step
};

}  // namespace zen::engine
