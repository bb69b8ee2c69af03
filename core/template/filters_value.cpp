// Filters on single values: numbers, defaults, attributes and tojson.
#include "filters_impl.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "access.h"
#include "args.h"
#include "error.h"
#include "interpreter.h"
#include "json_convert.h"
#include "methods.h"
#include "py_convert.h"
#include "py_format.h"

namespace zen::tmpl::filters {

Value f_abs(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("abs", args, {});
  require_defined(v);
  if (v.is_integral()) {
    int64_t i = v.as_int();
    if (i == INT64_MIN) throw Failure("integer result does not fit in 64 bits");
    return Value(i < 0 ? -i : i);
  }
  if (v.is_float()) return Value(std::fabs(v.as_double()));
  throw Failure("bad operand type for abs(): '" + type_name(v) + "'");
}

Value f_attr(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("attr", args, {"name"});
  const std::string& name = string_arg(a.get_or(0, Value()), "attr() name");
  // Real attributes only: dict keys are not attributes.
  if (v.is_object()) return v.as_object().get_attr(name);
  if (method_safety(v, name) != MethodSafety::Missing) return get_attribute(v, name);
  return Value::undefined("'" + object_type_repr(v) + "' has no attribute '" + name + "'");
}

Value f_default(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("default", args, {"default_value", "boolean"});
  if (v.is_undefined() || (flag(a, 1) && !truthy(v))) return a.get_or(0, Value(""));
  return v;
}

Value f_float(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("float", args, {"default"});
  Value fallback = a.get_or(0, Value(0.0));
  require_defined(v);  // float(Undefined) raises instead of falling back
  if (v.is_number()) return Value(v.as_double());
  if (v.is_string())
    if (auto d = parse_py_float(v.as_string())) return Value(*d);
  return fallback;
}

Value f_int(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("int", args, {"default", "base"});
  Value fallback = a.get_or(0, Value(0));
  int64_t base = int_arg(a.get_or(1, Value(10)), "int() base");
  require_defined(v);  // int() falls back to float(Undefined), which raises
  auto from_float = [&](double d) -> Value {
    if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) return fallback;
    return Value(static_cast<int64_t>(std::trunc(d)));
  };
  if (v.is_string()) {
    if (auto i = parse_py_int(v.as_string(), static_cast<int>(base))) return Value(*i);
    if (auto d = parse_py_float(v.as_string())) return from_float(*d);
    return fallback;
  }
  if (v.is_integral()) return Value(v.as_int());
  if (v.is_float()) return from_float(v.as_double());
  return fallback;
}

Value f_round(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("round", args, {"precision", "method"});
  int64_t precision = int_arg(a.get_or(0, Value(0)), "round() precision");
  Value method = a.get_or(1, Value("common"));
  std::string m = method.is_string() ? method.as_string() : std::string();
  if (m != "common" && m != "ceil" && m != "floor")
    throw Failure("method must be common, ceil or floor");
  require_defined(v);
  if (!v.is_number()) throw Failure("type " + type_name(v) + " doesn't define __round__ method");
  if (m == "common") {
    if (v.is_integral()) {
      if (precision >= 0) return Value(v.as_int());
      double scale = std::pow(10.0, static_cast<double>(-precision));
      return Value(
          static_cast<int64_t>(std::nearbyint(static_cast<double>(v.as_int()) / scale) * scale));
    }
    double d = v.as_double();
    if (!std::isfinite(d)) return Value(d);
    if (precision >= 0) {
      // printf rounds the exact binary value half-to-even, as Python's round() does.
      int p = static_cast<int>(std::min<int64_t>(precision, 340));
      std::vector<char> buf(400 + static_cast<size_t>(p));
      std::snprintf(buf.data(), buf.size(), "%.*f", p, d);
      return Value(std::strtod(buf.data(), nullptr));
    }
    double scale = std::pow(10.0, static_cast<double>(-precision));
    return Value(std::nearbyint(d / scale) * scale);
  }
  double scale = std::pow(10.0, static_cast<double>(precision));
  double scaled = v.as_double() * scale;
  double r = m == "ceil" ? std::ceil(scaled) : std::floor(scaled);
  return Value(r / scale);
}

Value f_tojson(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("tojson", args, {"ensure_ascii", "indent", "separators", "sort_keys"});
  JsonDumpOptions o;
  o.ensure_ascii = flag(a, 0);
  if (const Value* indent = a.get(1); indent && !indent->is_none()) {
    if (indent->is_string()) {
      o.indent = indent->as_string();
    } else {
      int64_t n = int_arg(*indent, "tojson() indent");
      o.indent = std::string(static_cast<size_t>(std::clamp<int64_t>(n, 0, 64)), ' ');
    }
  }
  if (const Value* sep = a.get(2); sep && !sep->is_none()) {
    ValueList parts = iterate(*sep);
    if (parts.size() != 2 || !parts[0].is_string() || !parts[1].is_string())
      throw Failure("tojson() separators must be a pair of strings");
    o.item_separator = parts[0].as_string();
    o.key_separator = parts[1].as_string();
  }
  o.sort_keys = flag(a, 3);
  std::string out = json_dumps(v, o);
  interp.budget().string_of(out.size());
  return Value(std::move(out));
}

Value f_unsupported(Interpreter&, const Value&, const CallArgs&) {
  throw Failure("this filter is not supported by the template engine");
}

}  // namespace zen::tmpl::filters
