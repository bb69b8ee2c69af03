// Shared machinery of the filters: lazy generators, attribute getters, Python sorting.
#include "filters_impl.h"

#include <algorithm>

#include "py_format.h"
#include "utf8.h"

namespace zen::tmpl::filters {

// A lazy generator yielding step(item) for each source item where step returns a value.
Value lazy(const Value& input, std::function<std::optional<Value>(const Value&)> step) {
  auto source = std::make_shared<Source>(input);
  uint32_t depth = source->depth();
  return Value::generator(
      [source, step = std::move(step)]() -> std::optional<Value> {
        while (std::optional<Value> item = source->next()) {
          if (std::optional<Value> out = step(*item)) return out;
        }
        return std::nullopt;
      },
      depth);
}

Value generator_of(ValueList items) {
  auto data = std::make_shared<ValueList>(std::move(items));
  auto pos = std::make_shared<size_t>(0);
  uint32_t depth = 0;
  for (const Value& v : *data) depth = std::max(depth, v.depth());
  return Value::generator(
      [data, pos]() -> std::optional<Value> {
        if (*pos >= data->size()) return std::nullopt;
        return (*data)[(*pos)++];
      },
      depth);
}

// Filters built on jinja2's soft_str keep markup markup: `x|safe|upper` is still safe.
Value like(const Value& input, std::string s) {
  return input.is_markup() ? Value::markup(std::move(s)) : Value(std::move(s));
}

Value lowercase_if_string(const Value& v) {
  return v.is_string() ? Value(utf8::lower(v.as_string())) : v;
}

// The sort key of jinja2's make_multi_attrgetter: "age,name" gives [item.age, item.name].
std::vector<AttrGetter> multi_getter(const Value* attribute, bool ignore_case) {
  std::vector<AttrGetter> getters;
  if (attribute && attribute->is_string()) {
    for (const Value& part : split_string(attribute->as_string(), Value(","), -1, false))
      getters.emplace_back(&part, ignore_case);
  } else {
    getters.emplace_back(attribute, ignore_case);
  }
  return getters;
}

bool flag(const ArgReader& a, size_t i, bool fallback) {
  return a.has(i) ? truthy(*a.get(i)) : fallback;
}

// Stable sort with Python's `<` on keys; reverse keeps equal items in their original order.
ValueList sorted(const ValueList& items, const std::function<Value(const Value&)>& key,
                 bool reverse) {
  std::vector<std::pair<Value, size_t>> keyed;
  keyed.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) keyed.emplace_back(key(items[i]), i);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    return reverse ? less(y.first, x.first) : less(x.first, y.first);
  });
  ValueList out;
  out.reserve(items.size());
  for (const auto& k : keyed) out.push_back(items[k.second]);
  return out;
}

std::string soft_str(const Value& v) { return py_str(v); }

}  // namespace zen::tmpl::filters
