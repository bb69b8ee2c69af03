#include "engine/scheduler.h"

#include <algorithm>
#include <bit>
#include <exception>

#include "sampler/rng.h"

namespace zen::engine {
namespace {

// A sink that throws must not take the engine thread down: its exception ends its choice (see
// Scheduler::sample) or, from on_finish/on_done, is dropped.
void notify_finish(Job& job, int choice, Finish reason, const std::string& error) noexcept {
  try {
    job.sink->on_finish(choice, reason, error);
  } catch (...) {
  }
}

void notify_done(Job& job) noexcept {
  try {
    job.sink->on_done(job.usage);
  } catch (...) {
  }
}

}  // namespace

Scheduler::Scheduler(model::Context& ctx, const EngineParams& params, uint32_t n_ctx_per_seq,
                     MetricsRecorder& metrics)
    : ctx_(ctx),
      kv_(ctx.kv()),
      params_(params),
      limits_{params.prefill_chunk, params.max_batch_tokens, params.prefill_while_decoding,
              params.deterministic},
      n_ctx_per_seq_(n_ctx_per_seq),
      metrics_(metrics) {}

Scheduler::~Scheduler() = default;

void Scheduler::enqueue(uint64_t id, Request request, std::shared_ptr<Sink> sink,
                        MetricsRecorder::Clock::time_point submitted) {
  auto job = std::make_unique<Job>();
  job->id = id;
  job->sink = std::move(sink);
  job->submitted = submitted;
  job->seed = request.sampling.seed ? *request.sampling.seed : sampling::random_seed();
  job->usage.prompt_tokens = static_cast<uint32_t>(request.prompt.size());
  job->unfinished = static_cast<uint32_t>(request.n);
  job->choices.resize(static_cast<size_t>(request.n));
  job->lora = request.lora.empty() ? ctx_.lora_defaults() : request.lora;
  for (float scale : job->lora)  // FNV-1a over the scales' bits: equal mixes share a root
    if (scale != 0.0f) {
      uint64_t h = 0xcbf29ce484222325ull;
      for (float f : job->lora) h = (h ^ std::bit_cast<uint32_t>(f)) * 0x100000001b3ull;
      job->lora_root = h ? h : 1;
      break;
    }
  for (int i = 0; i < request.n; ++i) {
    Sequence& s = job->choices[static_cast<size_t>(i)];
    s.job = job.get();
    s.choice = i;
    s.tokens = request.prompt;
    s.prompt_len = static_cast<uint32_t>(request.prompt.size());
  }
  job->request = std::move(request);
  queue_.push_back(std::move(job));
  queue_changed();
}

void Scheduler::cancel(uint64_t id) {
  auto queued = std::find_if(queue_.begin(), queue_.end(), [&](auto& j) { return j->id == id; });
  if (queued != queue_.end()) {
    end_queued(**queued, Finish::kCancelled);
    queue_.erase(queued);
    queue_changed();
    return;
  }
  for (auto& job : active_)
    if (job->id == id)
      for (Sequence& s : job->choices) finish(s, Finish::kCancelled);
  drop_done_jobs();
}

void Scheduler::cancel_all() {
  for (auto& job : queue_) end_queued(*job, Finish::kCancelled);
  queue_.clear();
  queue_changed();
  for (auto& job : active_)
    for (Sequence& s : job->choices) finish(s, Finish::kCancelled);
  drop_done_jobs();
}

void Scheduler::fail_running(const std::string& message) {
  const std::vector<Sequence*> running = running_;
  for (Sequence* s : running) finish(*s, Finish::kError, message);
  drop_done_jobs();
}

bool Scheduler::has_work() const {
  if (!running_.empty()) return true;
  if (admission_blocked_) return false;
  if (!queue_.empty()) return true;
  for (const auto& job : active_)
    for (const Sequence& s : job->choices)
      if (s.state == Sequence::State::kWaiting) return true;
  return false;
}

void Scheduler::end_queued(Job& job, Finish reason, const std::string& error) {
  for (Sequence& s : job.choices) {
    s.state = Sequence::State::kFinished;
    notify_finish(job, s.choice, reason, error);
  }
  job.unfinished = 0;
  notify_done(job);
}

int32_t Scheduler::acquire_seq_id() {
  if (free_seq_ids_.empty()) return next_seq_id_++;
  // Lowest free id first keeps the ids (and the cache's per-sequence tables) compact.
  auto it = std::min_element(free_seq_ids_.begin(), free_seq_ids_.end());
  const int32_t id = *it;
  free_seq_ids_.erase(it);
  return id;
}

void Scheduler::release(Sequence& s) {
  if (s.seq < 0) return;
  kv_.seq_free(s.seq);
  free_seq_ids_.push_back(s.seq);
  s.seq = -1;
  running_.erase(std::find(running_.begin(), running_.end(), &s));
  admission_blocked_ = false;
}

void Scheduler::preempt(Sequence& s) {
  // Recompute later: the tokens and the sampler stay, the K/V go (published blocks may still
  // be found in the prefix cache when it comes back).
  release(s);
  s.n_cached = 0;
  s.n_published = 0;
  s.state = Sequence::State::kWaiting;
}

void Scheduler::finish(Sequence& s, Finish reason, const std::string& error) {
  if (s.state == Sequence::State::kFinished) return;
  release(s);
  s.state = Sequence::State::kFinished;
  Job& job = *s.job;
  if (s.choice == 0) job.prompt_ready = true;  // the other choices must not wait for it
  --job.unfinished;
  notify_finish(job, s.choice, reason, error);
  if (job.done()) notify_done(job);
}

void Scheduler::drop_done_jobs() {
  std::erase_if(active_, [](const std::unique_ptr<Job>& j) { return j->done(); });
}

bool Scheduler::try_admit(Sequence& s) {
  if (running_.size() >= params_.max_running) return false;
  const int32_t seq = acquire_seq_id();
  const uint32_t len = static_cast<uint32_t>(s.tokens.size());
  const uint32_t chunk = params_.prefill_chunk;
  // At least the last token is computed: its logits give the next token.
  uint32_t max_attach = len - 1;
  // Deterministic: only whole prompt chunks are published, and a sequence attaches only whole
  // chunks, so what it reuses is bit for bit what it would have computed itself.
  if (params_.deterministic) max_attach = std::min(max_attach, s.prompt_len) / chunk * chunk;
  uint32_t attached =
      max_attach ? kv_.attach_prefix(seq, s.tokens, max_attach, s.job->lora_root) : 0;
  if (params_.deterministic && attached % chunk) {
    attached = attached / chunk * chunk;
    kv_.seq_truncate(seq, static_cast<int32_t>(attached));
  }
  // Blocks the running prompts still need are spoken for (and the generating sequences' next
  // tokens: their pending() is 1).
  uint32_t promised = 0;
  for (const Sequence* r : running_) promised += kv_.blocks_needed(r->seq, r->pending());
  const uint32_t need = kv_.blocks_needed(seq, len - attached);
  if (promised + need > kv_.blocks_available()) {
    kv_.seq_free(seq);
    free_seq_ids_.push_back(seq);
    admission_blocked_ = true;
    return false;
  }
  Job& job = *s.job;
  s.seq = seq;
  s.n_cached = attached;
  s.n_published = attached;
  s.state = Sequence::State::kRunning;
  s.admitted_at = ++admissions_;
  running_.push_back(&s);
  if (!s.sampler) {  // first admission (not a resumption after preemption)
    if (s.choice == 0) job.usage.cached_tokens = attached;
    try {
      sampling::Params p = job.request.sampling;
      p.seed = job.seed + static_cast<uint64_t>(s.choice);
      s.sampler = std::make_unique<sampling::Sampler>(p, ctx_.n_vocab());
      s.sampler->add_prompt(std::span(s.tokens.data(), s.prompt_len));
    } catch (const std::exception& e) {
      finish(s, Finish::kError, e.what());
    }
  }
  return true;
}

void Scheduler::admit() {
  if (admission_blocked_) return;
  // Sequences of admitted requests first (resumptions, then the other choices of n > 1 once
  // choice 0 has the prompt in the cache), then the queue, first come first served.
  for (auto& job : active_)
    for (Sequence& s : job->choices)
      if (s.state == Sequence::State::kWaiting && (s.choice == 0 || job->prompt_ready))
        if (!try_admit(s)) return;
  while (!queue_.empty()) {
    if (!try_admit(queue_.front()->choices[0])) return;
    active_.push_back(std::move(queue_.front()));
    queue_.pop_front();
    queue_changed();
  }
}

StepPlan Scheduler::plan() {
  for (;;) {
    StepPlan p = plan_step(running_, kv_, limits_);
    if (!p.short_of_blocks) return p;
    if (running_.size() == 1) {
      // Cannot happen while n_ctx_per_seq fits the cache; never spin if it does.
      finish(*running_.front(), Finish::kError, "the KV cache has no room for this sequence");
      return {};
    }
    preempt(*running_.back());  // the latest admitted, as vLLM does
  }
}

void Scheduler::execute(std::span<const Work> work) {
  model::Batch b;
  std::vector<bool> wants(work.size());
  for (size_t k = 0; k < work.size(); ++k) {
    const Work& w = work[k];
    const Sequence& s = *w.seq;
    wants[k] = w.wants_logits();
    for (uint32_t i = 0; i < w.n; ++i) {
      const uint32_t pos = s.n_cached + i;
      b.tokens.push_back(s.tokens[pos]);
      b.positions.push_back(static_cast<int32_t>(pos));
      b.seq_ids.push_back(s.seq);
      b.logits.push_back(wants[k] && i + 1 == w.n);
      if (!s.job->lora.empty())
        b.lora_scales.insert(b.lora_scales.end(), s.job->lora.begin(), s.job->lora.end());
    }
  }
  try {
    ctx_.decode(b);
  } catch (const std::exception& e) {
    for (const Work& w : work) finish(*w.seq, Finish::kError, e.what());
    return;
  }
  for (const Work& w : work) {
    Sequence& s = *w.seq;
    s.n_cached += w.n;
    publish_blocks(s);
    if (s.choice == 0 && s.n_cached >= s.prompt_len) s.job->prompt_ready = true;
  }
  size_t row = 0;
  for (size_t k = 0; k < work.size(); ++k)
    if (wants[k]) sample(*work[k].seq, ctx_.logits(row++));
}

void Scheduler::publish_blocks(Sequence& s) {
  uint32_t limit = s.n_cached;
  // Deterministic: generated tokens' K/V came from one-token steps, a later prompt holding
  // them would compute them as a chunk; only whole prompt chunks are shared.
  if (params_.deterministic)
    limit = std::min(limit, s.prompt_len) / params_.prefill_chunk * params_.prefill_chunk;
  const uint32_t block = kv_.block_size();
  if (limit / block <= s.n_published / block) return;
  kv_.publish(s.seq, std::span(s.tokens.data(), limit), s.job->lora_root);
  s.n_published = limit;
}

void Scheduler::sample(Sequence& s, std::span<const float> logits) {
  Job& job = *s.job;
  const Request& r = job.request;
  int32_t token = 0;
  try {
    token = s.sampler->sample(logits);
    s.sampler->accept(token);
  } catch (const std::exception& e) {
    finish(s, Finish::kError, e.what());
    return;
  }
  if (!job.first_token) {
    job.first_token = true;
    metrics_.first_token(
        std::chrono::duration<double>(MetricsRecorder::Clock::now() - job.submitted).count());
  }
  const bool stop = !r.ignore_eos && std::find(r.stop_tokens.begin(), r.stop_tokens.end(), token) !=
                                         r.stop_tokens.end();
  if (stop) {
    finish(s, Finish::kStop);
    return;
  }
  s.tokens.push_back(token);
  ++s.generated;
  ++job.usage.completion_tokens;
  ++step_tokens_;
  bool more = true;
  try {
    more = job.sink->on_token(s.choice, token, s.sampler->logprobs());
  } catch (const std::exception& e) {
    finish(s, Finish::kError, std::string("sink: ") + e.what());
    return;
  }
  if (!more)
    finish(s, Finish::kStop);
  else if (r.max_tokens >= 0 && s.generated >= static_cast<uint32_t>(r.max_tokens))
    finish(s, Finish::kLength);
  else if (s.tokens.size() >= n_ctx_per_seq_)  // no cell left for it: it ends the sequence
    finish(s, Finish::kLength);
}

void Scheduler::step() {
  step_tokens_ = 0;
  admit();
  if (running_.empty() && !queue_.empty() && admission_blocked_) {
    // Nothing runs, so every block is obtainable: the head can never fit (submit() should
    // have refused it). Fail it rather than wait forever.
    std::unique_ptr<Job> job = std::move(queue_.front());
    queue_.pop_front();
    queue_changed();
    end_queued(*job, Finish::kError, "the prompt does not fit in the KV cache");
    admission_blocked_ = false;
  }
  if (!running_.empty()) {
    const StepPlan p = plan();
    if (params_.deterministic) {
      for (const Work& w : p.work) execute(std::span(&w, 1));
    } else if (!p.work.empty()) {
      execute(p.work);
    }
  }
  drop_done_jobs();
  metrics_.tokens_generated(step_tokens_, MetricsRecorder::Clock::now());
  publish_metrics();
}

void Scheduler::publish_metrics() { metrics_.set_state(queued(), running(), kv_.stats()); }

}  // namespace zen::engine
