// Typed reads of a JSON request object: each getter names the field in its error ("'temperature'
// must be a number between 0 and 2, got 3"), null counts as absent (clients send explicit nulls
// for unset options), and finish() refuses fields nobody read, so a typo never silently does
// nothing. Errors are RequestRefused 400 naming the field.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "request_refused.h"

namespace zen::frontend {

// Ordered: tool schemas and call arguments reach the chat template in the client's key order.
using Json = nlohmann::ordered_json;

class JsonFields {
 public:
  // Refuses a `body` that is not an object.
  explicit JsonFields(const Json& body);

  const Json* get(const std::string& key);  // nullptr when absent or null; marks it read
  void ignore(const std::string& key) { read_.insert(key); }

  std::optional<double> number(const std::string& key, double lo, double hi);
  std::optional<int64_t> integer(const std::string& key, int64_t lo, int64_t hi);
  std::optional<bool> boolean(const std::string& key);
  std::optional<std::string> string(const std::string& key);

  // Refuses the first field that no getter read.
  void finish() const;

 private:
  const Json& body_;
  std::set<std::string> read_;
};

// A value for an error message: its JSON, cut to 60 characters.
std::string brief(const Json& v);

}  // namespace zen::frontend
