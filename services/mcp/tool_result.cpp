#include "mcp/tool_result.h"

#include <algorithm>

namespace zen::mcp {

namespace {

using nlohmann::json;

std::string string_field(const json& object, const char* key, const std::string& fallback = "") {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// The size of base64 data without decoding it.
size_t decoded_size(const std::string& base64) {
  size_t padding = 0;
  for (auto it = base64.rbegin(); it != base64.rend() && *it == '='; ++it) ++padding;
  size_t bytes = base64.size() / 4 * 3;
  return bytes - std::min({padding, size_t(2), bytes});
}

std::string describe_binary(const std::string& mime, const std::string& base64) {
  return "[" + (mime.empty() ? std::string("binary") : mime) + ", " +
         std::to_string(decoded_size(base64)) + " bytes]";
}

std::string describe_item(const json& item) {
  if (!item.is_object()) return item.dump();
  std::string type = string_field(item, "type");
  if (type == "text") return string_field(item, "text");
  if (type == "image" || type == "audio")
    return describe_binary(string_field(item, "mimeType"), string_field(item, "data"));
  if (type == "resource_link")
    return "[resource " + string_field(item, "uri") +
           (item.contains("name") ? " (" + string_field(item, "name") + ")" : "") + "]";
  if (type == "resource" && item.contains("resource") && item["resource"].is_object()) {
    const json& resource = item["resource"];
    if (resource.contains("text")) return string_field(resource, "text");
    return describe_binary(string_field(resource, "mimeType"), string_field(resource, "blob"));
  }
  return "[" + (type.empty() ? std::string("unknown") : type) + " content]";
}

}  // namespace

FlatResult flatten_tool_result(const json& result) {
  FlatResult flat;
  if (!result.is_object()) {
    flat.text = "malformed tools/call result: " + result.dump();
    flat.is_error = true;
    return flat;
  }
  auto is_error = result.find("isError");
  flat.is_error = is_error != result.end() && is_error->is_boolean() && is_error->get<bool>();
  auto content = result.find("content");
  bool has_content = content != result.end() && content->is_array() && !content->empty();
  if (has_content) {
    for (size_t i = 0; i < content->size(); ++i) {
      if (i > 0) flat.text += '\n';
      flat.text += describe_item((*content)[i]);
    }
  } else if (auto structured = result.find("structuredContent"); structured != result.end()) {
    flat.text = structured->dump(-1, ' ', false, json::error_handler_t::replace);
  }
  return flat;
}

}  // namespace zen::mcp
