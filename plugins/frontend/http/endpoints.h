// The endpoints answered without a generation. Models, liveness, readiness and metrics are
// answered at once from the engine API table. tokenize/detokenize are the typed tokenize task
// (their text can be megabytes: the host works on it on its own threads) and come back as one
// result.
#pragma once

#include <zen/task.h>

#include "engine_api.h"
#include "reply.h"
#include "router.h"
#include "tokenize_request.h"

namespace zen::http {

Reply answer_now(const Route& route, const EngineApi& api);

// A tokenize/detokenize request's answer from the host's result or error (exactly one is set):
// {"tokens": [ids]} or, with_pieces, {"tokens": [{"id", "piece"}]} (the piece as text when its
// bytes are UTF-8, else the byte values); {"content": text}. Called on the host's thread that
// delivers the result, so an answer of megabytes is serialized there, not on an I/O thread.
Reply tokenize_reply(const frontend::TokenizeBody& body, const zen_tokenize_result* result,
                     const zen_task_error* error);

}  // namespace zen::http
