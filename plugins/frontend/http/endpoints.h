// The endpoints answered at once, without a generation: models, tokenize/detokenize,
// liveness, readiness and metrics. Each calls the engine API table synchronously.
#pragma once

#include <string_view>

#include "engine_api.h"
#include "reply.h"
#include "router.h"

namespace zen::http {

Reply answer_now(const Route& route, std::string_view body, const EngineApi& api);

}  // namespace zen::http
