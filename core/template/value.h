// Values as Python sees them inside a Jinja template: undefined, None, bool, int, float, str,
// sequences (list, tuple, range and dict views), dicts that keep insertion order, one-shot
// generators (what map/select/... return) and objects (namespace, macro, loop, functions).
// Containers are immutable once built (the sandbox forbids mutating them), so copies share them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace zen::tmpl {

class Value;
class Object;
class Interpreter;
using ValueList = std::vector<Value>;

// Containers nested deeper than this are refused, so printing, comparing or destroying a
// value never recurses deeply enough to exhaust the stack.
inline constexpr uint32_t kMaxValueDepth = 512;

enum class SeqKind : uint8_t { List, Tuple, Range, DictKeys, DictValues, DictItems };

struct Sequence {
  SeqKind kind = SeqKind::List;
  ValueList items;
  uint32_t depth = 1;
  int64_t range_start = 0, range_stop = 0, range_step = 1;  // SeqKind::Range, for its repr
};

// A dict: insertion-ordered entries plus a hash index of string keys once it grows.
class Mapping {
 public:
  const Value* find(const Value& key) const;
  const Value* find(std::string_view key) const;
  // Inserts, or replaces the value in place (a replaced key keeps its position, as in Python).
  void set(Value key, Value value);
  const std::vector<std::pair<Value, Value>>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  uint32_t depth() const { return depth_; }
  void clear();

 private:
  std::vector<std::pair<Value, Value>> entries_;
  std::unordered_map<std::string, size_t> string_index_;
  uint32_t depth_ = 1;
};

// A Python generator: yields values until exhausted, and only once.
struct Generator {
  std::function<std::optional<Value>()> next;
  uint32_t depth = 1;
};

struct UndefinedInfo {
  std::string message;  // what misusing this value reports, e.g. "'x' is undefined"
};

struct CallArgs {
  ValueList positional;
  std::vector<std::pair<std::string, Value>> named;
};

class Value {
 public:
  enum class Kind : uint8_t {
    Undefined,
    None,
    Bool,
    Int,
    Float,
    String,
    Sequence,
    Mapping,
    Generator,
    Object
  };
  struct NoneType {};

  Value() = default;  // an anonymous undefined
  Value(NoneType) : v_(NoneType{}) {}
  Value(bool b) : v_(b) {}
  Value(int i) : v_(int64_t{i}) {}
  Value(int64_t i) : v_(i) {}
  Value(double d) : v_(d) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(std::string_view s) : v_(std::string(s)) {}
  Value(const char* s) : v_(std::string(s)) {}

  static Value none() { return Value(NoneType{}); }
  // A markupsafe.Markup string: text already safe for HTML, which escapes what it is combined
  // with (see markup.h). Only `safe`/`escape` and operations on markup create it.
  static Value markup(std::string s);
  static Value undefined(std::string message);
  static Value list(ValueList items);
  static Value tuple(ValueList items);
  static Value sequence(SeqKind kind, ValueList items);
  static Value range(int64_t start, int64_t stop, int64_t step);
  static Value mapping(Mapping m);
  static Value generator(std::function<std::optional<Value>()> next, uint32_t depth);
  static Value object(std::shared_ptr<Object> o);

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_undefined() const { return kind() == Kind::Undefined; }
  bool is_none() const { return kind() == Kind::None; }
  bool is_bool() const { return kind() == Kind::Bool; }
  bool is_int() const { return kind() == Kind::Int; }
  bool is_float() const { return kind() == Kind::Float; }
  bool is_string() const { return kind() == Kind::String; }
  bool is_markup() const { return markup_; }
  bool is_sequence() const { return kind() == Kind::Sequence; }
  bool is_mapping() const { return kind() == Kind::Mapping; }
  bool is_generator() const { return kind() == Kind::Generator; }
  bool is_object() const { return kind() == Kind::Object; }
  // Python's int (bool included) and float.
  bool is_integral() const { return is_int() || is_bool(); }
  bool is_number() const { return is_int() || is_bool() || is_float(); }
  bool is_list() const;
  bool is_tuple() const;

  bool as_bool() const { return std::get<bool>(v_); }
  int64_t as_int() const;    // Int or Bool
  double as_double() const;  // any number
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const Sequence& as_sequence() const { return *std::get<std::shared_ptr<const Sequence>>(v_); }
  const Mapping& as_mapping() const { return *std::get<std::shared_ptr<const Mapping>>(v_); }
  Generator& as_generator() const { return *std::get<std::shared_ptr<Generator>>(v_); }
  Object& as_object() const { return *std::get<std::shared_ptr<Object>>(v_); }
  const std::shared_ptr<Object>& object_ptr() const {
    return std::get<std::shared_ptr<Object>>(v_);
  }
  const void* identity() const;  // shared container/object address, for `is sameas`
  // What misusing this undefined value reports.
  std::string undefined_message() const;

  // Nesting depth: 0 for scalars.
  uint32_t depth() const;

 private:
  std::variant<std::shared_ptr<const UndefinedInfo>, NoneType, bool, int64_t, double, std::string,
               std::shared_ptr<const Sequence>, std::shared_ptr<const Mapping>,
               std::shared_ptr<Generator>, std::shared_ptr<Object>>
      v_;
  bool markup_ = false;
};

// Objects the template can hold but not build from literals: namespaces, macros, the loop
// variable, global functions and bound methods.
class Object {
 public:
  virtual ~Object() = default;
  // Python class name, used in messages and repr.
  virtual std::string type_name() const = 0;
  virtual Value get_attr(std::string_view name) const;
  virtual bool callable() const { return false; }
  virtual Value call(Interpreter& interp, const CallArgs& args);
  // Python repr(); `depth` is how deep inside other values this one is printed (objects that
  // hold values pass it on, so a namespace containing itself cannot recurse forever).
  virtual std::string repr(uint32_t depth) const;
  // Drops references to other values at the end of a render, breaking reference cycles.
  virtual void release() {}
};

// Python semantics shared by operators, filters and tests.
bool truthy(const Value& v);
bool equals(const Value& a, const Value& b);
// Orders a and b: -1, 0, 1, or 2 when unordered (NaN). Failure for values Python cannot
// order, naming `op` ("'<' not supported between instances of 'str' and 'int'").
int compare(const Value& a, const Value& b, std::string_view op);
inline bool less(const Value& a, const Value& b) { return compare(a, b, "<") == -1; }
size_t hash_value(const Value& v);  // Failure for unhashable values (list, dict)
bool hashable(const Value& v);
// Python type name: str, int, list, dict, NoneType, generator, ...
std::string type_name(const Value& v);
// Jinja's object_type_repr: "dict object", "None", ...
std::string object_type_repr(const Value& v);
// Python len(); Failure if the value has none. Undefined has length 0.
size_t length(const Value& v);
bool has_length(const Value& v);
// Python iteration into a list: str -> characters, dict -> keys, generator -> what is left
// of it (consumed), undefined -> nothing. Failure if the value is not iterable.
ValueList iterate(const Value& v);
bool iterable(const Value& v);
// Fails with the value's own message when it is undefined (any use but printing/testing).
void require_defined(const Value& v);

}  // namespace zen::tmpl
