#include "choice_stream.h"

#include <cmath>

#include "text/utf8.h"

namespace zen::serving {

Json token_logprob_json(const tokenizer::Tokenizer& tok, int32_t token, float logprob) {
  const std::string piece = tok.piece(token);
  Json bytes = Json::array();
  for (unsigned char c : piece) bytes.push_back(static_cast<int>(c));
  const double value = std::isfinite(logprob) ? static_cast<double>(logprob) : -9999.0;
  return Json{
      {"token", text::utf8::to_valid(piece)}, {"logprob", value}, {"bytes", std::move(bytes)}};
}

ChoiceStream::ChoiceStream(const tokenizer::Tokenizer& tok, const std::vector<std::string>& stops,
                           std::unique_ptr<ChatOutput> output)
    : tok_(tok), decoder_(tok, /*skip_special=*/true), stop_(stops), output_(std::move(output)) {}

void ChoiceStream::emit_text(const std::string& text, Json& delta) {
  if (output_) {
    output_->push(text, delta);
  } else if (!text.empty()) {
    delta["content"] = delta.value("content", std::string()) + text;
  }
}

ChoiceStream::Step ChoiceStream::push(int32_t token, const sampling::Logprobs* logprobs) {
  Step step;
  if (stopped_ || finished_) return step;
  sampling::StopMatcher::Output out = stop_.push(decoder_.push(token));
  emit_text(out.text, step.delta);
  if (out.stop) {
    stopped_ = true;
    step.stopped = true;
  }
  if (logprobs) {
    Json entry = token_logprob_json(tok_, token, logprobs->chosen.logprob);
    Json top = Json::array();
    for (const sampling::TokenLogprob& t : logprobs->top)
      top.push_back(token_logprob_json(tok_, t.token, t.logprob));
    entry["top_logprobs"] = std::move(top);
    step.delta["logprobs"] = Json::array({std::move(entry)});
  }
  return step;
}

Json ChoiceStream::finish() {
  Json delta = Json::object();
  if (finished_) return delta;
  finished_ = true;
  if (!stopped_) {
    sampling::StopMatcher::Output out = stop_.push(decoder_.flush());
    emit_text(out.text, delta);
    if (!out.stop) emit_text(stop_.finish(), delta);
  }
  if (output_) output_->finish(delta);
  return delta;
}

}  // namespace zen::serving
