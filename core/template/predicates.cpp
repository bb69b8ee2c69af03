#include "predicates.h"

#include <algorithm>
#include <array>
#include <optional>

#include "args.h"
#include "error.h"
#include "filters.h"
#include "interpreter.h"
#include "operators.h"
#include "py_format.h"
#include "utf8.h"

namespace zen::tmpl {
namespace {

constexpr std::array<std::string_view, 39> kTests = {
    "odd",     "even",   "divisibleby", "defined",  "undefined", "filter", "test",    "none",
    "boolean", "false",  "true",        "integer",  "float",     "lower",  "upper",   "string",
    "mapping", "number", "sequence",    "iterable", "callable",  "sameas", "escaped", "in",
    "==",      "eq",     "equalto",     "!=",       "ne",        ">",      "gt",      "greaterthan",
    ">=",      "ge",     "<",           "lt",       "lessthan",  "<=",     "le"};

const Value& one_arg(std::string_view test, const CallArgs& args) {
  ArgReader a(test, args, {"other"});
  if (!a.has(0)) throw Failure("test '" + std::string(test) + "' needs an argument");
  return *a.get(0);
}

bool remainder_is(Interpreter& interp, const Value& v, const Value& divisor, int64_t expected) {
  return equals(binary_op(interp.budget(), BinaryOp::Mod, v, divisor), Value(expected));
}

// Python's `is`: the same object. Small ints, None and booleans are singletons in CPython.
bool same_object(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::None:
      return true;
    case Value::Kind::Bool:
      return a.as_bool() == b.as_bool();
    case Value::Kind::Int:
      return a.as_int() == b.as_int() && a.as_int() >= -5 && a.as_int() <= 256;
    case Value::Kind::Float:
    case Value::Kind::String:
    case Value::Kind::Undefined:
      return false;
    default:
      return a.identity() == b.identity();
  }
}

// str(value).islower() / .isupper(): any value, through its str().
bool case_test(const Value& v, bool upper) { return utf8::is_single_case(py_str(v), upper); }

// Tests of the value alone; nullopt if `name` is not one of them.
std::optional<bool> unary_test(Interpreter& interp, std::string_view name, const Value& v) {
  if (name == "defined") return !v.is_undefined();
  if (name == "undefined") return v.is_undefined();
  if (name == "none") return v.is_none();
  if (name == "boolean") return v.is_bool();
  if (name == "true") return v.is_bool() && v.as_bool();
  if (name == "false") return v.is_bool() && !v.as_bool();
  if (name == "integer") return v.is_int();
  if (name == "float") return v.is_float();
  if (name == "number") return v.is_number();
  if (name == "string") return v.is_string();
  if (name == "mapping") return v.is_mapping();
  if (name == "iterable") return iterable(v);
  if (name == "escaped") return v.is_markup();
  if (name == "lower" || name == "upper") return case_test(v, name == "upper");
  if (name == "odd") return remainder_is(interp, v, Value(2), 1);
  if (name == "even") return remainder_is(interp, v, Value(2), 0);
  if (name == "filter") return v.is_string() && has_filter(v.as_string());
  if (name == "test") return v.is_string() && has_test(v.as_string());
  if (name == "callable") return v.is_undefined() || (v.is_object() && v.as_object().callable());
  if (name == "sequence") {
    // len() works and the value is subscriptable (undefined counts, as in jinja2).
    if (v.is_sequence()) {
      SeqKind k = v.as_sequence().kind;
      return k == SeqKind::List || k == SeqKind::Tuple || k == SeqKind::Range;
    }
    return v.is_string() || v.is_mapping() || v.is_undefined();
  }
  return std::nullopt;
}

}  // namespace

bool has_test(std::string_view name) {
  return std::find(kTests.begin(), kTests.end(), name) != kTests.end();
}

bool run_test(Interpreter& interp, std::string_view name, const Value& v, const CallArgs& args) {
  if (std::optional<bool> result = unary_test(interp, name, v)) {
    ArgReader no_args(name, args, {});
    return *result;
  }
  if (name == "divisibleby") return remainder_is(interp, v, one_arg(name, args), 0);
  if (name == "sameas") return same_object(v, one_arg(name, args));
  if (name == "in") return contains(one_arg(name, args), v);
  if (name == "==" || name == "eq" || name == "equalto") return equals(v, one_arg(name, args));
  if (name == "!=" || name == "ne") return !equals(v, one_arg(name, args));
  if (name == ">" || name == "gt" || name == "greaterthan")
    return compare_op(CompareOp::Gt, v, one_arg(name, args));
  if (name == ">=" || name == "ge") return compare_op(CompareOp::Ge, v, one_arg(name, args));
  if (name == "<" || name == "lt" || name == "lessthan")
    return compare_op(CompareOp::Lt, v, one_arg(name, args));
  if (name == "<=" || name == "le") return compare_op(CompareOp::Le, v, one_arg(name, args));
  throw Failure("no test named '" + std::string(name) + "'");
}

}  // namespace zen::tmpl
