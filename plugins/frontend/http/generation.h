// One chat or completion request in flight: consumes its engine events in order and drives the
// HTTP answer: a whole JSON response, or an SSE stream whose head goes out at the start event
// (so errors found before generation still get their own status code).
#pragma once

#include <zen/task.hpp>

#include <string>

#include "openai_format.h"
#include "reply.h"

namespace zen::http {

// The connection side of a generation.
class ResponseSink {
 public:
  virtual ~ResponseSink() = default;
  virtual void send_reply(Reply reply) = 0;  // the whole answer
  virtual void send_stream_head() = 0;       // 200 text/event-stream
  virtual void send_stream_data(std::string sse) = 0;
  virtual void end_stream() = 0;
};

class Generation {
 public:
  Generation(GenerationOptions options, ResponseSink& sink)
      : options_(options), sink_(sink), encoder_(options), assembler_(options) {}

  // One engine event; `last` marks the final one. Returns true once the answer is complete;
  // later events are ignored.
  bool on_event(const task::GenerateEvent& ev, bool last);
  bool complete() const { return complete_; }

 private:
  void fail(const task::TaskError& error);
  void finish_non_stream(const nlohmann::json& usage);

  GenerationOptions options_;
  ResponseSink& sink_;
  ChunkEncoder encoder_;
  ResponseAssembler assembler_;
  bool head_sent_ = false;
  bool complete_ = false;
};

}  // namespace zen::http
