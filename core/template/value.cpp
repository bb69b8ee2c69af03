#include "value.h"

#include <algorithm>
#include <cmath>

#include "error.h"
#include "utf8.h"

namespace zen::tmpl {
namespace {

constexpr size_t kIndexThreshold = 8;  // dicts larger than this get a string-key index

uint32_t child_depth(const ValueList& items) {
  uint32_t d = 0;
  for (const Value& v : items) d = std::max(d, v.depth());
  return d;
}

uint32_t checked_depth(uint32_t child) {
  if (child + 1 > kMaxValueDepth)
    throw Failure("value nested deeper than " + std::to_string(kMaxValueDepth) + " levels",
                  ErrorKind::Limit);
  return child + 1;
}

// Exact comparison of an int with a double: -1, 0, 1, or 2 when unordered (NaN).
int compare_int_double(int64_t i, double d) {
  if (std::isnan(d)) return 2;
  if (d >= 9223372036854775808.0) return -1;
  if (d < -9223372036854775808.0) return 1;
  double t = std::trunc(d);
  auto ti = static_cast<int64_t>(t);
  if (i != ti) return i < ti ? -1 : 1;
  double frac = d - t;
  return frac > 0 ? -1 : (frac < 0 ? 1 : 0);
}

// -1, 0, 1 or 2 (unordered) for two numbers.
int compare_numbers(const Value& a, const Value& b) {
  if (a.is_integral() && b.is_integral()) {
    int64_t x = a.as_int(), y = b.as_int();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_integral()) return compare_int_double(a.as_int(), b.as_double());
  if (b.is_integral()) {
    int c = compare_int_double(b.as_int(), a.as_double());
    return c == 2 ? 2 : -c;
  }
  double x = a.as_double(), y = b.as_double();
  if (std::isnan(x) || std::isnan(y)) return 2;
  return x < y ? -1 : (x > y ? 1 : 0);
}

bool same_sequence_class(SeqKind a, SeqKind b) { return a == b; }

}  // namespace

// ---- Mapping ----

const Value* Mapping::find(std::string_view key) const {
  if (!string_index_.empty()) {
    auto it = string_index_.find(std::string(key));
    return it == string_index_.end() ? nullptr : &entries_[it->second].second;
  }
  for (const auto& [k, v] : entries_)
    if (k.is_string() && k.as_string() == key) return &v;
  return nullptr;
}

const Value* Mapping::find(const Value& key) const {
  if (key.is_string()) return find(std::string_view(key.as_string()));
  for (const auto& [k, v] : entries_)
    if (equals(k, key)) return &v;
  return nullptr;
}

void Mapping::set(Value key, Value value) {
  if (!hashable(key)) throw Failure("unhashable type: '" + type_name(key) + "'");
  depth_ = std::max(depth_, checked_depth(value.depth()));
  if (key.is_string() && !string_index_.empty()) {
    auto [it, inserted] = string_index_.emplace(key.as_string(), entries_.size());
    if (!inserted) {
      entries_[it->second].second = std::move(value);
    } else {
      entries_.emplace_back(std::move(key), std::move(value));
    }
    return;
  }
  for (auto& [k, v] : entries_) {
    if (equals(k, key)) {
      v = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::move(key), std::move(value));
  if (entries_.size() > kIndexThreshold && string_index_.empty()) {
    for (size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].first.is_string()) string_index_.emplace(entries_[i].first.as_string(), i);
  }
}

void Mapping::clear() {
  entries_.clear();
  string_index_.clear();
}

// ---- Value ----

Value Value::undefined(std::string message) {
  Value v;
  v.v_ = std::make_shared<const UndefinedInfo>(UndefinedInfo{std::move(message)});
  return v;
}

Value Value::markup(std::string s) {
  Value v(std::move(s));
  v.markup_ = true;
  return v;
}

Value Value::sequence(SeqKind kind, ValueList items) {
  auto s = std::make_shared<Sequence>();
  s->kind = kind;
  s->depth = checked_depth(child_depth(items));
  s->items = std::move(items);
  Value v;
  v.v_ = std::shared_ptr<const Sequence>(std::move(s));
  return v;
}

Value Value::list(ValueList items) { return sequence(SeqKind::List, std::move(items)); }
Value Value::tuple(ValueList items) { return sequence(SeqKind::Tuple, std::move(items)); }

Value Value::range(int64_t start, int64_t stop, int64_t step) {
  auto s = std::make_shared<Sequence>();
  s->kind = SeqKind::Range;
  s->range_start = start, s->range_stop = stop, s->range_step = step;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) s->items.emplace_back(i);
  Value v;
  v.v_ = std::shared_ptr<const Sequence>(std::move(s));
  return v;
}

