#include "operators.h"

#include <cmath>

#include "error.h"
#include "format.h"
#include "markup.h"
#include "py_format.h"
#include "utf8.h"

namespace zen::tmpl {
namespace {

const char* symbol(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "+";
    case BinaryOp::Sub:
      return "-";
    case BinaryOp::Mul:
      return "*";
    case BinaryOp::Div:
      return "/";
    case BinaryOp::FloorDiv:
      return "//";
    case BinaryOp::Mod:
      return "%";
    case BinaryOp::Pow:
      return "** or pow()";
    default:
      return "?";
  }
}

[[noreturn]] void unsupported(BinaryOp op, const Value& a, const Value& b) {
  throw Failure(std::string("unsupported operand type(s) for ") + symbol(op) + ": '" +
                type_name(a) + "' and '" + type_name(b) + "'");
}

[[noreturn]] void overflow() {
  throw Failure("integer result does not fit in 64 bits (Python would use a big integer)");
}

int64_t int_pow(int64_t base, int64_t exp) {
  int64_t result = 1;
  while (exp > 0) {
    if (exp & 1)
      if (__builtin_mul_overflow(result, base, &result)) overflow();
    exp >>= 1;
    if (exp > 0 && __builtin_mul_overflow(base, base, &base)) overflow();
  }
  return result;
}

// Python's float divmod: the quotient floors and the remainder takes the divisor's sign.
void float_divmod(double x, double y, double& div, double& mod) {
  mod = std::fmod(x, y);
  div = (x - mod) / y;
  if (mod != 0) {
    if ((y < 0) != (mod < 0)) {
      mod += y;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, y);
  }
  if (div != 0) {
    double floored = std::floor(div);
    if (div - floored > 0.5) floored += 1.0;
    div = floored;
  } else {
    div = std::copysign(0.0, x / y);
  }
}

Value arithmetic(BinaryOp op, const Value& a, const Value& b) {
  if (a.is_integral() && b.is_integral()) {
    int64_t x = a.as_int(), y = b.as_int(), r = 0;
    switch (op) {
      case BinaryOp::Add:
        if (__builtin_add_overflow(x, y, &r)) overflow();
        return Value(r);
      case BinaryOp::Sub:
        if (__builtin_sub_overflow(x, y, &r)) overflow();
        return Value(r);
      case BinaryOp::Mul:
        if (__builtin_mul_overflow(x, y, &r)) overflow();
        return Value(r);
      case BinaryOp::Div:
        if (y == 0) throw Failure("division by zero");
        return Value(static_cast<double>(x) / static_cast<double>(y));
      case BinaryOp::FloorDiv:
      case BinaryOp::Mod: {
        if (y == 0)
          throw Failure(op == BinaryOp::Mod ? "integer modulo by zero"
                                            : "integer division or modulo by zero");
        if (x == INT64_MIN && y == -1) {
          if (op == BinaryOp::Mod) return Value(0);
          overflow();
        }
        int64_t q = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) {
          m += y;
          q -= 1;
        }
        return op == BinaryOp::Mod ? Value(m) : Value(q);
      }
      case BinaryOp::Pow:
        if (y >= 0) return Value(int_pow(x, y));
        if (x == 0) throw Failure("0.0 cannot be raised to a negative power");
        return Value(std::pow(static_cast<double>(x), static_cast<double>(y)));
      default:
        break;
    }
  }
  double x = a.as_double(), y = b.as_double();
  switch (op) {
    case BinaryOp::Add:
      return Value(x + y);
    case BinaryOp::Sub:
      return Value(x - y);
    case BinaryOp::Mul:
      return Value(x * y);
    case BinaryOp::Div:
      if (y == 0) throw Failure("float division by zero");
      return Value(x / y);
    case BinaryOp::FloorDiv:
    case BinaryOp::Mod: {
      if (y == 0)
        throw Failure(op == BinaryOp::Mod ? "float modulo" : "float floor division by zero");
      double div, mod;
      float_divmod(x, y, div, mod);
      return Value(op == BinaryOp::Mod ? mod : div);
    }
    case BinaryOp::Pow: {
      if (x == 0 && y < 0) throw Failure("0.0 cannot be raised to a negative power");
      if (x < 0 && std::floor(y) != y)
        throw Failure("negative number raised to a fractional power (a complex number)");
      return Value(std::pow(x, y));
    }
    default:
      break;
  }
  unsupported(op, a, b);
}

Value concat_sequences(Budget& budget, const Value& a, const Value& b) {
  const ValueList& x = a.as_sequence().items;
  const ValueList& y = b.as_sequence().items;
  budget.items(x.size() + y.size());
  ValueList out;
  out.reserve(x.size() + y.size());
  out.insert(out.end(), x.begin(), x.end());
  out.insert(out.end(), y.begin(), y.end());
  return Value::sequence(a.as_sequence().kind, std::move(out));
}

}  // namespace

