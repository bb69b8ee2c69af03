// /tokenize and /detokenize bodies (llama-server's names; also the mcp tokenize tool) as the
// engine's typed tokenize request. tokenize: "content" (required), "model", "add_special" and
// "parse_special" (default true), "with_pieces" (default false); detokenize: "model" and
// "tokens" (token ids; the engine checks them against the vocabulary). Unknown fields are
// refused. Errors are RequestRefused 400 naming the field.
#pragma once

#include <zen/task.h>

#include <cstdint>
#include <string>
#include <vector>

#include "json_fields.h"

namespace zen::frontend {

struct TokenizeBody {
  bool detokenize = false;
  std::string model;
  std::string text;  // tokenize
  bool add_special = true, parse_special = true, with_pieces = false;
  std::vector<int32_t> tokens;  // detokenize

  // The typed request; it points into this body, which must outlive it.
  zen_tokenize_request typed() const;
};

TokenizeBody parse_tokenize_body(const Json& body);
TokenizeBody parse_detokenize_body(const Json& body);

}  // namespace zen::frontend
