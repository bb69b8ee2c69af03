#include "engine_service.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <random>

#include <zen/json_depth.hpp>
#include "api_error.h"
#include "json_fields.h"
#include "metrics_text.h"
#include "prompt.h"
#include "sampler/rng.h"
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
                        std::to_string(prompt_tokens) + " in the " +
                        (r.endpoint == Endpoint::kChat ? "messages" : "prompt");
  message += r.max_tokens > 0 ? ", " + std::to_string(r.max_tokens) + " in the completion)."
                              : ", at least 1 to generate).";
  throw ApiError::invalid(r.endpoint == Endpoint::kChat ? "messages" : "prompt", message,
                          "context_length_exceeded");
}

void check_logit_bias(const ServedModel& model, const GenerationRequest& r) {
  const int32_t n_vocab = model.tokenizer().n_vocab();
  for (const auto& [token, bias] : r.sampling.logit_bias)
    if (token >= n_vocab)
      throw ApiError::invalid("logit_bias", "'logit_bias' token id " + std::to_string(token) +
                                                " is outside the vocabulary (0 to " +
                                                std::to_string(n_vocab - 1) + ")");
}

int32_t token_id(const Json& v, const tokenizer::Tokenizer& tok, const std::string& param) {
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= tok.n_vocab())
    throw ApiError::invalid(param, "'" + param + "' must hold token ids from 0 to " +
                                       std::to_string(tok.n_vocab() - 1) + ", got " + brief(v));
  return v.get<int32_t>();
}

RequestInfo new_request_info(const GenerationRequest& r, const ServedModel& model,
                             std::chrono::steady_clock::time_point received) {
  thread_local std::mt19937_64 rng{sampling::random_seed()};
  RequestInfo info;
  info.id = sampling::random_id(r.endpoint == Endpoint::kChat ? "chatcmpl-" : "cmpl-", rng);
  info.model = model.id();
  info.created = static_cast<int64_t>(std::time(nullptr));
  info.received = received;
  return info;
}

// An error as the one event a request then gets (the shape c_api.cpp's submit also sends).
Json error_event(const ApiError& e) {
  Json event = {{"type", "error"}};
  const nlohmann::json body = e.to_json();  // named: items() does not keep it alive
  for (const auto& [k, v] : body.items()) event[k] = v;
  return event;
}

}  // namespace

Json parse_body(std::string_view text) {
  if (text::json_depth(text) > text::kMaxJsonDepth)
    throw ApiError::invalid("", "the request body nests deeper than " +
                                    std::to_string(text::kMaxJsonDepth) + " levels");
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    throw ApiError::invalid("", std::string("the request body is not valid JSON: ") + e.what());
  }
}

EngineService::EngineService(ModelRegistry& models, LogFn log)
    : models_(models), log_(std::move(log)) {}

