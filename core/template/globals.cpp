#include "globals.h"

#include <locale.h>
#include <clocale>
#include <ctime>
#include <functional>

#include "args.h"
#include "error.h"
#include "interpreter.h"
#include "py_format.h"

namespace zen::tmpl {
namespace {

using NativeFn = std::function<Value(Interpreter&, const CallArgs&)>;

class Function : public Object {
 public:
  Function(std::string name, NativeFn fn) : name_(std::move(name)), fn_(std::move(fn)) {}
  std::string type_name() const override { return "function"; }
  bool callable() const override { return true; }
  Value call(Interpreter& interp, const CallArgs& args) override { return fn_(interp, args); }
  std::string repr(uint32_t) const override { return "<function " + name_ + ">"; }

 private:
  std::string name_;
  NativeFn fn_;
};

class Namespace : public Object {
 public:
  std::string type_name() const override { return "Namespace"; }
  Value get_attr(std::string_view name) const override {
    if (const Value* v = attrs_.find(name)) return *v;
    return Value::undefined("'Namespace object' has no attribute '" + std::string(name) + "'");
  }
  void set(std::string_view name, Value value) {
    // transformers' TemplateNamespace refuses underscore names (a sandbox escape route).
    if (!name.empty() && name[0] == '_')
      throw Failure(
          "Chat templates cannot store underscore-prefixed attributes on a namespace, "
          "but got '" +
          std::string(name) + "'. Please rename the attribute.");
    attrs_.set(Value(name), std::move(value));
  }
  std::string repr(uint32_t depth) const override {
    return "<Namespace " + py_repr(Value::mapping(attrs_), depth + 1) + ">";
  }
  void release() override { attrs_.clear(); }

 private:
  Mapping attrs_;
};

// dict(...) and dict.fromkeys(...), as transformers' TemplateDict.
class DictFunction : public Object {
 public:
  std::string type_name() const override { return "TemplateDict"; }
  bool callable() const override { return true; }
  Value call(Interpreter& interp, const CallArgs& args) override {
    if (args.positional.size() > 1)
      throw Failure("dict expected at most 1 argument, got " +
                    std::to_string(args.positional.size()));
    Mapping m;
    if (!args.positional.empty()) {
      const Value& src = args.positional[0];
      if (src.is_mapping()) {
        m = src.as_mapping();
      } else {
        size_t index = 0;
        for (const Value& pair : iterate(src)) {
          ValueList kv = iterate(pair);
          if (kv.size() != 2)
            throw Failure("dictionary update sequence element #" + std::to_string(index) +
                          " has length " + std::to_string(kv.size()) + "; 2 is required");
          m.set(kv[0], kv[1]);
          ++index;
        }
      }
    }
    for (const auto& [k, v] : args.named) m.set(Value(k), v);
    interp.budget().items(m.size());
    return Value::mapping(std::move(m));
  }
  Value get_attr(std::string_view name) const override {
    if (name != "fromkeys") return Object::get_attr(name);
    return Value::object(
        std::make_shared<Function>("fromkeys", [](Interpreter& interp, const CallArgs& args) {
          ArgReader a("dict.fromkeys", args, {"iterable", "value"});
          if (!a.has(0)) throw Failure("fromkeys expected at least 1 argument, got 0");
          Mapping m;
          Value fill = a.get_or(1, Value::none());
          for (const Value& k : iterate(*a.get(0))) m.set(k, fill);
          interp.budget().items(m.size());
          return Value::mapping(std::move(m));
        }));
  }
};

// cycler(a, b, ...): .next() walks the items round-robin, .current peeks, .reset() restarts.
class Cycler : public Object {
 public:
  explicit Cycler(ValueList items) : items_(std::move(items)) {}
  std::string type_name() const override { return "Cycler"; }
  Value get_attr(std::string_view name) const override {
    if (name == "current") return items_[pos_];
    if (name == "items") return Value::list(items_);
    auto* self = const_cast<Cycler*>(this);
    if (name == "next")
      return Value::object(
          std::make_shared<Function>("next", [self](Interpreter&, const CallArgs&) {
            Value v = self->items_[self->pos_];
            self->pos_ = (self->pos_ + 1) % self->items_.size();
            return v;
          }));
    if (name == "reset")
      return Value::object(
          std::make_shared<Function>("reset", [self](Interpreter&, const CallArgs&) {
            self->pos_ = 0;
            return Value::none();
          }));
    return Object::get_attr(name);
  }
  void release() override { items_.assign(1, Value()); }

 private:
  ValueList items_;
  size_t pos_ = 0;
};

// joiner(sep): returns "" the first time it is called and sep afterwards.
class Joiner : public Object {
 public:
  explicit Joiner(std::string sep) : sep_(std::move(sep)) {}
  std::string type_name() const override { return "Joiner"; }
  bool callable() const override { return true; }
  Value call(Interpreter&, const CallArgs&) override {
    if (!used_) {
      used_ = true;
      return Value("");
    }
    return Value(sep_);
  }

