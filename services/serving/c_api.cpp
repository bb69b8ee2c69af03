#include "c_api.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "api_error.h"

namespace zen::serving {
namespace {

EngineService& service(zen_engine* e) {
  if (!e) throw ApiError::internal("the engine handle is NULL");
  return *reinterpret_cast<EngineService*>(e);
}

template <class J>
std::string dump(const J& j) {
  return j.dump(-1, ' ', false, J::error_handler_t::replace);
}

char* copy(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

// The table's JSON answers (list_models, status) and its retired JSON members answer an error
// as {"error": {"message", ...}, "status": N}.
std::string error_json(const std::string& message, int status) {
  nlohmann::json j = nlohmann::json::object();
  j["error"] = {{"message", message},
                {"type", status == 500 ? "server_error" : "invalid_request_error"}};
  j["status"] = status;
  return dump(j);
}

// Runs f, turning any exception into the JSON error shape.
template <class F>
char* answer(F&& f) {
  try {
    return copy(f());
  } catch (const std::exception& e) {
    return copy(error_json(e.what(), 500));
  } catch (...) {
    return copy(error_json("unknown error", 500));
  }
}

constexpr const char* kRetired =
    "the JSON requests of engine API 1.0-1.4 are retired: use the typed tasks of zen/task.h "
    "(submit_generate, submit_tokenize, submit_embed; ABI 1.5)";

char* list_models(zen_engine* e) {
  return answer([&] { return dump(service(e).list_models()); });
}

char* status(zen_engine* e) {
  return answer([&] { return dump(service(e).status()); });
}

zen_status retired_submit(zen_engine*, const char*, zen_event_cb cb, void* user, uint64_t* out_id) {
  if (out_id) *out_id = 0;
  if (cb) cb(user, error_json(kRetired, 400).c_str(), 1);
  return ZEN_ERR_UNSUPPORTED;
}

char* retired(zen_engine*, const char*) { return copy(error_json(kRetired, 400)); }

zen_status cancel(zen_engine* e, uint64_t id) {
  if (!e) return ZEN_ERR_INVALID_ARG;
  try {
    service(e).cancel(id);
    return ZEN_OK;
  } catch (...) {
    return ZEN_ERR_INTERNAL;
  }
}

char* metrics(zen_engine* e) {
  return answer([&] { return service(e).metrics(); });
}

void free_string(char* s) { std::free(s); }

// Every typed submit the same way: a request refused at once still reaches cb (through
// `refuse`), with its status returned too; an accepted one answers later from a host thread.
template <class Refuse, class Start>
zen_status submit_typed(Refuse&& refuse, Start&& start) {
  try {
    start();
    return ZEN_OK;
  } catch (const ApiError& err) {
    refuse(err);
    return err.status();
  } catch (const std::exception& ex) {
    const ApiError err = ApiError::internal(ex.what());
    refuse(err);
    return err.status();
  }
}

uint32_t task_kinds(zen_engine* e, const char* model) {
  try {
    return service(e).task_kinds(model ? model : "");
  } catch (...) {
    return 0;
  }
}

// Hands an answer or an error to the caller's callback as the typed structs of zen/task.h.
void answer_embed(zen_embed_cb cb, void* user, const Embeddings* r, const ApiError* err) {
  if (r) {
    const uint32_t n_embd = r->vectors.empty() ? 0 : static_cast<uint32_t>(r->vectors[0].size());
    std::vector<float> flat;
    flat.reserve(r->vectors.size() * n_embd);
    for (const std::vector<float>& v : r->vectors) flat.insert(flat.end(), v.begin(), v.end());
    const zen_embed_result res{ZEN_HDR_INIT(zen_embed_result),
                               static_cast<uint32_t>(r->vectors.size()), n_embd, flat.data(),
                               r->prompt_tokens};
    return cb(user, &res, nullptr);
  }
  const task::TaskError te = err->task_error();
  const zen_task_error c = te.c_view();
  cb(user, nullptr, &c);
}

zen_status submit_embed(zen_engine* e, const zen_embed_request* req, zen_embed_cb cb, void* user,
                        uint64_t* out_id) {
  if (!cb) return ZEN_ERR_INVALID_ARG;
  if (out_id) *out_id = 0;
  return submit_typed(
      [&](const ApiError& err) { answer_embed(cb, user, nullptr, &err); },
      [&] {
        if (!e || !req) throw ApiError::invalid("", "no engine or no request");
        if (!ZEN_HAS_MEMBER(req, zen_embed_request, normalize) || (req->n_inputs && !req->inputs))
          throw ApiError::invalid("input", "the embedding request is incomplete");
        EmbedRequest r;
        r.model = req->model ? req->model : "";
        r.normalize = req->normalize == 0   ? EmbedRequest::Normalize::kNo
                      : req->normalize == 2 ? EmbedRequest::Normalize::kAsModel
                                            : EmbedRequest::Normalize::kYes;
        if (ZEN_HAS_MEMBER(req, zen_embed_request, truncate)) {
          r.dimensions = req->dimensions;
          r.prompt_name = task::copy(req->prompt_name);
          r.truncate = req->truncate != 0;
        }
        for (uint32_t i = 0; i < req->n_inputs; ++i) {
          const zen_embed_input& in = req->inputs[i];
          EmbedRequest::Input& out = r.inputs.emplace_back();
          out.is_text = in.text != nullptr;
          if (out.is_text)
            out.text.assign(in.text, in.text_len);
          else if (in.n_tokens)
            out.tokens.assign(in.tokens, in.tokens + in.n_tokens);
        }
        service(e).embed(std::move(r), [cb, user](const Embeddings* res, const ApiError* err) {
          answer_embed(cb, user, res, err);
        });
      });
}

void send_event(zen_generate_cb cb, void* user, const task::GenerateEvent& event, bool last) {
  const task::GenerateEventView view(event);
  cb(user, view.get(), last ? 1 : 0);
}

zen_status submit_generate(zen_engine* e, const zen_generate_request* req, zen_generate_cb cb,
                           void* user, uint64_t* out_id) {
  if (!cb) return ZEN_ERR_INVALID_ARG;
  if (out_id) *out_id = 0;
  auto refuse = [&](const ApiError& err) {
    task::GenerateEvent event;
    event.kind = ZEN_EVENT_ERROR;
    event.error = err.task_error();
    send_event(cb, user, event, true);
  };
  return submit_typed(refuse, [&] {
    if (!e || !req) throw ApiError::invalid("", "no engine or no request");
    if (!ZEN_HAS_MEMBER(req, zen_generate_request, top_logprobs))
      throw ApiError::invalid("", "the generate request is incomplete (older than ABI 1.5)");
    EmitFn emit = [cb, user](const task::GenerateEvent& event, bool last) {
      send_event(cb, user, event, last);
    };
    const uint64_t id = service(e).submit(task::GenerateRequest::copy_of(*req), std::move(emit));
    if (out_id) *out_id = id;
  });
}

void answer_tokenize(zen_tokenize_cb cb, void* user, const Tokenized* r, const ApiError* err) {
  if (r) {
    std::vector<zen_str> pieces;
    for (const std::string& p : r->pieces) pieces.push_back(task::view(p));
    const zen_tokenize_result res{ZEN_HDR_INIT(zen_tokenize_result), r->tokens.data(),
                                  static_cast<uint32_t>(r->tokens.size()),
                                  pieces.empty() ? nullptr : pieces.data(), task::view(r->text)};
    return cb(user, &res, nullptr);
  }
  const task::TaskError te = err->task_error();
  const zen_task_error c = te.c_view();
  cb(user, nullptr, &c);
}

zen_status submit_tokenize(zen_engine* e, const zen_tokenize_request* req, zen_tokenize_cb cb,
                           void* user, uint64_t* out_id) {
  if (!cb) return ZEN_ERR_INVALID_ARG;
  if (out_id) *out_id = 0;
  return submit_typed(
      [&](const ApiError& err) { answer_tokenize(cb, user, nullptr, &err); },
      [&] {
        if (!e || !req) throw ApiError::invalid("", "no engine or no request");
        if (!ZEN_HAS_MEMBER(req, zen_tokenize_request, n_tokens) || (req->n_tokens && !req->tokens))
          throw ApiError::invalid("", "the tokenize request is incomplete");
        TokenizeRequest r;
        r.model = task::copy(req->model);
        r.detokenize = req->text.ptr == nullptr;
        r.text = task::copy(req->text);
        r.add_special = req->add_special != 0;
        r.parse_special = req->parse_special != 0;
        r.with_pieces = req->with_pieces != 0;
        if (req->tokens) r.tokens.assign(req->tokens, req->tokens + req->n_tokens);
        service(e).tokenize(std::move(r), [cb, user](const Tokenized* res, const ApiError* err) {
          answer_tokenize(cb, user, res, err);
        });
      });
}

// Rerank: numbered for the model kinds that will answer it (issue 20); no served model
// declares it yet, so each request is refused naming its model and what it serves.
ApiError not_served(EngineService& s, const char* model, const char* task) {
  const std::string id = task::copy(model);
  const uint32_t kinds = s.task_kinds(id);
  return ApiError::invalid("model", "model '" + id + "' does not serve " + task +
                                        (kinds ? " (see its capabilities in /v1/models)" : ""));
}

template <class Cb>
zen_status refuse_typed(zen_engine* e, const char* model, const char* task, Cb&& answer) {
  const ApiError err =
      e ? not_served(service(e), model, task) : ApiError::invalid("", "no engine or no request");
  const task::TaskError te = err.task_error();
  const zen_task_error c = te.c_view();
  answer(&c);
  return err.status();
}

void answer_rerank(zen_rerank_cb cb, void* user, const Reranked* r, const ApiError* err) {
  if (r) {
    zen_rerank_result out{};
    out.h = ZEN_HDR_INIT(zen_rerank_result);
    out.scores = r->scores.data();
    out.n_scores = static_cast<uint32_t>(r->scores.size());
    out.prompt_tokens = r->prompt_tokens;
    cb(user, &out, nullptr);
    return;
  }
  const task::TaskError te = err->task_error();
  const zen_task_error c = te.c_view();
  cb(user, nullptr, &c);
}

zen_status submit_rerank(zen_engine* e, const zen_rerank_request* req, zen_rerank_cb cb, void* user,
                         uint64_t* out_id) {
  if (!cb) return ZEN_ERR_INVALID_ARG;
  if (out_id) *out_id = 0;
  return submit_typed(
      [&](const ApiError& err) { answer_rerank(cb, user, nullptr, &err); },
      [&] {
        if (!e || !req) throw ApiError::invalid("", "no engine or no request");
        if (req->n_documents && !req->documents)
          throw ApiError::invalid("documents", "the rerank request is incomplete");
        RerankRequest r;
        r.model = req->model ? req->model : "";
        r.query = task::copy(req->query);
        for (uint32_t i = 0; i < req->n_documents; ++i)
          r.documents.push_back(task::copy(req->documents[i]));
        r.truncate = ZEN_HAS_MEMBER(req, zen_rerank_request, truncate) && req->truncate != 0;
        service(e).rerank(std::move(r), [cb, user](const Reranked* res, const ApiError* err) {
          answer_rerank(cb, user, res, err);
        });
      });
}

// A pipeline request's strings, owned while it waits and runs.
struct PipelineStrings {
  std::string model, a, b;
  zen_str view_a() const { return task::view(a); }
  zen_str view_b() const { return task::view(b); }
};

template <class Cb>
void send_error(Cb cb, void* user, const ApiError& err) {
  const task::TaskError te = err.task_error();
  const zen_task_error c = te.c_view();
  cb(user, nullptr, &c, 1);
}

// One pipeline request (image or speech): its model and two texts copied, `run` (the served
// model's image or speech) on the pipeline thread, a failure as the task's one last event.
template <class Req, class Cb>
zen_status submit_pipeline(zen_engine* e, const Req* req, Cb cb, void* user, uint64_t* out_id,
                           const char* what, zen_str Req::*text_a, zen_str Req::*text_b,
                           void (ServedModel::*run)(const Req&, Cb, void*,
                                                    const std::atomic<bool>&)) {
  if (!cb) return ZEN_ERR_INVALID_ARG;
  if (out_id) *out_id = 0;
  return submit_typed(
      [&](const ApiError& err) { send_error(cb, user, err); },
      [&] {
        if (!e || !req || !ZEN_HAS_MEMBER(req, Req, seed))
          throw ApiError::invalid("",
                                  std::string("no engine, or an incomplete ") + what + " request");
        auto strings = std::make_shared<PipelineStrings>(PipelineStrings{
            task::copy(req->model), task::copy(req->*text_a), task::copy(req->*text_b)});
        const uint64_t id = service(e).run_pipeline(
            strings->model,
            [strings, copy = *req, text_a, text_b, run, cb, user](
                ServedModel& m, const std::atomic<bool>& cancel) mutable {
              copy.model = strings->model.c_str();
              copy.*text_a = strings->view_a();
              copy.*text_b = strings->view_b();
              (m.*run)(copy, cb, user, cancel);
            },
            [cb, user](const ApiError& err) { send_error(cb, user, err); });
        if (out_id) *out_id = id;
      });
}

zen_status submit_image(zen_engine* e, const zen_image_request* req, zen_image_cb cb, void* user,
                        uint64_t* out_id) {
  return submit_pipeline(e, req, cb, user, out_id, "image", &zen_image_request::prompt,
                         &zen_image_request::negative_prompt, &ServedModel::image);
}

zen_status submit_speech(zen_engine* e, const zen_speech_request* req, zen_speech_cb cb, void* user,
                         uint64_t* out_id) {
  return submit_pipeline(e, req, cb, user, out_id, "speech", &zen_speech_request::text,
                         &zen_speech_request::voice, &ServedModel::speech);
}

}  // namespace

const zen_engine_api* engine_api() {
  static const zen_engine_api table = {ZEN_HDR_INIT(zen_engine_api),
                                       list_models,
                                       retired_submit,
                                       cancel,
                                       retired,
                                       retired,
                                       retired,
                                       metrics,
                                       free_string,
                                       status,
                                       task_kinds,
                                       submit_embed,
                                       submit_generate,
                                       submit_tokenize,
                                       submit_rerank,
                                       submit_image,
                                       submit_speech};
  return &table;
}

zen_engine* engine_handle(EngineService& s) { return reinterpret_cast<zen_engine*>(&s); }

}  // namespace zen::serving
