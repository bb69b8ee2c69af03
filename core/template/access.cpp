#include "access.h"

#include <algorithm>

#include "error.h"
#include "interpreter.h"
#include "methods.h"
#include "py_format.h"
#include "utf8.h"

namespace zen::tmpl {
namespace {

Value missing_attribute(const Value& obj, std::string_view name) {
  return Value::undefined("'" + object_type_repr(obj) + "' has no attribute '" + std::string(name) +
                          "'");
}

Value missing_element(const Value& obj, const Value& key) {
  if (key.is_string()) return missing_attribute(obj, key.as_string());
  return Value::undefined(object_type_repr(obj) + " has no element " + py_repr(key));
}

Value unsafe(const Value& obj, std::string_view name) {
  return Value::undefined("access to attribute '" + std::string(name) + "' of '" + type_name(obj) +
                          "' object is unsafe.");
}

// The method, or an undefined explaining why there is none.
std::optional<Value> method_of(const Value& obj, std::string_view name) {
  switch (method_safety(obj, name)) {
    case MethodSafety::Safe:
      return Value::object(std::make_shared<BoundMethod>(obj, std::string(name)));
    case MethodSafety::Unsafe:
      return unsafe(obj, name);
    case MethodSafety::Missing:
      break;
  }
  if (name.size() >= 2 && name[0] == '_' && name[1] == '_') return unsafe(obj, name);
  return std::nullopt;
}

// A string cut from `from`: markup stays markup (Markup.__getitem__).
Value same_flavor(const Value& from, std::string s) {
  return from.is_markup() ? Value::markup(std::move(s)) : Value(std::move(s));
}

// Python index normalization: negative counts from the end; nullopt when out of range.
std::optional<size_t> normalize_index(int64_t i, size_t size) {
  if (i < 0) i += static_cast<int64_t>(size);
  if (i < 0 || static_cast<uint64_t>(i) >= size) return std::nullopt;
  return static_cast<size_t>(i);
}

int64_t slice_bound(const Value& v) {
  if (v.is_integral()) return v.as_int();
  throw Failure("slice indices must be integers or None or have an __index__ method");
}

// PySlice_AdjustIndices: fills start/stop/step and returns the number of selected items.
size_t adjust_slice(const Value& start_v, const Value& stop_v, const Value& step_v, size_t length,
                    int64_t& start, int64_t& step) {
  auto absent = [](const Value& v) { return v.is_none() || v.is_undefined(); };
  step = absent(step_v) ? 1 : slice_bound(step_v);
  if (step == 0) throw Failure("slice step cannot be zero");
  auto len = static_cast<int64_t>(length);
  auto clamp = [&](const Value& v, int64_t dflt) {
    if (absent(v)) return dflt;
    int64_t i = slice_bound(v);
    if (i < 0) {
      i += len;
      if (i < 0) i = step < 0 ? -1 : 0;
    } else if (i >= len) {
      i = step < 0 ? len - 1 : len;
    }
    return i;
  };
  start = clamp(start_v, step < 0 ? len - 1 : 0);
  int64_t stop = clamp(stop_v, step < 0 ? -1 : len);
  if (step < 0) return stop < start ? static_cast<size_t>((start - stop - 1) / (-step) + 1) : 0;
  return start < stop ? static_cast<size_t>((stop - start - 1) / step + 1) : 0;
}

}  // namespace

Value get_attribute(const Value& obj, std::string_view name) {
  switch (obj.kind()) {
    case Value::Kind::Undefined:
      require_defined(obj);
      break;
    case Value::Kind::Object:
      return obj.as_object().get_attr(name);
    case Value::Kind::Mapping: {
      if (auto m = method_of(obj, name)) return *m;
      if (const Value* v = obj.as_mapping().find(name)) return *v;
      return missing_attribute(obj, name);
    }
    case Value::Kind::Sequence:
      if (obj.as_sequence().kind == SeqKind::Range) {
        const Sequence& r = obj.as_sequence();
        if (name == "start") return Value(r.range_start);
        if (name == "stop") return Value(r.range_stop);
        if (name == "step") return Value(r.range_step);
      }
      [[fallthrough]];
    default:
      if (auto m = method_of(obj, name)) return *m;
      return missing_attribute(obj, name);
  }
  return Value();
}

Value get_item(const Value& obj, const Value& key) {
  switch (obj.kind()) {
    case Value::Kind::Undefined:
      require_defined(obj);
      break;
    case Value::Kind::Mapping:
      if (hashable(key))
        if (const Value* v = obj.as_mapping().find(key)) return *v;
      break;
    case Value::Kind::Sequence:
      if (key.is_integral()) {
        const ValueList& items = obj.as_sequence().items;
        if (auto i = normalize_index(key.as_int(), items.size())) return items[*i];
        return missing_element(obj, key);
      }
      break;
    case Value::Kind::String:
      if (key.is_integral()) {
        const std::string& s = obj.as_string();
        if (utf8::is_ascii(s)) {
          if (auto i = normalize_index(key.as_int(), s.size()))
            return same_flavor(obj, s.substr(*i, 1));
        } else {
          std::u32string cps = utf8::to_code_points(s);
          if (auto i = normalize_index(key.as_int(), cps.size()))
            return same_flavor(obj, utf8::from_code_points(std::u32string_view(&cps[*i], 1)));
        }
        return missing_element(obj, key);
      }
      break;
    case Value::Kind::Object:
      if (key.is_string()) return obj.as_object().get_attr(key.as_string());
      break;
    default:
      break;
  }
  // obj[key] failed: a string key may still name an attribute (a method).
  if (key.is_string())
    if (auto m = method_of(obj, key.as_string())) return *m;
  return missing_element(obj, key);
}

Value slice_value(Budget& budget, const Value& obj, const Value& start_v, const Value& stop_v,
                  const Value& step_v) {
  require_defined(obj);
  int64_t start = 0, step = 1;
  if (obj.is_string()) {
    const std::string& s = obj.as_string();
    std::u32string cps = utf8::to_code_points(s);
    size_t n = adjust_slice(start_v, stop_v, step_v, cps.size(), start, step);
    std::u32string out;
    out.reserve(n);
    for (size_t k = 0; k < n; ++k)
      out += cps[static_cast<size_t>(start + static_cast<int64_t>(k) * step)];
    budget.string_of(s.size());
    return same_flavor(obj, utf8::from_code_points(out));
  }
  if (obj.is_sequence() &&
      (obj.is_list() || obj.is_tuple() || obj.as_sequence().kind == SeqKind::Range)) {
    const Sequence& seq = obj.as_sequence();
    size_t n = adjust_slice(start_v, stop_v, step_v, seq.items.size(), start, step);
    budget.items(n);
    if (seq.kind == SeqKind::Range) {
      int64_t first = seq.range_start + start * seq.range_step;
      int64_t new_step = seq.range_step * step;
      return Value::range(first, first + static_cast<int64_t>(n) * new_step, new_step);
    }
    ValueList out;
    out.reserve(n);
    for (size_t k = 0; k < n; ++k)
      out.push_back(seq.items[static_cast<size_t>(start + static_cast<int64_t>(k) * step)]);
    return Value::sequence(seq.kind, std::move(out));
  }
  if (obj.is_mapping()) throw Failure("unhashable type: 'slice'");
  throw Failure("'" + type_name(obj) + "' object is not subscriptable");
}

Value BoundMethod::call(Interpreter& interp, const CallArgs& args) {
  return call_method(interp.budget(), self_, name_, args);
}

std::string BoundMethod::repr(uint32_t) const {
  return "<built-in method " + name_ + " of " + tmpl::type_name(self_) + " object>";
}

}  // namespace zen::tmpl