 private:
  std::string sep_;
  bool used_ = false;
};

Value range_fn(Interpreter& interp, const CallArgs& args) {
  if (!args.named.empty()) throw Failure("range() takes no keyword arguments");
  const ValueList& p = args.positional;
  if (p.empty() || p.size() > 3)
    throw Failure("range expected at most 3 arguments, got " + std::to_string(p.size()));
  int64_t start = 0, stop, step = 1;
  if (p.size() == 1) {
    stop = int_arg(p[0], "range()");
  } else {
    start = int_arg(p[0], "range()");
    stop = int_arg(p[1], "range()");
    if (p.size() == 3) step = int_arg(p[2], "range()");
  }
  if (step == 0) throw Failure("range() arg 3 must not be zero");
  // Count without overflow: the sandbox caps ranges at kMaxRange items.
  __int128 span =
      step > 0 ? static_cast<__int128>(stop) - start : static_cast<__int128>(start) - stop;
  __int128 abs_step = step > 0 ? step : -static_cast<__int128>(step);
  __int128 count = span <= 0 ? 0 : (span + abs_step - 1) / abs_step;
  if (count > kMaxRange)
    throw Failure("Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
  interp.budget().items(static_cast<size_t>(count));
  return Value::range(start, stop, step);
}

Value namespace_fn(Interpreter& interp, const CallArgs& args) {
  if (args.positional.size() > 1) throw Failure("namespace expected at most 1 positional argument");
  auto ns = std::make_shared<Namespace>();
  interp.adopt(ns);
  if (!args.positional.empty()) {
    const Value& src = args.positional[0];
    if (src.is_mapping()) {
      for (const auto& [k, v] : src.as_mapping().entries()) {
        if (!k.is_string()) throw Failure("namespace attribute names must be strings");
        ns->set(k.as_string(), v);
      }
    } else if (src.is_object() && is_namespace(src.as_object())) {
      throw Failure("namespace(namespace) is not supported; pass keyword arguments");
    } else {
      for (const Value& pair : iterate(src)) {
        ValueList kv = iterate(pair);
        if (kv.size() != 2 || !kv[0].is_string())
          throw Failure("namespace() needs a mapping or (name, value) pairs");
        ns->set(kv[0].as_string(), kv[1]);
      }
    }
  }
  for (const auto& [k, v] : args.named) ns->set(k, v);
  return Value::object(ns);
}

Value raise_exception_fn(Interpreter&, const CallArgs& args) {
  ArgReader a("raise_exception", args, {"message"});
  if (!a.has(0))
    throw Failure("raise_exception() missing 1 required positional argument: 'message'");
  throw Failure(py_str(*a.get(0)), ErrorKind::Raised);
}

Value strftime_now_fn(Interpreter& interp, const CallArgs& args) {
  ArgReader a("strftime_now", args, {"format"});
  if (!a.has(0)) throw Failure("strftime_now() missing 1 required positional argument: 'format'");
  const std::string& format = string_arg(*a.get(0), "strftime_now() format");
  if (format.size() > 256) throw Failure("strftime_now() format longer than 256 bytes");
  if (format.empty()) return Value("");
  std::tm t = interp.now();
  // Python formats in the C locale unless the program changed it; so do we, explicitly.
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
  std::string out(4096, '\0');
  size_t n = strftime_l(out.data(), out.size(), format.c_str(), &t, c_locale);
  if (n == 0) throw Failure("strftime_now() produced no output for format '" + format + "'");
  out.resize(n);
  return Value(std::move(out));
}

}  // namespace

bool is_namespace(const Object& o) { return dynamic_cast<const Namespace*>(&o) != nullptr; }

void namespace_set(Object& ns, std::string_view name, Value value) {
  static_cast<Namespace&>(ns).set(name, std::move(value));
}

Mapping make_globals(Interpreter& interp) {
  Mapping g;
  auto add = [&](const std::string& name, std::shared_ptr<Object> o) {
    interp.adopt(o);
    g.set(Value(name), Value::object(std::move(o)));
  };
  add("range", std::make_shared<Function>("range", range_fn));
  add("namespace", std::make_shared<Function>("namespace", namespace_fn));
  add("raise_exception", std::make_shared<Function>("raise_exception", raise_exception_fn));
  add("strftime_now", std::make_shared<Function>("strftime_now", strftime_now_fn));
  add("dict", std::make_shared<DictFunction>());
  add("cycler", std::make_shared<Function>("cycler", [](Interpreter& in, const CallArgs& args) {
        if (args.positional.empty()) throw Failure("cycler() needs at least one item");
        auto c = std::make_shared<Cycler>(args.positional);
        in.adopt(c);
        return Value::object(c);
      }));
  add("joiner", std::make_shared<Function>("joiner", [](Interpreter&, const CallArgs& args) {
        ArgReader a("joiner", args, {"sep"});
        return Value::object(std::make_shared<Joiner>(py_str(a.get_or(0, Value(", ")))));
      }));
  return g;
}

}  // namespace zen::tmpl
