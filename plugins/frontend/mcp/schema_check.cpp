#include "schema_check.h"

#include <algorithm>

namespace zen::mcp_server {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw RpcError(jsonrpc::kInvalidParams, "Invalid params: '" + where + "' " + what,
                 Json{{"field", where}});
}

bool has_type(const Json& v, const std::string& type) {
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  if (type == "null") return v.is_null();
  return false;
}

void check_type(const Json& schema, const Json& v, const std::string& where) {
  if (!schema.contains("type")) return;
  std::vector<std::string> types;
  if (schema["type"].is_array())
    for (const Json& t : schema["type"]) types.push_back(t.get<std::string>());
  else
    types.push_back(schema["type"].get<std::string>());
  if (std::any_of(types.begin(), types.end(), [&](const std::string& t) { return has_type(v, t); }))
    return;
  std::string list;
  for (const std::string& t : types) list += (list.empty() ? "" : " or ") + t;
  fail(where, "must be " + (types.size() == 1 && types[0] == "integer" ? "an integer" : list));
}

}  // namespace

void check_against_schema(const Json& schema, const Json& v, const std::string& where) {
  check_type(schema, v, where);
  if (schema.contains("enum") &&
      std::find(schema["enum"].begin(), schema["enum"].end(), v) == schema["enum"].end())
    fail(where, "must be one of " + schema["enum"].dump());
  if (v.is_number()) {
    if (schema.contains("minimum") && v.get<double>() < schema["minimum"].get<double>())
      fail(where, "must be at least " + schema["minimum"].dump());
    if (schema.contains("maximum") && v.get<double>() > schema["maximum"].get<double>())
      fail(where, "must be at most " + schema["maximum"].dump());
  }
  if (v.is_string() && schema.contains("minLength") &&
      v.get_ref<const std::string&>().size() < schema["minLength"].get<size_t>())
    fail(where, "must not be empty");
  if (v.is_array()) {
    if (schema.contains("minItems") && v.size() < schema["minItems"].get<size_t>())
      fail(where, "must have at least " + schema["minItems"].dump() + " item(s)");
    if (schema.contains("items"))
      for (size_t i = 0; i < v.size(); ++i)
        check_against_schema(schema["items"], v[i], where + "[" + std::to_string(i) + "]");
  }
  if (v.is_object()) {
    const Json props = schema.value("properties", Json::object());
    for (const Json& name : schema.value("required", Json::array()))
      if (!v.contains(name.get<std::string>()))
        fail(where + "." + name.get<std::string>(), "is required");
    const bool closed = schema.value("additionalProperties", true) == false;
    for (const auto& [key, item] : v.items()) {
      if (props.contains(key))
        check_against_schema(props[key], item, where + "." + key);
      else if (closed)
        fail(
            where + "." + key, "is not a known argument (known: " + [&] {
              std::string known;
              for (const auto& [k, unused] : props.items())
                known += (known.empty() ? "" : ", ") + k;
              return known;
            }() + ")");
    }
  }
}

}  // namespace zen::mcp_server