Value repeat(Budget& budget, const Value& seq, int64_t count) {
  if (count < 0) count = 0;
  if (seq.is_string()) {
    const std::string& s = seq.as_string();
    if (s.empty() || count == 0) return Value(std::string());
    if (static_cast<uint64_t>(count) > budget.limits().max_output_bytes / s.size() + 1)
      budget.string_of(budget.limits().max_output_bytes + 1);
    budget.string_of(s.size() * static_cast<size_t>(count));
    std::string out;
    out.reserve(s.size() * static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) out += s;
    return seq.is_markup() ? Value::markup(std::move(out)) : Value(std::move(out));
  }
  const ValueList& items = seq.as_sequence().items;
  if (items.empty() || count == 0) return Value::sequence(seq.as_sequence().kind, {});
  if (static_cast<uint64_t>(count) > budget.limits().max_items / items.size() + 1)
    budget.items(budget.limits().max_items + 1);
  budget.items(items.size() * static_cast<size_t>(count));
  ValueList out;
  for (int64_t i = 0; i < count; ++i) out.insert(out.end(), items.begin(), items.end());
  return Value::sequence(seq.as_sequence().kind, std::move(out));
}

Value binary_op(Budget& budget, BinaryOp op, const Value& a, const Value& b) {
  if (op == BinaryOp::Concat) {
    std::string left = py_str(a), right = py_str(b);
    budget.string_of(left.size() + right.size());
    return Value(left + right);
  }
  require_defined(a);
  // `str % undefined` formats like Python's str % obj: the undefined fails only if a
  // conversion uses it in a way it does not support.
  if (op == BinaryOp::Mod && a.is_string())
    return a.is_markup() ? Value::markup(percent_format(budget, a.as_string(), b, true))
                         : Value(percent_format(budget, a.as_string(), b, false));
  require_defined(b);
  if (a.is_number() && b.is_number()) return arithmetic(op, a, b);
  auto repeatable = [](const Value& v) { return v.is_string() || v.is_list() || v.is_tuple(); };
  switch (op) {
    case BinaryOp::Add:
      if (a.is_string() && b.is_string()) {
        if (a.is_markup() || b.is_markup()) {  // markup escapes the plain side
          std::string text = escaped_text(a) + escaped_text(b);
          budget.string_of(text.size());
          return Value::markup(std::move(text));
        }
        budget.string_of(a.as_string().size() + b.as_string().size());
        return Value(a.as_string() + b.as_string());
      }
      if ((a.is_list() && b.is_list()) || (a.is_tuple() && b.is_tuple()))
        return concat_sequences(budget, a, b);
      if ((a.is_string() && !a.is_markup()) || a.is_list() || a.is_tuple())
        throw Failure("can only concatenate " + type_name(a) + " (not \"" + type_name(b) +
                      "\") to " + type_name(a));
      break;
    case BinaryOp::Mul:
      if (repeatable(a) && b.is_integral()) return repeat(budget, a, b.as_int());
      if (a.is_integral() && repeatable(b)) return repeat(budget, b, a.as_int());
      if (repeatable(a) || repeatable(b))
        throw Failure("can't multiply sequence by non-int of type '" +
                      type_name(repeatable(a) ? b : a) + "'");
      break;
    default:
      break;
  }
  unsupported(op, a, b);
}

Value unary_op(UnaryOp op, const Value& v) {
  require_defined(v);
  if (v.is_integral()) {
    int64_t i = v.as_int();
    if (op == UnaryOp::Pos) return Value(i);
    if (i == INT64_MIN) overflow();
    return Value(-i);
  }
  if (v.is_float()) return Value(op == UnaryOp::Pos ? v.as_double() : -v.as_double());
  throw Failure(std::string("bad operand type for unary ") + (op == UnaryOp::Pos ? "+" : "-") +
                ": '" + type_name(v) + "'");
}

bool compare_op(CompareOp op, const Value& a, const Value& b) {
  switch (op) {
    case CompareOp::Eq:
      return equals(a, b);
    case CompareOp::Ne:
      return !equals(a, b);
    case CompareOp::Lt:
      return compare(a, b, "<") == -1;
    case CompareOp::Le: {
      int c = compare(a, b, "<=");
      return c == -1 || c == 0;
    }
    case CompareOp::Gt:
      return compare(a, b, ">") == 1;
    case CompareOp::Ge: {
      int c = compare(a, b, ">=");
      return c == 1 || c == 0;
    }
    case CompareOp::In:
      return contains(b, a);
    case CompareOp::NotIn:
      return !contains(b, a);
  }
  return false;
}

bool contains(const Value& container, const Value& item) {
  switch (container.kind()) {
    case Value::Kind::String:
      if (!item.is_string()) {
        require_defined(item);
        throw Failure("'in <string>' requires string as left operand, not " + type_name(item));
      }
      return container.as_string().find(item.as_string()) != std::string::npos;
    case Value::Kind::Sequence:
      for (const Value& v : container.as_sequence().items)
        if (equals(v, item)) return true;
      return false;
    case Value::Kind::Mapping:
      if (!hashable(item)) throw Failure("unhashable type: '" + type_name(item) + "'");
      return container.as_mapping().find(item) != nullptr;
    case Value::Kind::Generator: {
      Generator& g = container.as_generator();
      while (g.next) {
        std::optional<Value> v = g.next();
        if (!v) {
          g.next = nullptr;
          return false;
        }
        if (equals(*v, item)) return true;
      }
      return false;
    }
    case Value::Kind::Undefined:
      return false;
    default:
      throw Failure("argument of type '" + type_name(container) + "' is not iterable");
  }
}

}  // namespace zen::tmpl
