// Internal to the filter implementation: the filter functions (one per jinja2 filter, split by
// what they work on) and the helpers they share. filters.h is the public face.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "access.h"
#include "args.h"
#include "methods.h"
#include "value.h"

namespace zen::tmpl {
class Interpreter;
}

namespace zen::tmpl::filters {

// Strings lower-cased (for case-insensitive comparisons), anything else as is.
Value lowercase_if_string(const Value& v);

// What a filter iterates: the items of a list, or what a generator still yields.
class Source {
 public:
  explicit Source(const Value& v) {
    if (v.is_generator()) {
      generator_ = v;
    } else {
      items_ = std::make_shared<ValueList>(iterate(v));
    }
  }
  std::optional<Value> next() {
    if (items_) {
      if (pos_ >= items_->size()) return std::nullopt;
      return (*items_)[pos_++];
    }
    Generator& g = generator_.as_generator();
    if (!g.next) return std::nullopt;
    std::optional<Value> v = g.next();
    if (!v) g.next = nullptr;
    return v;
  }
  uint32_t depth() const { return items_ ? 1 : generator_.depth(); }

 private:
  std::shared_ptr<ValueList> items_;
  size_t pos_ = 0;
  Value generator_;
};

// jinja2's make_attrgetter: "a.b.0" walks keys/attributes, digit parts as integer indexes.
class AttrGetter {
 public:
  AttrGetter(const Value* attribute, bool ignore_case, const Value* fallback = nullptr)
      : ignore_case_(ignore_case),
        fallback_(fallback && !fallback->is_none() ? *fallback : Value()),
        has_fallback_(fallback && !fallback->is_none()) {
    if (!attribute || attribute->is_none()) return;
    if (!attribute->is_string()) {
      parts_.push_back(*attribute);
      return;
    }
    for (const Value& part : split_string(attribute->as_string(), Value("."), -1, false)) {
      const std::string& p = part.as_string();
      bool digits = !p.empty() &&
                    std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; });
      parts_.push_back(digits ? Value(static_cast<int64_t>(std::strtoll(p.c_str(), nullptr, 10)))
                              : part);
    }
  }
  Value operator()(Value item) const {
    for (const Value& part : parts_) {
      item = get_item(item, part);
      if (has_fallback_ && item.is_undefined()) item = fallback_;
    }
    return ignore_case_ ? lowercase_if_string(item) : item;
  }

 private:
  std::vector<Value> parts_;
  bool ignore_case_;
  Value fallback_;
  bool has_fallback_;
};

// A lazy generator yielding step(item) for each item of `input` where step returns a value.
Value lazy(const Value& input, std::function<std::optional<Value>(const Value&)> step);
// A generator over precomputed items (jinja2 returns generators from these filters).
Value generator_of(ValueList items);
// A string result that stays markup when the input was (jinja2's soft_str keeps Markup).
Value like(const Value& input, std::string s);
// Key getters for sort's attribute "age,name".
std::vector<AttrGetter> multi_getter(const Value* attribute, bool ignore_case);
// A boolean argument, Python truthiness.
bool flag(const ArgReader& a, size_t i, bool fallback = false);
// Stable sort with Python's `<` on keys; reverse keeps equal items in their original order.
ValueList sorted(const ValueList& items, const std::function<Value(const Value&)>& key,
                 bool reverse);
// jinja2's soft_str: str() of anything.
std::string soft_str(const Value& v);

Value f_capitalize(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_center(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_escape(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_forceescape(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_format(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_indent(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_lower(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_upper(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_replace(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_safe(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_string(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_striptags(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_title(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_trim(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_truncate(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_wordcount(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_batch(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_dictsort(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_first(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_groupby(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_items(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_join(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_last(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_length(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_list(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_map(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_max(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_min(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_reverse(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_select(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_reject(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_selectattr(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_rejectattr(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_slice(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_sort(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_sum(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_unique(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_abs(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_attr(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_default(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_float(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_int(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_round(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_tojson(Interpreter& interp, const Value& v, const CallArgs& args);
Value f_unsupported(Interpreter& interp, const Value& v, const CallArgs& args);

}  // namespace zen::tmpl::filters
