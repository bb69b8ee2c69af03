#include "embeddings.h"

#include <cstring>
#include <limits>

namespace zen::http {
namespace {

using frontend::Json;
using nlohmann::json;

Reply bad_input(const std::string& message) {
  return error_reply(400, message, "invalid_request_error", "input");
}

std::string base64(const float* v, uint32_t n) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<unsigned char> bytes(static_cast<size_t>(n) * sizeof(float));
  std::memcpy(bytes.data(), v, bytes.size());  // little-endian hosts: the float32 bytes as is
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const uint32_t b = static_cast<uint32_t>(bytes[i]) << 16 |
                       (i + 1 < bytes.size() ? static_cast<uint32_t>(bytes[i + 1]) << 8 : 0) |
                       (i + 2 < bytes.size() ? bytes[i + 2] : 0u);
    out += kAlphabet[b >> 18 & 63];
    out += kAlphabet[b >> 12 & 63];
    out += i + 1 < bytes.size() ? kAlphabet[b >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[b & 63] : '=';
  }
  return out;
}

// A JSON array of token ids, or nullopt when v is not one.
std::optional<std::vector<int32_t>> token_list(const Json& v) {
  if (!v.is_array() || v.empty()) return std::nullopt;
  std::vector<int32_t> ids;
  for (const Json& t : v) {
    if (!t.is_number_integer() || t.get<int64_t>() < 0 ||
        t.get<int64_t>() > std::numeric_limits<int32_t>::max())
      return std::nullopt;
    ids.push_back(static_cast<int32_t>(t.get<int64_t>()));
  }
  return ids;
}

}  // namespace

EmbedBody::Typed EmbedBody::typed() const {
  Typed t;
  for (const std::string& s : texts) t.inputs.push_back({s.data(), s.size(), nullptr, 0});
  for (const std::vector<int32_t>& ids : token_lists)
    t.inputs.push_back({nullptr, 0, ids.data(), static_cast<uint32_t>(ids.size())});
  t.request.h = ZEN_HDR_INIT(zen_embed_request);
  t.request.model = model.c_str();
  t.request.inputs = t.inputs.data();
  t.request.n_inputs = static_cast<uint32_t>(t.inputs.size());
  t.request.normalize = 2;  // as the model's file says (unit length unless it says otherwise)
  t.request.dimensions = dimensions;
  t.request.prompt_name = task::view(prompt_name);
  t.request.truncate = truncate ? 1 : 0;
  return t;
}

std::variant<EmbedBody, Reply> parse_embed_body(const Json& body) {
  EmbedBody b;
  if (body.contains("model")) {
    if (!body["model"].is_string())
      return error_reply(400, "'model' must be a string", "invalid_request_error", "model");
    b.model = body["model"].get<std::string>();
  }
  if (!body.contains("input")) return bad_input("'input' is required");
  const Json& input = body["input"];
  if (input.is_string()) {
    b.texts.push_back(input.get<std::string>());
  } else if (auto ids = token_list(input)) {
    b.token_lists.push_back(std::move(*ids));
  } else if (input.is_array() && !input.empty()) {
    for (const Json& item : input) {
      if (item.is_string() && b.token_lists.empty()) {
        b.texts.push_back(item.get<std::string>());
      } else if (auto list = token_list(item); list && b.texts.empty()) {
        b.token_lists.push_back(std::move(*list));
      } else {
        return bad_input(
            "'input' must be a string, an array of strings, an array of token ids "
            "or an array of such arrays (not mixed)");
      }
    }
  } else {
    return bad_input(
        "'input' must be a string, an array of strings, an array of token ids or "
        "an array of such arrays, and not empty");
  }
  if (body.contains("dimensions")) {
    const Json& d = body["dimensions"];
    if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > 1 << 20)
      return error_reply(400, "'dimensions' must be a positive integer", "invalid_request_error",
                         "dimensions");
    b.dimensions = static_cast<uint32_t>(d.get<int64_t>());
  }
  // The prompt a text is put in: "input_type" as Cohere, Voyage and NVIDIA name it, or
  // sentence-transformers' "prompt_name".
  for (const char* key : {"input_type", "prompt_name"}) {
    if (!body.contains(key)) continue;
    if (!body[key].is_string())
      return error_reply(400, std::string("'") + key + "' must be a string",
                         "invalid_request_error", key);
    b.prompt_name = body[key].get<std::string>();
  }
  if (body.contains("truncate")) {
    if (!body["truncate"].is_boolean())
      return error_reply(400, "'truncate' must be true or false", "invalid_request_error",
                         "truncate");
    b.truncate = body["truncate"].get<bool>();
  }
  if (body.contains("encoding_format")) {
    const Json& f = body["encoding_format"];
    if (!f.is_string() || (f != "float" && f != "base64"))
      return error_reply(400, "'encoding_format' must be \"float\" or \"base64\"",
                         "invalid_request_error", "encoding_format");
    b.base64 = f == "base64";
  }
  return b;
}

Reply embed_reply(const EmbedBody& body, const zen_embed_result* r, const zen_task_error* e) {
  if (!r)
    return task_error_reply(e ? task::TaskError::copy_of(*e) : task::TaskError{},
                            "the embedding failed");
  json data = json::array();
  for (uint32_t i = 0; i < r->n_vectors; ++i) {
    const float* v = r->vectors + static_cast<size_t>(i) * r->n_embd;
    json item = {{"object", "embedding"}, {"index", i}};
    if (body.base64)
      item["embedding"] = base64(v, r->n_embd);
    else
      item["embedding"] = std::vector<float>(v, v + r->n_embd);
    data.push_back(std::move(item));
  }
  return json_reply(
      200, {{"object", "list"},
            {"data", std::move(data)},
            {"model", body.model},
            {"usage", {{"prompt_tokens", r->prompt_tokens}, {"total_tokens", r->prompt_tokens}}}});
}

}  // namespace zen::http