Value Value::mapping(Mapping m) {
  Value v;
  v.v_ = std::make_shared<const Mapping>(std::move(m));
  return v;
}

Value Value::generator(std::function<std::optional<Value>()> next, uint32_t depth) {
  auto g = std::make_shared<Generator>();
  g->next = std::move(next);
  g->depth = checked_depth(depth);
  Value v;
  v.v_ = std::move(g);
  return v;
}

Value Value::object(std::shared_ptr<Object> o) {
  Value v;
  v.v_ = std::move(o);
  return v;
}

bool Value::is_list() const { return is_sequence() && as_sequence().kind == SeqKind::List; }
bool Value::is_tuple() const { return is_sequence() && as_sequence().kind == SeqKind::Tuple; }

int64_t Value::as_int() const {
  if (is_bool()) return as_bool() ? 1 : 0;
  return std::get<int64_t>(v_);
}

double Value::as_double() const {
  if (is_float()) return std::get<double>(v_);
  return static_cast<double>(as_int());
}

const void* Value::identity() const {
  switch (kind()) {
    case Kind::Sequence:
      return &as_sequence();
    case Kind::Mapping:
      return &as_mapping();
    case Kind::Generator:
      return &as_generator();
    case Kind::Object:
      return &as_object();
    default:
      return nullptr;
  }
}

std::string Value::undefined_message() const {
  const auto& info = std::get<std::shared_ptr<const UndefinedInfo>>(v_);
  return info ? info->message : "value is undefined";
}

uint32_t Value::depth() const {
  switch (kind()) {
    case Kind::Sequence:
      return as_sequence().depth;
    case Kind::Mapping:
      return as_mapping().depth();
    case Kind::Generator:
      return as_generator().depth;
    case Kind::Object:
      return 1;
    default:
      return 0;
  }
}

// ---- Object defaults ----

Value Object::get_attr(std::string_view name) const {
  return Value::undefined("'" + type_name() + " object' has no attribute '" + std::string(name) +
                          "'");
}

Value Object::call(Interpreter&, const CallArgs&) {
  throw Failure("'" + type_name() + "' object is not callable");
}

std::string Object::repr(uint32_t) const { return "<" + type_name() + " object>"; }

// ---- Python semantics ----

bool truthy(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Undefined:
    case Value::Kind::None:
      return false;
    case Value::Kind::Bool:
      return v.as_bool();
    case Value::Kind::Int:
      return v.as_int() != 0;
    case Value::Kind::Float:
      return v.as_double() != 0.0;
    case Value::Kind::String:
      return !v.as_string().empty();
    case Value::Kind::Sequence:
      return !v.as_sequence().items.empty();
    case Value::Kind::Mapping:
      return v.as_mapping().size() != 0;
    case Value::Kind::Generator:
    case Value::Kind::Object:
      return true;
  }
  return false;
}

bool equals(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) return compare_numbers(a, b) == 0;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::Undefined:
    case Value::Kind::None:
      return true;
    case Value::Kind::String:
      return a.as_string() == b.as_string();
    case Value::Kind::Sequence: {
      const Sequence& x = a.as_sequence();
      const Sequence& y = b.as_sequence();
      if (!same_sequence_class(x.kind, y.kind) || x.items.size() != y.items.size()) return false;
      for (size_t i = 0; i < x.items.size(); ++i)
        if (!equals(x.items[i], y.items[i])) return false;
      return true;
    }
    case Value::Kind::Mapping: {
      const Mapping& x = a.as_mapping();
      const Mapping& y = b.as_mapping();
      if (x.size() != y.size()) return false;
      for (const auto& [k, v] : x.entries()) {
        const Value* other = y.find(k);
        if (other == nullptr || !equals(v, *other)) return false;
      }
      return true;
    }
    default:
      return a.identity() == b.identity();
  }
}

int compare(const Value& a, const Value& b, std::string_view op) {
  if (a.is_number() && b.is_number()) return compare_numbers(a, b);
  require_defined(a);
  require_defined(b);
  if (a.is_string() && b.is_string()) {
    int c = a.as_string().compare(b.as_string());
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.is_sequence() && b.is_sequence() && a.as_sequence().kind == b.as_sequence().kind &&
      (a.is_list() || a.is_tuple())) {
    const ValueList& x = a.as_sequence().items;
    const ValueList& y = b.as_sequence().items;
    size_t n = std::min(x.size(), y.size());
    for (size_t i = 0; i < n; ++i)
      if (!equals(x[i], y[i])) return compare(x[i], y[i], op);
    return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
  }
  throw Failure("'" + std::string(op) + "' not supported between instances of '" + type_name(a) +
                "' and '" + type_name(b) + "'");
}

