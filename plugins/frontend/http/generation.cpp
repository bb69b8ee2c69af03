#include "generation.h"

namespace zen::http {

using nlohmann::json;

void Generation::fail(const json& host_error) {
  if (head_sent_) {
    // The status line is gone: report in-band, then close the stream properly.
    json error = host_error.contains("error") ? host_error["error"] : host_error;
    sink_.send_stream_data(ChunkEncoder::error_event(error) + ChunkEncoder::done_marker());
    sink_.end_stream();
  } else {
    sink_.send_reply(host_error_reply(host_error, 500));
  }
  complete_ = true;
}

void Generation::finish_non_stream(const json& usage) {
  json failure = assembler_.failure();
  if (!failure.is_null()) {
    // A cancelled choice means the server is going away; anything else is its own fault.
    unsigned status = failure.value("code", json()) == json("cancelled") ? 503 : 500;
    sink_.send_reply(host_error_reply({{"error", failure}, {"status", status}}, status));
  } else {
    sink_.send_reply(json_reply(200, assembler_.result(usage)));
  }
  complete_ = true;
}

bool Generation::on_event(const std::string& event_json, bool last) {
  if (complete_) return true;
  json ev = json::parse(event_json, nullptr, false);
  if (!ev.is_object()) {
    fail({{"error", error_object("the engine sent an unreadable event", "server_error")},
          {"status", 500}});
    return true;
  }
  const std::string type = ev.value("type", "");
  if (type == "start") {
    if (options_.stream) {
      encoder_.on_start(ev);
      sink_.send_stream_head();
      head_sent_ = true;
    } else {
      assembler_.on_start(ev);
    }
  } else if (type == "delta") {
    if (options_.stream) {
      if (std::string s = encoder_.on_delta(ev); !s.empty()) sink_.send_stream_data(std::move(s));
    } else {
      assembler_.on_delta(ev);
    }
  } else if (type == "finish") {
    if (options_.stream) {
      if (std::string s = encoder_.on_finish(ev); !s.empty()) sink_.send_stream_data(std::move(s));
    } else {
      assembler_.on_finish(ev);
    }
  } else if (type == "done") {
    json usage = ev.value("usage", json(nullptr));
    if (options_.stream) {
      sink_.send_stream_data(encoder_.on_done(ev));
      sink_.end_stream();
      complete_ = true;
    } else {
      finish_non_stream(usage);
    }
  } else if (type == "error" || (type.empty() && ev.contains("error"))) {
    fail(ev);
  }
  if (last && !complete_)
    fail({{"error", error_object("the engine ended the request without a result", "server_error")},
          {"status", 500}});
  return complete_;
}

}  // namespace zen::http
