// The ids responses carry ("chatcmpl-" or "cmpl-" and 24 letters and digits, as OpenAI's look):
// minted by the frontend, which hands it to the engine as the request's tag for its log lines.
// An identifier, not a secret.
#pragma once

#include <string>
#include <string_view>

namespace zen::frontend {

std::string new_request_id(std::string_view prefix);

}  // namespace zen::frontend
