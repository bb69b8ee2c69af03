#include "engine_service.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>

#include "api_error.h"
#include "metrics_text.h"
#include "prompt.h"
#include "text/utf8.h"
#include "tool_loop.h"

namespace zen::serving {
namespace {

void check_context(const ServedModel& model, const GenerationRequest& r, size_t prompt_tokens) {
  const size_t n_ctx = model.engine().n_ctx_per_seq();
  const size_t wanted = prompt_tokens + static_cast<size_t>(r.max_tokens > 0 ? r.max_tokens : 1);
  if (wanted <= n_ctx) return;
  std::string message = "This model's maximum context length is " + std::to_string(n_ctx) +
                        " tokens. However, you requested " + std::to_string(wanted) + " tokens (" +
                        std::to_string(prompt_tokens) + " in the " + r.prompt_member();
  message += r.max_tokens > 0 ? ", " + std::to_string(r.max_tokens) + " in the completion)."
                              : ", at least 1 to generate).";
  throw ApiError::invalid(r.prompt_member(), message, "context_length_exceeded");
}

void check_logit_bias(const ServedModel& model, const GenerationRequest& r) {
  const int32_t n_vocab = model.tokenizer().n_vocab();
  for (const auto& [token, bias] : r.sampling.logit_bias)
    if (token >= n_vocab)
      throw ApiError::invalid("logit_bias", "'logit_bias' token id " + std::to_string(token) +
                                                " is outside the vocabulary (0 to " +
                                                std::to_string(n_vocab - 1) + ")");
}

RequestInfo new_request_info(const GenerationRequest& r, const ServedModel& model,
                             std::chrono::steady_clock::time_point received, uint64_t id) {
  RequestInfo info;
  info.tag = r.tag.empty() ? "request-" + std::to_string(id) : r.tag;
  info.model = model.id();
  info.created = static_cast<int64_t>(std::time(nullptr));
  info.received = received;
  return info;
}

task::GenerateEvent error_event(const ApiError& e) {
  task::GenerateEvent event;
  event.kind = ZEN_EVENT_ERROR;
  event.error = e.task_error();
  return event;
}

}  // namespace

EngineService::EngineService(ModelRegistry& models, LogFn log)
    : models_(models), log_(std::move(log)) {}

EngineService::~EngineService() {
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, entry] : in_flight_)
      if (entry.stop) *entry.stop = true;  // a running pipeline stops at its next step
  }
  pipelines_.stop();
  encoders_.stop();  // queued embed and rerank requests are answered first
  prep_.stop();      // what was queued is prepared and submitted (or refused) first
  std::vector<std::shared_ptr<ToolLoop>> loops;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, entry] : in_flight_)
      if (entry.loop) loops.push_back(entry.loop);
  }
  for (const auto& loop : loops) loop->cancel();  // tool calls return, no new round starts
  models_.stop();                                 // every engine round ends with its last event
  tool_threads_.stop();                           // every loop between rounds has ended itself
}

nlohmann::json EngineService::status() const { return models_.status(); }

nlohmann::json EngineService::list_models() const {
  nlohmann::json data = nlohmann::json::array();
  for (const auto& m : models_.ready()) {
    const ModelInfo& info = m->info();
    data.push_back(
        {{"id", m->id()},
         {"object", "model"},
         {"created", info.created},
         {"owned_by", "zen"},
         {"meta",
          {{"architecture", info.architecture},
           {"n_ctx", info.n_ctx},
           {"n_params", info.n_params},
           {"quant", info.quant},
           // The file's name only: where models live on this machine (user
           // names, directory layout) is nobody's business over the network.
           {"file", text::utf8::to_valid(std::filesystem::path(info.path).filename().string())}}}});
  }
  return {{"object", "list"}, {"data", std::move(data)}};
}

uint64_t EngineService::submit(task::GenerateRequest request, EmitFn emit) {
  const auto received = std::chrono::steady_clock::now();
  uint64_t id = 0;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
    in_flight_[id];  // cancel() finds it (and marks it) while it waits to be prepared
  }
  auto task = [this, id, r = std::move(request), emit, received]() mutable {
    try {
      prepare(id, std::move(r), emit, received);
    } catch (const ApiError& e) {
      release(id);
      emit(error_event(e), true);
    } catch (const std::exception& e) {
      release(id);
      emit(error_event(ApiError::internal(e.what())), true);
    }
  };
  if (!prep_.post(std::move(task))) {
    release(id);
    throw ApiError::unavailable("the server is shutting down", "shutting_down");
  }
  return id;
}

