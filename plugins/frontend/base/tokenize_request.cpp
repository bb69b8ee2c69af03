#include "tokenize_request.h"

#include <limits>

namespace zen::frontend {

zen_tokenize_request TokenizeBody::typed() const {
  zen_tokenize_request r{};
  r.h = ZEN_HDR_INIT(zen_tokenize_request);
  r.model = model.c_str();
  if (detokenize) {
    r.tokens = tokens.data();
    r.n_tokens = static_cast<uint32_t>(tokens.size());
  } else {
    r.text = zen_str{text.data(), text.size()};
    r.add_special = add_special ? 1 : 0;
    r.parse_special = parse_special ? 1 : 0;
    r.with_pieces = with_pieces ? 1 : 0;
  }
  return r;
}

TokenizeBody parse_tokenize_body(const Json& body) {
  JsonFields f(body);
  TokenizeBody b;
  b.model = f.string("model").value_or("");
  const auto content = f.string("content");
  if (!content) refuse("content", "'content' is required");
  b.text = *content;
  b.add_special = f.boolean("add_special").value_or(true);
  b.parse_special = f.boolean("parse_special").value_or(true);
  b.with_pieces = f.boolean("with_pieces").value_or(false);
  f.finish();
  return b;
}

TokenizeBody parse_detokenize_body(const Json& body) {
  JsonFields f(body);
  TokenizeBody b;
  b.detokenize = true;
  b.model = f.string("model").value_or("");
  const Json* tokens = f.get("tokens");
  f.finish();
  if (!tokens || !tokens->is_array()) refuse("tokens", "'tokens' must be an array of token ids");
  for (const Json& t : *tokens) {
    // Whether an id is below the vocabulary's size is the engine's to say (it knows the size).
    if (!t.is_number_integer() || t.get<int64_t>() < 0 ||
        t.get<int64_t>() > std::numeric_limits<int32_t>::max())
      refuse("tokens", "'tokens' must hold token ids (integers from 0), got " + brief(t));
    b.tokens.push_back(static_cast<int32_t>(t.get<int64_t>()));
  }
  return b;
}

}  // namespace zen::frontend
