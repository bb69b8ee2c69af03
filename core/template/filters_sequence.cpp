// Filters over sequences: selecting, mapping, sorting, grouping, joining, aggregating.
#include "filters_impl.h"

#include <algorithm>
#include <unordered_map>

#include "args.h"
#include "error.h"
#include "interpreter.h"
#include "methods.h"
#include "operators.h"
#include "py_format.h"
#include "utf8.h"

namespace zen::tmpl::filters {

namespace {

Value min_max(Interpreter&, const Value& v, const CallArgs& args, bool want_max) {
  ArgReader a(want_max ? "max" : "min", args, {"case_sensitive", "attribute"});
  ValueList items = iterate(v);
  if (items.empty()) return Value::undefined("No aggregated item, sequence was empty.");
  AttrGetter key(a.get(1), !flag(a, 0));
  size_t best = 0;
  Value best_key = key(items[0]);
  for (size_t i = 1; i < items.size(); ++i) {
    Value k = key(items[i]);
    if (want_max ? less(best_key, k) : less(k, best_key)) {
      best = i;
      best_key = k;
    }
  }
  return items[best];
}

Value select_common(Interpreter& interp, const Value& v, const CallArgs& args, bool by_attribute,
                    bool keep_when) {
  if (!truthy(v)) return generator_of({});
  size_t offset = by_attribute ? 1 : 0;
  std::optional<AttrGetter> getter;
  if (by_attribute) {
    if (args.positional.empty()) throw Failure("Missing parameter for attribute name");
    getter.emplace(&args.positional[0], false);
  }
  std::optional<std::string> test;
  CallArgs rest;
  if (args.positional.size() > offset) {
    test = string_arg(args.positional[offset], "test name");
    rest.positional.assign(args.positional.begin() + static_cast<std::ptrdiff_t>(offset) + 1,
                           args.positional.end());
  }
  rest.named = args.named;
  Interpreter* in = &interp;
  return lazy(v, [=](const Value& item) -> std::optional<Value> {
    Value probe = getter ? (*getter)(item) : item;
    bool pass = test ? in->apply_test(*test, probe, rest) : truthy(probe);
    if (pass == keep_when) return item;
    return std::nullopt;
  });
}

}  // namespace

Value f_batch(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("batch", args, {"linecount", "fill_with"});
  int64_t count = int_arg(a.get_or(0, Value()), "batch() linecount");
  if (count <= 0) throw Failure("batch() linecount must be positive");
  const Value* fill = a.get(1);
  ValueList rows, row;
  for (Value& item : iterate(v)) {
    if (static_cast<int64_t>(row.size()) == count)
      rows.push_back(Value::list(std::move(row))), row.clear();
    row.push_back(std::move(item));
  }
  if (!row.empty()) {
    if (fill && !fill->is_none())
      while (static_cast<int64_t>(row.size()) < count) row.push_back(*fill);
    rows.push_back(Value::list(std::move(row)));
  }
  interp.budget().items(rows.size());
  return generator_of(std::move(rows));
}

Value f_dictsort(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("dictsort", args, {"case_sensitive", "by", "reverse"});
  require_defined(v);
  if (!v.is_mapping()) throw Failure("'" + type_name(v) + "' object has no attribute 'items'");
  bool case_sensitive = flag(a, 0);
  Value by = a.get_or(1, Value("key"));
  size_t pos;
  if (by.is_string() && by.as_string() == "key") {
    pos = 0;
  } else if (by.is_string() && by.as_string() == "value") {
    pos = 1;
  } else {
    throw Failure("You can only sort by either \"key\" or \"value\"");
  }
  ValueList items;
  for (const auto& [k, val] : v.as_mapping().entries()) items.push_back(Value::tuple({k, val}));
  interp.budget().items(items.size());
  return Value::list(sorted(
      items,
      [&](const Value& item) {
        const Value& part = item.as_sequence().items[pos];
        return case_sensitive ? part : lowercase_if_string(part);
      },
      flag(a, 2)));
}

Value f_first(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("first", args, {});
  if (v.is_generator()) {
    Generator& g = v.as_generator();
    if (g.next)
      if (std::optional<Value> item = g.next()) return *item;
    return Value::undefined("No first item, sequence was empty.");
  }
  ValueList items = iterate(v);
  if (items.empty()) return Value::undefined("No first item, sequence was empty.");
  return items.front();
}

Value f_groupby(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("groupby", args, {"attribute", "default", "case_sensitive"});
  if (!a.has(0)) throw Failure("groupby() missing required argument 'attribute'");
  bool case_sensitive = flag(a, 2);
  AttrGetter key(a.get(0), !case_sensitive, a.get(1));
  AttrGetter display(a.get(0), false, a.get(1));
  ValueList items = sorted(
      iterate(v), [&](const Value& item) { return key(item); }, false);
  ValueList groups;
  for (size_t i = 0; i < items.size();) {
    Value k = key(items[i]);
    ValueList members;
    size_t j = i;
    while (j < items.size() && equals(key(items[j]), k)) members.push_back(items[j++]);
    groups.push_back(Value::tuple({display(items[i]), Value::list(std::move(members))}));
    i = j;
  }
  interp.budget().items(groups.size());
  return Value::list(std::move(groups));
}

Value f_items(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("items", args, {});
  if (v.is_undefined()) return generator_of({});
  if (!v.is_mapping()) throw Failure("Can only get item pairs from a mapping.");
  ValueList pairs;
  for (const auto& [k, val] : v.as_mapping().entries()) pairs.push_back(Value::tuple({k, val}));
  return generator_of(std::move(pairs));
}

Value f_join(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("join", args, {"d", "attribute"});
  std::string sep = soft_str(a.get_or(0, Value("")));
  std::optional<AttrGetter> getter;
  if (a.has(1) && !a.get(1)->is_none()) getter.emplace(a.get(1), false);
  std::string out;
  bool first = true;
  Source source(v);
  while (std::optional<Value> item = source.next()) {
    if (!first) out += sep;
    first = false;
    out += py_str(getter ? (*getter)(*item) : *item);
    interp.budget().string_of(out.size());
  }
  return Value(std::move(out));
}

Value f_last(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("last", args, {});
  if (v.is_generator()) throw Failure("'generator' object is not reversible");
  ValueList items = iterate(v);
  if (items.empty()) return Value::undefined("No last item, sequence was empty.");
  return items.back();
}

Value f_length(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("length", args, {});
  return Value(static_cast<int64_t>(length(v)));
}

Value f_list(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("list", args, {});
  ValueList items = iterate(v);
  interp.budget().items(items.size());
  return Value::list(std::move(items));
}

Value f_map(Interpreter& interp, const Value& v, const CallArgs& args) {
  if (!truthy(v)) return generator_of({});
  if (args.positional.empty()) {
    const Value* attribute = nullptr;
    const Value* fallback = nullptr;
    for (const auto& [k, val] : args.named) {
      if (k == "attribute")
        attribute = &val;
      else if (k == "default")
        fallback = &val;
      else
        throw Failure("Unexpected keyword argument '" + k + "'");
    }
    if (!attribute) throw Failure("map requires a filter argument");
    AttrGetter getter(attribute, false, fallback);
    return lazy(v, [getter](const Value& item) -> std::optional<Value> { return getter(item); });
  }
  std::string name = string_arg(args.positional[0], "map() filter name");
  CallArgs rest;
  rest.positional.assign(args.positional.begin() + 1, args.positional.end());
  rest.named = args.named;
  Interpreter* in = &interp;
  return lazy(v, [in, name, rest](const Value& item) -> std::optional<Value> {
    return in->apply_filter(name, item, rest);
  });
}

Value f_max(Interpreter& in, const Value& v, const CallArgs& args) {
  return min_max(in, v, args, true);
}

Value f_min(Interpreter& in, const Value& v, const CallArgs& args) {
  return min_max(in, v, args, false);
}

Value f_reverse(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("reverse", args, {});
  if (v.is_string()) {
    std::u32string cps = utf8::to_code_points(v.as_string());
    std::reverse(cps.begin(), cps.end());
    return like(v, utf8::from_code_points(cps));
  }
  ValueList items = iterate(v);
  std::reverse(items.begin(), items.end());
  interp.budget().items(items.size());
  // reversed() of a sequence is an iterator, not a list (no len(), always true).
  if (v.is_sequence() || v.is_mapping() || v.is_undefined()) return generator_of(std::move(items));
  return Value::list(std::move(items));
}

Value f_select(Interpreter& in, const Value& v, const CallArgs& args) {
  return select_common(in, v, args, false, true);
}

Value f_reject(Interpreter& in, const Value& v, const CallArgs& args) {
  return select_common(in, v, args, false, false);
}

Value f_selectattr(Interpreter& in, const Value& v, const CallArgs& args) {
  return select_common(in, v, args, true, true);
}

Value f_rejectattr(Interpreter& in, const Value& v, const CallArgs& args) {
  return select_common(in, v, args, true, false);
}

Value f_slice(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("slice", args, {"slices", "fill_with"});
  int64_t slices = int_arg(a.get_or(0, Value()), "slice() slices");
  if (slices <= 0 || slices > static_cast<int64_t>(interp.budget().limits().max_items))
    throw Failure("slice() needs a positive number of slices");
  ValueList seq = iterate(v);
  const Value* fill = a.get(1);
  size_t n = seq.size(), per = n / static_cast<size_t>(slices),
         extra = n % static_cast<size_t>(slices);
  size_t offset = 0;
  ValueList out;
  for (size_t s = 0; s < static_cast<size_t>(slices); ++s) {
    size_t start = offset + s * per;
    if (s < extra) ++offset;
    size_t end = offset + (s + 1) * per;
    ValueList part(seq.begin() + static_cast<std::ptrdiff_t>(start),
                   seq.begin() + static_cast<std::ptrdiff_t>(end));
    if (fill && !fill->is_none() && s >= extra) part.push_back(*fill);
    out.push_back(Value::list(std::move(part)));
  }
  interp.budget().items(out.size());
  return generator_of(std::move(out));
}

Value f_sort(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("sort", args, {"reverse", "case_sensitive", "attribute"});
  std::vector<AttrGetter> getters = multi_getter(a.get(2), !flag(a, 1));
  ValueList items = iterate(v);
  interp.budget().items(items.size());
  return Value::list(sorted(
      items,
      [&](const Value& item) {
        ValueList keys;
        for (const AttrGetter& g : getters) keys.push_back(g(item));
        return Value::list(std::move(keys));
      },
      flag(a, 0)));
}

Value f_sum(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("sum", args, {"attribute", "start"});
  Value total = a.get_or(1, Value(0));
  if (total.is_string()) throw Failure("sum() can't sum strings [use ''.join(seq) instead]");
  std::optional<AttrGetter> getter;
  if (a.has(0) && !a.get(0)->is_none()) getter.emplace(a.get(0), false);
  for (const Value& item : iterate(v))
    total = binary_op(interp.budget(), BinaryOp::Add, total, getter ? (*getter)(item) : item);
  return total;
}

Value f_unique(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("unique", args, {"case_sensitive", "attribute"});
  AttrGetter key(a.get(1), !flag(a, 0));
  auto seen = std::make_shared<std::unordered_multimap<size_t, Value>>();
  return lazy(v, [key, seen](const Value& item) -> std::optional<Value> {
    Value k = key(item);
    size_t h = hash_value(k);
    auto [begin, end] = seen->equal_range(h);
    for (auto it = begin; it != end; ++it)
      if (equals(it->second, k)) return std::nullopt;
    seen->emplace(h, k);
    return item;
  });
}

}  // namespace zen::tmpl::filters
