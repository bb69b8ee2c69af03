#include "request_sink.h"

#include <cstdio>

#include "api_error.h"

namespace zen::serving {

RequestSink::RequestSink(RequestInfo info, std::vector<std::unique_ptr<ChoiceStream>> choices,
                         EmitFn emit, LogFn log, std::function<void()> released)
    : info_(std::move(info)),
      choices_(std::move(choices)),
      finish_reasons_(choices_.size()),
      emit_(std::move(emit)),
      log_(std::move(log)),
      released_(std::move(released)) {}

void RequestSink::send(Json event, bool last) {
  if (!started_) {
    started_ = true;
    emit_(Json{{"type", "start"},
               {"id", info_.id},
               {"created", info_.created},
               {"model", info_.model}},
          false);
  }
  emit_(event, last);
}

void RequestSink::send_delta(int choice, Json&& delta) {
  delta["type"] = "delta";
  delta["choice"] = choice;
  send(std::move(delta), false);
}

ChoiceStream* RequestSink::stream(int choice) {
  if (choice < 0 || static_cast<size_t>(choice) >= choices_.size()) return nullptr;
  return choices_[static_cast<size_t>(choice)].get();
}

bool RequestSink::on_token(int choice, int32_t token, const sampling::Logprobs* logprobs) {
  ChoiceStream* s = stream(choice);
  if (!s) return false;
  ChoiceStream::Step step = s->push(token, logprobs);
  if (!step.delta.empty()) send_delta(choice, std::move(step.delta));
  return !step.stopped;
}

void RequestSink::on_finish(int choice, engine::Finish reason, const std::string& error) {
  ChoiceStream* s = stream(choice);
  if (!s) return;
  if (Json rest = s->finish(); !rest.empty()) send_delta(choice, std::move(rest));
  std::string why;
  switch (reason) {
    case engine::Finish::kStop:
      why = s->has_tool_calls() ? "tool_calls" : "stop";
      break;
    case engine::Finish::kLength:
      why = "length";
      break;
    case engine::Finish::kCancelled:
      why = "cancelled";
      if (!cancel_logged_ && log_) log_(info_.id + " cancelled: sequence freed");
      cancel_logged_ = true;
      break;
    case engine::Finish::kError:
      why = "error";
      break;
  }
  finish_reasons_[static_cast<size_t>(choice)] = why;
  Json event = {{"type", "finish"}, {"choice", choice}, {"finish_reason", why}};
  if (reason == engine::Finish::kError)
    event["error"] = ApiError::internal(error.empty() ? "generation failed" : error).error_object();
  send(std::move(event), false);
}

void RequestSink::on_done(const engine::Usage& usage) {
  const uint32_t total = usage.prompt_tokens + usage.completion_tokens;
  send(Json{{"type", "done"},
            {"usage",
             {{"prompt_tokens", usage.prompt_tokens},
              {"completion_tokens", usage.completion_tokens},
              {"total_tokens", total},
              {"prompt_tokens_details", {{"cached_tokens", usage.cached_tokens}}}}}},
       true);
  if (log_) {
    std::string reasons;
    for (const std::string& r : finish_reasons_) reasons += (reasons.empty() ? "" : ",") + r;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - info_.received).count();
    char line[512];
    std::snprintf(line, sizeof line, "%s %s: prompt %u (cached %u), completion %u, %s, %.2f s",
                  info_.id.c_str(), info_.model.c_str(), usage.prompt_tokens, usage.cached_tokens,
                  usage.completion_tokens, reasons.c_str(), seconds);
    log_(line);
  }
  if (released_) released_();
}

}  // namespace zen::serving
