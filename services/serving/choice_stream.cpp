#include "choice_stream.h"

namespace zen::serving {

ChoiceStream::ChoiceStream(const tokenizer::Tokenizer& tok, const std::vector<std::string>& stops,
                           std::unique_ptr<ChatOutput> output)
    : tok_(tok), decoder_(tok, /*skip_special=*/true), stop_(stops), output_(std::move(output)) {}

void ChoiceStream::emit_text(const std::string& text, task::GenerateEvent& delta) {
  if (output_)
    output_->push(text, delta);
  else
    delta.content += text;
}

task::TokenLogprob ChoiceStream::token_logprob(int32_t token, float logprob) const {
  return task::TokenLogprob{token, logprob, tok_.piece(token)};
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
    task::LogprobEntry& entry = step.delta.logprobs.emplace_back();
    entry.chosen = token_logprob(token, logprobs->chosen.logprob);
    for (const sampling::TokenLogprob& t : logprobs->top)
      entry.top.push_back(token_logprob(t.token, t.logprob));
  }
  return step;
}

task::GenerateEvent ChoiceStream::finish() {
  task::GenerateEvent delta;
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
