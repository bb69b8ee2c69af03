// One choice's text on its way out: tokens become complete UTF-8 text (StreamDecoder), stop
// strings are cut and held back until they cannot match (StopMatcher), and chat output is
// split into content, reasoning and tool calls (ChatOutput). Each step yields the fields of
// one delta event (content, reasoning, tool-call pieces, logprobs).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <zen/task.hpp>

#include "chat_output.h"
#include "sampler/logprobs.h"
#include "sampler/stop_matcher.h"
#include "tokenizer/tokenizer.h"

namespace zen::serving {

class ChoiceStream {
 public:
  // `output` is null for plain completions (all text is content).
  ChoiceStream(const tokenizer::Tokenizer& tok, const std::vector<std::string>& stops,
               std::unique_ptr<ChatOutput> output);

  struct Step {
    task::GenerateEvent delta;  // empty_delta() when nothing is ready to send
    bool stopped = false;       // a stop string matched: end this choice
  };
  // A generated token, with its log-probabilities when the request asked for them.
  Step push(int32_t token, const sampling::Logprobs* logprobs);
  // The end of the choice (any reason): whatever was held back and is not a stop string.
  task::GenerateEvent finish();

  bool has_tool_calls() const { return output_ && output_->has_tool_calls(); }

 private:
  void emit_text(const std::string& text, task::GenerateEvent& delta);
  task::TokenLogprob token_logprob(int32_t token, float logprob) const;

  const tokenizer::Tokenizer& tok_;
  tokenizer::StreamDecoder decoder_;
  sampling::StopMatcher stop_;
  std::unique_ptr<ChatOutput> output_;
  bool stopped_ = false, finished_ = false;
};

}  // namespace zen::serving