void EngineService::embed(EmbedRequest request, EmbedDone done) {
  answer_on<Embeddings>(
      encoders_,
      [this, r = std::move(request)] { return models_.find(r.model)->embedder().embed(r); },
      std::move(done));
}

void EngineService::rerank(RerankRequest request, RerankDone done) {
  answer_on<Reranked>(
      encoders_,
      [this, r = std::move(request)] { return models_.find(r.model)->embedder().rerank(r); },
      std::move(done));
}

uint64_t EngineService::run_pipeline(const std::string& model, PipelineWork work,
                                     std::function<void(const ApiError&)> fail) {
  auto stop = std::make_shared<std::atomic<bool>>(false);
  uint64_t id = 0;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
    in_flight_[id].stop = stop;
  }
  auto task = [this, id, model, stop, work = std::move(work), fail = std::move(fail)] {
    try {
      work(*models_.find(model), *stop);
    } catch (const ApiError& e) {
      fail(e);
    } catch (const std::exception& e) {
      fail(ApiError::internal(e.what()));
    }
    release(id);
  };
  if (!pipelines_.post(std::move(task))) {
    release(id);
    throw ApiError::unavailable("the server is shutting down", "shutting_down");
  }
  return id;
}

uint32_t EngineService::task_kinds(const std::string& id) const {
  try {
    return models_.find(id)->task_kinds();
  } catch (const ApiError&) {
    return 0;
  }
}

void EngineService::prepare(uint64_t id, task::GenerateRequest typed, EmitFn emit,
                            std::chrono::steady_clock::time_point received) {
  {
    std::lock_guard lock(mu_);
    auto it = in_flight_.find(id);
    if (it != in_flight_.end() && it->second.cancel_requested)  // the client left meanwhile
      throw ApiError::unavailable("the request was cancelled before it started", "cancelled");
  }
  GenerationRequest r = generation_request(std::move(typed));
  std::shared_ptr<ServedModel> model = models_.find(r.model);
  model->sampling_defaults().apply(r.sampling, r.sampling_given);
  RequestInfo info = new_request_info(r, *model, received, id);
  if (hub_ && add_hub_tools(r, *hub_, model->id()))
    return submit_tool_loop(id, std::move(r), std::move(info), std::move(emit));
  submit_round(r, std::move(model), std::move(info), id, /*own_entry=*/true, std::move(emit));
}

void EngineService::submit_round(const GenerationRequest& r, std::shared_ptr<ServedModel> model,
                                 RequestInfo info, uint64_t id, bool own_entry, EmitFn emit) {
  model->check_generates();  // before an encoder's (maybe missing) tokenizer is asked
  Prompt prompt = build_prompt(*model, r);
  check_logit_bias(*model, r);
  check_context(*model, r, prompt.tokens.size());

  std::vector<std::unique_ptr<ChoiceStream>> choices;
  for (int i = 0; i < r.n; ++i) {
    std::unique_ptr<ChatOutput> output;
    if (prompt.output) output = std::make_unique<ChatOutput>(*prompt.output);
    choices.push_back(
        std::make_unique<ChoiceStream>(model->tokenizer(), r.stop, std::move(output)));
  }

  {
    std::lock_guard lock(mu_);
    InFlight& entry = in_flight_[id];
    entry.model = model;
    entry.engine_id = 0;
  }
  auto release_own = [this, id, own_entry] {
    if (own_entry) release(id);
  };
  auto sink = std::make_shared<RequestSink>(
      std::move(info), std::move(choices), std::move(emit), log_,
      own_entry ? std::function<void()>(release_own) : std::function<void()>());
  engine::Request er;
  er.prompt = std::move(prompt.tokens);
  er.sampling = r.sampling;
  er.max_tokens = r.max_tokens;
  er.n = r.n;
  er.stop_tokens = model->eog_tokens();
  er.ignore_eos = r.ignore_eos;
  uint64_t engine_id = 0;
  try {
    er.lora = model->lora_scales(r.lora);
  } catch (...) {
    release_own();
    throw;
  }
  try {
    engine_id = model->engine().submit(std::move(er), sink);
  } catch (const engine::QueueFull& e) {
    release_own();
    throw ApiError::overloaded("model '" + model->id() + "' is busy: " + e.what(), 1);
  } catch (const engine::ContextExceeded& e) {
    release_own();
    throw ApiError::invalid(r.prompt_member(), e.what(), "context_length_exceeded");
  } catch (const engine::InvalidRequest& e) {
    release_own();
    throw ApiError::invalid("", e.what());
  }
  bool cancel_now = false;
  {
    std::lock_guard lock(mu_);
    auto it = in_flight_.find(id);
    if (it != in_flight_.end()) {  // else: already done
      it->second.engine_id = engine_id;
      cancel_now = it->second.cancel_requested;
    }
  }
  if (cancel_now) model->engine().cancel(engine_id);
}