bool hashable(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Mapping:
      return false;
    case Value::Kind::Sequence: {
      const Sequence& s = v.as_sequence();
      if (s.kind == SeqKind::Range) return true;
      if (s.kind != SeqKind::Tuple) return false;
      return std::all_of(s.items.begin(), s.items.end(), hashable);
    }
    default:
      return true;
  }
}

size_t hash_value(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Undefined:
      return 0x5bd1e995;
    case Value::Kind::None:
      return 0x27d4eb2f;
    case Value::Kind::Bool:
    case Value::Kind::Int:
      return std::hash<int64_t>{}(v.as_int());
    case Value::Kind::Float: {
      double d = v.as_double();
      if (std::trunc(d) == d && std::fabs(d) < 9.2e18)
        return std::hash<int64_t>{}(static_cast<int64_t>(d));
      return std::hash<double>{}(d);
    }
    case Value::Kind::String:
      return std::hash<std::string>{}(v.as_string());
    case Value::Kind::Sequence: {
      if (!hashable(v)) throw Failure("unhashable type: '" + type_name(v) + "'");
      size_t h = 0x345678;
      for (const Value& item : v.as_sequence().items) h = h * 1000003 ^ hash_value(item);
      return h;
    }
    case Value::Kind::Mapping:
      throw Failure("unhashable type: 'dict'");
    default:
      return std::hash<const void*>{}(v.identity());
  }
}

std::string type_name(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Undefined:
      return "Undefined";
    case Value::Kind::None:
      return "NoneType";
    case Value::Kind::Bool:
      return "bool";
    case Value::Kind::Int:
      return "int";
    case Value::Kind::Float:
      return "float";
    case Value::Kind::String:
      return v.is_markup() ? "Markup" : "str";
    case Value::Kind::Sequence:
      switch (v.as_sequence().kind) {
        case SeqKind::List:
          return "list";
        case SeqKind::Tuple:
          return "tuple";
        case SeqKind::Range:
          return "range";
        case SeqKind::DictKeys:
          return "dict_keys";
        case SeqKind::DictValues:
          return "dict_values";
        case SeqKind::DictItems:
          return "dict_items";
      }
      return "list";
    case Value::Kind::Mapping:
      return "dict";
    case Value::Kind::Generator:
      return "generator";
    case Value::Kind::Object:
      return v.as_object().type_name();
  }
  return "object";
}

std::string object_type_repr(const Value& v) {
  if (v.is_none()) return "None";
  return type_name(v) + " object";
}

bool has_length(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Undefined:
    case Value::Kind::String:
    case Value::Kind::Sequence:
    case Value::Kind::Mapping:
      return true;
    default:
      return false;
  }
}

size_t length(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Undefined:
      return 0;
    case Value::Kind::String:
      return utf8::length(v.as_string());
    case Value::Kind::Sequence:
      return v.as_sequence().items.size();
    case Value::Kind::Mapping:
      return v.as_mapping().size();
    default:
      throw Failure("object of type '" + type_name(v) + "' has no len()");
  }
}

bool iterable(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Undefined:
    case Value::Kind::String:
    case Value::Kind::Sequence:
    case Value::Kind::Mapping:
    case Value::Kind::Generator:
      return true;
    default:
      return false;
  }
}

ValueList iterate(const Value& v) {
  ValueList out;
  switch (v.kind()) {
    case Value::Kind::Undefined:
      break;
    case Value::Kind::String: {
      const std::string& s = v.as_string();
      for (size_t i = 0; i < s.size();) {
        size_t n = utf8::decode(s, i).length;
        out.emplace_back(std::string(s, i, n));
        i += n;
      }
      break;
    }
    case Value::Kind::Sequence:
      out = v.as_sequence().items;
      break;
    case Value::Kind::Mapping:
      out.reserve(v.as_mapping().size());
      for (const auto& entry : v.as_mapping().entries()) out.push_back(entry.first);
      break;
    case Value::Kind::Generator: {
      Generator& g = v.as_generator();
      while (g.next) {
        std::optional<Value> item = g.next();
        if (!item) {
          g.next = nullptr;  // exhausted for good, and drop what it captured
          break;
        }
        out.push_back(std::move(*item));
      }
      break;
    }
    default:
      throw Failure("'" + type_name(v) + "' object is not iterable");
  }
  return out;
}

void require_defined(const Value& v) {
  if (v.is_undefined()) throw Failure(v.undefined_message());
}

}  // namespace zen::tmpl
