#include "json_fields.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace zen::frontend {
namespace {

std::string show(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e18) return std::to_string(static_cast<int64_t>(v));
  std::ostringstream s;
  s << v;
  return s.str();
}

// "an integer between 0 and 20", "a number >= 0": the range an error message states.
std::string describe_range(double lo, double hi, bool integer) {
  const char* what = integer ? "an integer" : "a number";
  const bool no_lo = lo <= -1e300 || lo <= static_cast<double>(std::numeric_limits<int64_t>::min());
  const bool no_hi = hi >= 1e300 || hi >= static_cast<double>(std::numeric_limits<int64_t>::max());
  if (no_lo && no_hi) return what;
  if (no_hi) return std::string(what) + " >= " + show(lo);
  if (no_lo) return std::string(what) + " <= " + show(hi);
  return std::string(what) + " between " + show(lo) + " and " + show(hi);
}

}  // namespace

std::string brief(const Json& v) {
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  return s.size() <= 60 ? s : s.substr(0, 57) + "...";
}

JsonFields::JsonFields(const Json& body) : body_(body) {
  if (!body.is_object())
    refuse("", "the request body must be a JSON object, got " + std::string(body.type_name()));
}

const Json* JsonFields::get(const std::string& key) {
  read_.insert(key);
  auto it = body_.find(key);
  if (it == body_.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<double> JsonFields::number(const std::string& key, double lo, double hi) {
  const Json* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_number() || !(v->get<double>() >= lo && v->get<double>() <= hi))
    refuse(key, "'" + key + "' must be " + describe_range(lo, hi, false) + ", got " + brief(*v));
  return v->get<double>();
}

std::optional<int64_t> JsonFields::integer(const std::string& key, int64_t lo, int64_t hi) {
  const Json* v = get(key);
  if (!v) return std::nullopt;
  // Non-negative integers parse as unsigned: compare in the type the value has.
  bool in_range = false;
  if (v->is_number_unsigned()) {
    const uint64_t u = v->get<uint64_t>();
    in_range =
        (lo <= 0 || u >= static_cast<uint64_t>(lo)) && hi >= 0 && u <= static_cast<uint64_t>(hi);
  } else if (v->is_number_integer()) {
    in_range = v->get<int64_t>() >= lo && v->get<int64_t>() <= hi;
  }
  if (!in_range)
    refuse(key, "'" + key + "' must be " +
                    describe_range(static_cast<double>(lo), static_cast<double>(hi), true) +
                    ", got " + brief(*v));
  return v->is_number_unsigned() ? static_cast<int64_t>(v->get<uint64_t>()) : v->get<int64_t>();
}

std::optional<bool> JsonFields::boolean(const std::string& key) {
  const Json* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) refuse(key, "'" + key + "' must be a boolean, got " + brief(*v));
  return v->get<bool>();
}

std::optional<std::string> JsonFields::string(const std::string& key) {
  const Json* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_string()) refuse(key, "'" + key + "' must be a string, got " + brief(*v));
  return v->get<std::string>();
}

void JsonFields::finish() const {
  for (const auto& [key, value] : body_.items())
    if (!read_.count(key)) refuse(key, "Unrecognized request argument supplied: " + key);
}

}  // namespace zen::frontend
