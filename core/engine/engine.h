// zen::engine::Engine: the request scheduler that serves one loaded model (docs/ENGINE.md).
//
// Token level: requests arrive tokenized, tokens leave through a Sink. One scheduling thread per
// Engine is the only caller of its Context; each step it packs one decode token for every
// running sequence plus chunks of admitted prompts into one batch (continuous batching with
// chunked prefill), samples every output row and streams the tokens. Requests join and leave
// between steps; admission is by free KV blocks, and the paged cache's prefix index lets a
// request reuse the blocks of an earlier one with the same beginning.
//
//   Engine engine(ctx, {.max_running = 8});
//   uint64_t id = engine.submit(std::move(request), sink);   // QueueFull, ContextExceeded, ...
//   engine.cancel(id);                                        // any time, idempotent
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "engine/metrics.h"
#include "model/context.h"
#include "sampler/logprobs.h"
#include "sampler/params.h"

namespace zen::engine {

struct EngineParams {
  uint32_t max_running = 8;         // sequences decoding together (--parallel)
  uint32_t max_queued = 64;         // waiting requests beyond which submit() throws QueueFull
  uint32_t prefill_chunk = 256;     // prompt tokens per sequence per step (chunked prefill)
  uint32_t max_batch_tokens = 512;  // tokens per step over all sequences
  // Prompt tokens a step may carry while other sequences are generating: a step's time is the
  // inter-token latency of every running stream, so a long prompt enters in small chunks
  // beside them (max_batch_tokens still applies when nothing is generating).
  uint32_t prefill_while_decoding = 64;
  uint32_t n_ctx_per_seq = 0;  // longest prompt + generation; 0 = the model's n_ctx_train,
                               // capped at the cache size
  // A seeded request gives the same tokens alone or alongside others: each sequence runs in
  // its own micro-batch, prefill chunks depend on the request alone, and the Context must be
  // built with ContextParams::gather_kv.
  bool deterministic = false;
};

struct Request {
  std::vector<int32_t> prompt;       // already tokenized (non-empty)
  sampling::Params sampling;         // validated by submit()
  int32_t max_tokens = -1;           // -1: until the end of the context
  int32_t n = 1;                     // choices; choice i seeds with seed + i
  std::vector<int32_t> stop_tokens;  // end-of-generation ids (the model's EOG set)
  bool ignore_eos = false;           // stop_tokens are then ordinary tokens
  // Each LoRA adapter's scale, in the Context's adapter order (0 = unused); empty: the
  // Context's defaults (--lora-scale).
  std::vector<float> lora;
};

enum class Finish { kStop, kLength, kCancelled, kError };  // kStop: EOG token or sink asked

struct Usage {
  uint32_t prompt_tokens = 0;
  uint32_t cached_tokens = 0;      // prompt tokens found in the prefix cache (choice 0)
  uint32_t completion_tokens = 0;  // tokens given to on_token, all choices together
};

// Called on the engine thread; must return quickly and never block on I/O. May call
// Engine::cancel (never submit or stop: those could wait on the engine thread).
class Sink {
 public:
  virtual ~Sink() = default;
  // A sampled token of one choice (logprobs set when the request asked). Return false to end
  // this choice now with kStop (a stop string matched). A stop token is not passed here.
  virtual bool on_token(int choice, int32_t token, const sampling::Logprobs* logprobs) = 0;
  virtual void on_finish(int choice, Finish reason, const std::string& error) = 0;
  // After every choice finished (or the request was cancelled/failed): the last call.
  virtual void on_done(const Usage& usage) = 0;
};

struct QueueFull : std::runtime_error {  // also thrown once the engine is stopping
  using runtime_error::runtime_error;
};
struct ContextExceeded : std::runtime_error {  // prompt (+ max_tokens) > n_ctx_per_seq
  using runtime_error::runtime_error;
};
struct InvalidRequest : std::runtime_error {
  using runtime_error::runtime_error;
};

class Scheduler;

class Engine {
 public:
  // Takes over ctx (clears its cache) until destroyed. Throws std::invalid_argument on
  // inconsistent params, or when deterministic is set and ctx was built without gather_kv.
  Engine(model::Context& ctx, EngineParams params);
  ~Engine();  // stop()
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Queues the request and returns its id. Throws InvalidRequest, ContextExceeded or QueueFull
  // (no Sink call is made then).
  uint64_t submit(Request request, std::shared_ptr<Sink> sink);
  // Ends the request at any stage: its sink gets on_finish(kCancelled) for every unfinished
  // choice, then on_done. Idempotent; an unknown or finished id is ignored.
  void cancel(uint64_t id);
  Metrics metrics() const;
  uint32_t n_ctx_per_seq() const { return n_ctx_per_seq_; }
  // Cancels everything (queued and running), delivers the last Sink calls and joins the
  // engine thread. Idempotent; submit() afterwards throws QueueFull.
  void stop();

 private:
  void validate(const Request& request) const;
  void run();

  EngineParams params_;
  int32_t n_vocab_ = 0;
  uint32_t n_ctx_per_seq_ = 0;
  size_t n_lora_ = 0;                     // the Context's LoRA adapters
  std::unique_ptr<Scheduler> scheduler_;  // engine thread only (but queued())
  MetricsRecorder metrics_;

  // Shared with submit()/cancel(): the inbox the engine thread drains between steps.
  struct Submitted {
    uint64_t id;
    Request request;
    std::shared_ptr<Sink> sink;
    MetricsRecorder::Clock::time_point when;
  };
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Submitted> inbox_;
  std::unordered_set<uint64_t> cancels_;
  uint64_t next_id_ = 1;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace zen::engine
