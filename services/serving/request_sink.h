// The engine's Sink for one API request: turns each choice's tokens into the typed events of
// the generate task (start, delta, finish, done; zen/task.h) and logs the request's end. Every
// call arrives on the engine thread, so no state here needs a lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "choice_stream.h"
#include "engine/engine.h"
#include "request.h"

namespace zen::serving {

using EmitFn = std::function<void(const task::GenerateEvent& event, bool last)>;
using LogFn = std::function<void(const std::string& line)>;

struct RequestInfo {
  std::string tag;    // the frontend's name for the request ("chatcmpl-…"), for log lines
  std::string model;  // the served model's id
  int64_t created = 0;
  std::chrono::steady_clock::time_point received;
};

class RequestSink : public engine::Sink {
 public:
  // `released` runs after the last event (the request's bookkeeping can go).
  RequestSink(RequestInfo info, std::vector<std::unique_ptr<ChoiceStream>> choices, EmitFn emit,
              LogFn log, std::function<void()> released);

  bool on_token(int choice, int32_t token, const sampling::Logprobs* logprobs) override;
  void on_finish(int choice, engine::Finish reason, const std::string& error) override;
  void on_done(const engine::Usage& usage) override;

 private:
  void send(task::GenerateEvent event, bool last);  // "start" goes first, once
  void send_delta(int choice, task::GenerateEvent&& delta);
  ChoiceStream* stream(int choice);

  RequestInfo info_;
  std::vector<std::unique_ptr<ChoiceStream>> choices_;
  std::vector<std::string> finish_reasons_;
  EmitFn emit_;
  LogFn log_;
  std::function<void()> released_;
  bool started_ = false, cancel_logged_ = false;
};

}  // namespace zen::serving
