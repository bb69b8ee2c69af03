// core/chat reports a client's mistake as chat::RequestError naming the field; the engine API
// answers it like its own checks: 400 invalid_request_error with that param.
#pragma once

#include "api_error.h"
#include "chat/request_error.h"

namespace zen::serving {

template <class F>
auto chat_checked(F&& f) {
  try {
    return f();
  } catch (const chat::RequestError& e) {
    throw ApiError::invalid(e.param(), e.what());
  }
}

}  // namespace zen::serving
