// The endpoints answered without a generation. Models, liveness, readiness and metrics are
// answered at once from the engine API table. tokenize/detokenize go through submit (their text
// can be megabytes: the host works on it on its own threads) and come back as one event.
#pragma once

#include <string>
#include <string_view>

#include "engine_api.h"
#include "reply.h"
#include "router.h"

namespace zen::http {

Reply answer_now(const Route& route, const EngineApi& api);

// The one event of a tokenize/detokenize request as its answer: the result (200) or the
// host's error. Called on the thread that delivers the event (Session::submit), so an answer of
// megabytes is parsed and serialized there, not on an I/O thread.
Reply answer_from_event(const std::string& event_json);

}  // namespace zen::http
