// The engine API table handed to frontend plugins (zen_engine_api, sdk/include/zen/frontend.h)
// over an EngineService. Nothing C++ crosses it: every call catches everything and answers in
// JSON, errors in the shape {"error": {...}, "status": N}.
#pragma once

#include <zen/frontend.h>

#include "engine_service.h"

namespace zen::serving {

const zen_engine_api* engine_api();
// The opaque handle the table's functions take; valid while `service` lives.
zen_engine* engine_handle(EngineService& service);

}  // namespace zen::serving