EngineService::~EngineService() {
  prep_.stop();  // what was queued is prepared and submitted (or refused) first
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

uint64_t EngineService::submit(std::string_view request_json, EmitFn emit) {
  const auto received = std::chrono::steady_clock::now();
  uint64_t id = 0;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
    in_flight_[id];  // cancel() finds it (and marks it) while it waits to be prepared
  }
  auto task = [this, id, text = std::string(request_json), emit, received] {
    try {
      prepare(id, text, emit, received);
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
  auto task = [this, r = std::move(request), done] {
    try {
      const std::shared_ptr<ServedModel> model = models_.find(r.model);
      if (r.inputs.empty()) throw ApiError::invalid("input", "'input' has no items to embed");
      std::vector<std::vector<int32_t>> seqs;
      Embeddings out;
      for (size_t i = 0; i < r.inputs.size(); ++i) {
        const EmbedRequest::Input& in = r.inputs[i];
        seqs.push_back(in.is_text ? model->tokenizer().encode(in.text, true, false) : in.tokens);
        if (seqs.back().empty())
          throw ApiError::invalid("input", "input " + std::to_string(i) + " has no tokens");
        out.prompt_tokens += seqs.back().size();
      }
      out.vectors = model->embed(seqs, r.normalize);
      done(&out, nullptr);
    } catch (const ApiError& e) {
      done(nullptr, &e);
    } catch (const std::exception& e) {
      const ApiError internal = ApiError::internal(e.what());
      done(nullptr, &internal);
    }
  };
  if (!prep_.post(std::move(task)))
    throw ApiError::unavailable("the server is shutting down", "shutting_down");
}

uint32_t EngineService::task_kinds(const std::string& id) const {
  try {
    return models_.find(id)->task_kinds();
  } catch (const ApiError&) {
    return 0;
  }
}

void EngineService::prepare(uint64_t id, const std::string& request_json, EmitFn emit,
                            std::chrono::steady_clock::time_point received) {
  {
    std::lock_guard lock(mu_);
    auto it = in_flight_.find(id);
    if (it != in_flight_.end() && it->second.cancel_requested)  // the client left meanwhile
      throw ApiError::unavailable("the request was cancelled before it started", "cancelled");
  }
  Json body = parse_body(request_json);
  const Json endpoint = body.is_object() ? body.value("endpoint", Json()) : Json();
  if (endpoint == "tokenize" || endpoint == "detokenize") {  // one event, no generation
    body.erase("endpoint");
    Json result = endpoint == "tokenize" ? tokenize_body(body) : detokenize_body(body);
    release(id);
    return emit(Json{{"type", "result"}, {"result", std::move(result)}}, true);
  }
  if (hub_ && add_hub_tools(body, *hub_, hub_model(body)))
    return submit_tool_loop(id, std::move(body), std::move(emit), received);
  const GenerationRequest r = parse_generation_request(body);
  std::shared_ptr<ServedModel> model = models_.find(r.model);
  RequestInfo info = new_request_info(r, *model, received);
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
    engine_id = model->engine().submit(std::move(er), sink);
  } catch (const engine::QueueFull& e) {
    release_own();
    throw ApiError::overloaded("model '" + model->id() + "' is busy: " + e.what(), 1);
  } catch (const engine::ContextExceeded& e) {
    release_own();
    throw ApiError::invalid(r.endpoint == Endpoint::kChat ? "messages" : "prompt", e.what(),
                            "context_length_exceeded");
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

void EngineService::submit_tool_loop(uint64_t id, Json body, EmitFn emit,
                                     std::chrono::steady_clock::time_point received) {
  // The whole request is checked here, so a bad one is refused before any round starts.
  const GenerationRequest first = parse_generation_request(body);
  const RequestInfo info = new_request_info(first, *models_.find(first.model), received);
  ToolLoop::Services services;
  services.hub = hub_;
  services.model = info.model;
  services.workers = &tool_threads_;
  services.log = log_;
  services.submit = [this, id, info](const Json& round, EmitFn round_emit) {
    const GenerationRequest r = parse_generation_request(round);
    submit_round(r, models_.find(r.model), info, id, /*own_entry=*/false, std::move(round_emit));
  };
  services.ended = [this, id] { release(id); };
  auto loop =
      std::make_shared<ToolLoop>(std::move(body), info.id, std::move(emit), std::move(services));
  {
    std::lock_guard lock(mu_);
    in_flight_[id].loop = loop;
  }
  loop->start();  // an ApiError reaches prepare()'s caller, which releases the entry
}

std::string EngineService::hub_model(const Json& body) const {
  // A "model" of the wrong type is left for parse_generation_request to name.
  const Json model = body.is_object() ? body.value("model", Json()) : Json();
  if (!model.is_null() && !model.is_string()) return {};
  return models_.find(model.is_string() ? model.get<std::string>() : std::string())->id();
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
  }
  if (loop) loop->cancel();  // between rounds: its tool calls are abandoned
  if (model && engine_id != 0) model->engine().cancel(engine_id);
}

void EngineService::release(uint64_t id) {
  std::lock_guard lock(mu_);
  in_flight_.erase(id);
}

Json EngineService::tokenize(std::string_view request_json) const {
  return tokenize_body(parse_body(request_json));
}

Json EngineService::detokenize(std::string_view request_json) const {
  return detokenize_body(parse_body(request_json));
}

Json EngineService::tokenize_body(const Json& body) const {
  JsonFields f(body);
  const std::shared_ptr<ServedModel> model = models_.find(f.string("model").value_or(""));
  const auto content = f.string("content");
  if (!content) throw ApiError::invalid("content", "'content' is required");
  const bool add_special = f.boolean("add_special").value_or(true);
  const bool parse_special = f.boolean("parse_special").value_or(true);
  const bool with_pieces = f.boolean("with_pieces").value_or(false);
  f.finish();
  const tokenizer::Tokenizer& tok = model->tokenizer();
  Json tokens = Json::array();
  for (int32_t id : tok.encode(*content, add_special, parse_special)) {
    if (!with_pieces) {
      tokens.push_back(id);
      continue;
    }
    const std::string piece = tok.piece(id);
    Json shown = text::utf8::to_valid(piece);
    if (shown.get_ref<const std::string&>() != piece) {  // not text: show the bytes
      shown = Json::array();
      for (unsigned char c : piece) shown.push_back(static_cast<int>(c));
    }
    tokens.push_back(Json{{"id", id}, {"piece", std::move(shown)}});
  }
  return Json{{"tokens", std::move(tokens)}};
}

Json EngineService::detokenize_body(const Json& body) const {
  JsonFields f(body);
  const std::shared_ptr<ServedModel> model = models_.find(f.string("model").value_or(""));
  const Json* tokens = f.get("tokens");
  f.finish();
  if (!tokens || !tokens->is_array())
    throw ApiError::invalid("tokens", "'tokens' must be an array of token ids");
  std::vector<int32_t> ids;
  for (const Json& t : *tokens) ids.push_back(token_id(t, model->tokenizer(), "tokens"));
  return Json{
      {"content", text::utf8::to_valid(model->tokenizer().decode(ids, /*skip_special=*/false))}};
}

std::string EngineService::metrics() const {
  std::vector<std::pair<std::string, engine::Metrics>> all;
  for (const auto& m : models_.ready())
    if (!m->is_encoder()) all.emplace_back(m->id(), m->engine().metrics());
  return prometheus_text(all);
}

}  // namespace zen::serving
