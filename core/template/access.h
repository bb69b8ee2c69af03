// `obj.name`, `obj[key]` and `obj[a:b:c]` with the rules of jinja2's sandboxed environment:
// attribute lookup falls back to item lookup and vice versa, str/dict/list methods are bound
// methods, methods that mutate a value are refused ("unsafe"), and a missing attribute or item
// is an undefined value that errors only when used.
#pragma once

#include <string_view>

#include "budget.h"
#include "value.h"

namespace zen::tmpl {

Value get_attribute(const Value& obj, std::string_view name);
Value get_item(const Value& obj, const Value& key);
// Python slicing of str, list, tuple and range; start/stop/step may be none or undefined
// (absent).
Value slice_value(Budget& budget, const Value& obj, const Value& start, const Value& stop,
                  const Value& step);

// The method `name` of a built-in value (str, dict, list, tuple), bound to it.
class BoundMethod : public Object {
 public:
  BoundMethod(Value self, std::string name) : self_(std::move(self)), name_(std::move(name)) {}
  std::string type_name() const override { return "builtin_function_or_method"; }
  bool callable() const override { return true; }
  Value call(Interpreter& interp, const CallArgs& args) override;
  std::string repr(uint32_t depth) const override;
  void release() override { self_ = Value(); }

 private:
  Value self_;
  std::string name_;
};

}  // namespace zen::tmpl