void EngineService::submit_tool_loop(uint64_t id, GenerationRequest r, RequestInfo info,
                                     EmitFn emit) {
  ToolLoop::Services services;
  services.hub = hub_;
  services.model = info.model;
  services.workers = &tool_threads_;
  services.log = log_;
  services.submit = [this, id, info](const GenerationRequest& round, EmitFn round_emit) {
    submit_round(round, models_.find(round.model), info, id, /*own_entry=*/false,
                 std::move(round_emit));
  };
  services.ended = [this, id] { release(id); };
  r.tag = info.tag;
  auto loop = std::make_shared<ToolLoop>(std::move(r), std::move(emit), std::move(services));
  {
    std::lock_guard lock(mu_);
    in_flight_[id].loop = loop;
  }
  loop->start();  // an ApiError reaches prepare()'s caller, which releases the entry
}

void EngineService::set_tool_hub(std::shared_ptr<mcp::ToolHub> hub) { hub_ = std::move(hub); }

void EngineService::cancel(uint64_t id) {
  std::shared_ptr<ServedModel> model;
  std::shared_ptr<ToolLoop> loop;
  uint64_t engine_id = 0;
  {
    std::lock_guard lock(mu_);
    auto it = in_flight_.find(id);
    if (it == in_flight_.end()) return;
    it->second.cancel_requested = true;  // submit_round() cancels once it knows the engine id
    engine_id = it->second.engine_id;
    model = it->second.model.lock();
    loop = it->second.loop;
    if (it->second.stop) *it->second.stop = true;
  }
  if (loop) loop->cancel();  // between rounds: its tool calls are abandoned
  if (model && engine_id != 0) model->engine().cancel(engine_id);
}

void EngineService::release(uint64_t id) {
  std::lock_guard lock(mu_);
  in_flight_.erase(id);
}

void EngineService::tokenize(TokenizeRequest request, TokenizeDone done) {
  answer_on<Tokenized>(
      prep_, [this, r = std::move(request)] { return tokenize_now(r); }, std::move(done));
}

Tokenized EngineService::tokenize_now(const TokenizeRequest& r) const {
  const std::shared_ptr<ServedModel> model = models_.find(r.model);
  const tokenizer::Tokenizer& tok = model->tokenizer();
  Tokenized out;
  if (r.detokenize) {
    for (int32_t id : r.tokens)
      if (id < 0 || id >= tok.n_vocab())
        throw ApiError::invalid("tokens", "'tokens' must hold token ids from 0 to " +
                                              std::to_string(tok.n_vocab() - 1) + ", got " +
                                              std::to_string(id));
    out.text = tok.decode(r.tokens, /*skip_special=*/false);
    return out;
  }
  out.tokens = tok.encode(r.text, r.add_special, r.parse_special);
  if (r.with_pieces)
    for (int32_t id : out.tokens) out.pieces.push_back(tok.piece(id));
  return out;
}

std::string EngineService::metrics() const {
  std::vector<std::pair<std::string, engine::Metrics>> all;
  for (const auto& m : models_.ready())
    if (m->generates()) all.emplace_back(m->id(), m->engine().metrics());
  return prometheus_text(all);
}

}  // namespace zen::serving
