// Between JSON (the render context, chat messages, tools) and template values, and Python's
// json.dumps as transformers' tojson filter calls it (ensure_ascii=False, ", " and ": "
// separators unless indenting, keys kept in insertion order).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "value.h"

namespace zen::tmpl {

using Json = nlohmann::ordered_json;

// Objects keep their key order; integers beyond int64 are refused (Failure).
Value from_json(const Json& j);

struct JsonDumpOptions {
  bool ensure_ascii = false;
  std::optional<std::string> indent;          // nullopt: one line
  std::optional<std::string> item_separator;  // default ", " (or "," when indenting)
  std::optional<std::string> key_separator;   // default ": "
  bool sort_keys = false;
};

// Python json.dumps. Failure for values JSON cannot hold ("Object of type Undefined is not
// JSON serializable").
std::string json_dumps(const Value& v, const JsonDumpOptions& options);

}  // namespace zen::tmpl
