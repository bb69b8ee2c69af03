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

void RequestSink::send(task::GenerateEvent event, bool last) {
  if (!started_) {
    started_ = true;
    task::GenerateEvent start;
    start.kind = ZEN_EVENT_START;
    start.model = info_.model;
    start.created = info_.created;
    emit_(start, false);
  }
  emit_(event, last);
}

void RequestSink::send_delta(int choice, task::GenerateEvent&& delta) {
  delta.kind = ZEN_EVENT_DELTA;
  delta.choice = static_cast<uint32_t>(choice);
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
  if (!step.delta.empty_delta()) send_delta(choice, std::move(step.delta));
  return !step.stopped;
}

void RequestSink::on_finish(int choice, engine::Finish reason, const std::string& error) {
  ChoiceStream* s = stream(choice);
  if (!s) return;
  if (task::GenerateEvent rest = s->finish(); !rest.empty_delta())
    send_delta(choice, std::move(rest));
  task::GenerateEvent event;
  event.kind = ZEN_EVENT_FINISH;
  event.choice = static_cast<uint32_t>(choice);
  switch (reason) {
    case engine::Finish::kStop:
      event.finish_reason = s->has_tool_calls() ? ZEN_FINISH_TOOL_CALLS : ZEN_FINISH_STOP;
      break;
    case engine::Finish::kLength:
      event.finish_reason = ZEN_FINISH_LENGTH;
      break;
    case engine::Finish::kCancelled:
      event.finish_reason = ZEN_FINISH_CANCELLED;
      if (!cancel_logged_ && log_) log_(info_.tag + " cancelled: sequence freed");
      cancel_logged_ = true;
      break;
    case engine::Finish::kError:
      event.finish_reason = ZEN_FINISH_ERROR;
      event.error = ApiError::internal(error.empty() ? "generation failed" : error).task_error();
      break;
  }
  finish_reasons_[static_cast<size_t>(choice)] = task::finish_name(event.finish_reason);
  send(std::move(event), false);
}

void RequestSink::on_done(const engine::Usage& usage) {
  task::GenerateEvent done;
  done.kind = ZEN_EVENT_DONE;
  done.prompt_tokens = usage.prompt_tokens;
  done.completion_tokens = usage.completion_tokens;
  done.cached_tokens = usage.cached_tokens;
  send(std::move(done), true);
  if (log_) {
    std::string reasons;
    for (const std::string& r : finish_reasons_) reasons += (reasons.empty() ? "" : ",") + r;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - info_.received).count();
    char line[512];
    std::snprintf(line, sizeof line, "%s %s: prompt %u (cached %u), completion %u, %s, %.2f s",
                  info_.tag.c_str(), info_.model.c_str(), usage.prompt_tokens, usage.cached_tokens,
                  usage.completion_tokens, reasons.c_str(), seconds);
    log_(line);
  }
  if (released_) released_();
}

}  // namespace zen::serving
