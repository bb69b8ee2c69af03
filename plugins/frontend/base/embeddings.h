// POST /v1/embeddings in OpenAI's shape, over the engine's typed embed task (zen/task.h): the
// body is read here into a zen_embed_request, and the vectors come back as {"object": "list",
// "data": [{"object": "embedding", "index", "embedding"}], "model", "usage"}. Vectors are
// scaled to unit length, as OpenAI's and llama-server's are, unless the model's file says it
// publishes them unscaled; "encoding_format": "base64" sends each as the base64 of its
// little-endian float32 bytes. Beyond OpenAI's "dimensions" (a Matryoshka width): "input_type"
// (or "prompt_name") picks one of the model's prompts, "truncate" cuts over-long inputs.
#pragma once

#include <zen/task.h>
#include <zen/task.hpp>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "json_fields.h"
#include "reply.h"

namespace zen::http {

struct EmbedBody {
  std::string model;
  std::vector<std::string> texts;                 // input as text, or
  std::vector<std::vector<int32_t>> token_lists;  // input as token ids
  bool base64 = false;
  uint32_t dimensions = 0;  // 0: the model's width
  std::string prompt_name;  // "input_type" / "prompt_name": one of the model's prompts
  bool truncate = false;

  // The typed request; it points into this body, which must outlive it.
  struct Typed {
    std::vector<zen_embed_input> inputs;
    zen_embed_request request{};
  };
  Typed typed() const;
};

// The request, or the 400 reply naming what is wrong with it.
std::variant<EmbedBody, Reply> parse_embed_body(const frontend::Json& body);

// The answer to the request from the host's result or error (exactly one is set).
Reply embed_reply(const EmbedBody& body, const zen_embed_result* result,
                  const zen_task_error* error);

}  // namespace zen::http
