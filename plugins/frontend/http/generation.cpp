#include "generation.h"

namespace zen::http {

using nlohmann::json;

void Generation::fail(const task::TaskError& error) {
  if (head_sent_) {
    // The status line is gone: report in-band, then close the stream properly.
    sink_.send_stream_data(ChunkEncoder::error_event(task_error_object(error)) +
                           ChunkEncoder::done_marker());
    sink_.end_stream();
  } else {
    sink_.send_reply(task_error_reply(error));
  }
  complete_ = true;
}

void Generation::finish_non_stream(const json& usage) {
  const json failure = assembler_.failure();
  if (failure.is_null()) {
    sink_.send_reply(json_reply(200, assembler_.result(usage)));
  } else {
    // A cancelled choice means the server is going away; anything else is its own fault.
    const bool cancelled = failure.value("code", json()) == json("cancelled");
    Reply reply = json_reply(cancelled ? 503 : 500, {{"error", failure}});
    if (cancelled) reply.headers.emplace_back("Retry-After", "1");
    sink_.send_reply(std::move(reply));
  }
  complete_ = true;
}

bool Generation::on_event(const task::GenerateEvent& ev, bool last) {
  if (complete_) return true;
  switch (ev.kind) {
    case ZEN_EVENT_START:
      if (options_.stream) {
        encoder_.on_start(ev);
        sink_.send_stream_head();
        head_sent_ = true;
      } else {
        assembler_.on_start(ev);
      }
      break;
    case ZEN_EVENT_DELTA:
      if (!options_.stream)
        assembler_.on_delta(ev);
      else if (std::string s = encoder_.on_delta(ev); !s.empty())
        sink_.send_stream_data(std::move(s));
      break;
    case ZEN_EVENT_FINISH:
      if (!options_.stream)
        assembler_.on_finish(ev);
      else if (std::string s = encoder_.on_finish(ev); !s.empty())
        sink_.send_stream_data(std::move(s));
      break;
    case ZEN_EVENT_DONE:
      if (options_.stream) {
        sink_.send_stream_data(encoder_.on_done(ev));
        sink_.end_stream();
        complete_ = true;
      } else {
        finish_non_stream(usage_of(ev));
      }
      break;
    case ZEN_EVENT_ERROR:
      fail(ev.error ? *ev.error : task::TaskError{});
      break;
  }
  if (last && !complete_)
    fail(task::TaskError{
        ZEN_ERR_INTERNAL, "the engine ended the request without a result", {}, {}, 0});
  return complete_;
}

}  // namespace zen::http
