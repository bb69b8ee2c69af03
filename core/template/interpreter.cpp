#include "interpreter.h"

#include "access.h"
#include "error.h"
#include "filters.h"
#include "globals.h"
#include "operators.h"
#include "predicates.h"
#include "py_format.h"

namespace zen::tmpl {
namespace {

// A {% macro %} (or the caller of a {% call %} block) bound to the scope it was defined in.
class MacroObject : public Object {
 public:
  MacroObject(Interpreter& interp, const MacroDef& def, ScopePtr defining)
      : interp_(&interp), def_(&def), defining_(std::move(defining)) {}
  std::string type_name() const override { return "Macro"; }
  bool callable() const override { return true; }
  Value call(Interpreter&, const CallArgs& args) override {
    if (!defining_) throw Failure("macro '" + def_->name + "' called after its template ended");
    return Value(interp_->run_macro(*def_, defining_, args));
  }
  Value get_attr(std::string_view name) const override {
    if (name == "name") return Value(def_->name);
    if (name == "arguments") {
      ValueList names;
      for (const MacroParam& p : def_->params) names.emplace_back(p.name);
      return Value::tuple(std::move(names));
    }
    if (name == "catch_kwargs") return Value(def_->uses_kwargs);
    if (name == "catch_varargs") return Value(def_->uses_varargs);
    if (name == "caller") return Value(def_->uses_caller);
    return Object::get_attr(name);
  }
  std::string repr(uint32_t) const override { return "<Macro " + string_repr(def_->name) + ">"; }
  void release() override { defining_.reset(); }

 private:
  Interpreter* interp_;
  const MacroDef* def_;
  ScopePtr defining_;
};

class LoopObject;

// loop.cycle and loop.changed.
class LoopMethod : public Object {
 public:
  LoopMethod(std::shared_ptr<LoopObject> loop, bool cycle)
      : loop_(std::move(loop)), cycle_(cycle) {}
  std::string type_name() const override { return "method"; }
  bool callable() const override { return true; }
  Value call(Interpreter& interp, const CallArgs& args) override;
  void release() override { loop_.reset(); }

 private:
  std::shared_ptr<LoopObject> loop_;
  bool cycle_;
};

// The `loop` variable of a for loop.
class LoopObject : public Object, public std::enable_shared_from_this<LoopObject> {
 public:
  LoopObject(Interpreter& interp, const ForStmt& stmt, ScopePtr scope,
             std::shared_ptr<const ValueList> items, uint32_t depth)
      : interp_(&interp),
        stmt_(&stmt),
        scope_(std::move(scope)),
        items_(std::move(items)),
        depth_(depth) {}

  void advance(size_t index) { index_ = index; }
  std::string type_name() const override { return "LoopContext"; }
  bool callable() const override { return true; }

  Value get_attr(std::string_view name) const override {
    auto n = static_cast<int64_t>(items_->size());
    auto i = static_cast<int64_t>(index_);
    if (name == "index") return Value(i + 1);
    if (name == "index0") return Value(i);
    if (name == "revindex") return Value(n - i);
    if (name == "revindex0") return Value(n - i - 1);
    if (name == "first") return Value(i == 0);
    if (name == "last") return Value(i == n - 1);
    if (name == "length") return Value(n);
    if (name == "depth") return Value(static_cast<int64_t>(depth_));
    if (name == "depth0") return Value(static_cast<int64_t>(depth_) - 1);
    if (name == "previtem")
      return i > 0 ? (*items_)[index_ - 1] : Value::undefined("there is no previous item");
    if (name == "nextitem")
      return i + 1 < n ? (*items_)[index_ + 1] : Value::undefined("there is no next item");
    if (name == "cycle" || name == "changed") {
      auto self = std::const_pointer_cast<LoopObject>(shared_from_this());
      auto method = std::make_shared<LoopMethod>(self, name == "cycle");
      interp_->adopt(method);
      return Value::object(method);
    }
    return Object::get_attr(name);
  }

  Value call(Interpreter&, const CallArgs& args) override {
    if (!stmt_->recursive)
      throw Failure("The loop must have the 'recursive' marker to be called recursively.");
    if (args.positional.size() != 1 || !args.named.empty())
      throw Failure("a recursive loop call takes exactly one iterable");
    if (!scope_) throw Failure("loop called after it ended");
    return Value(interp_->run_loop(*stmt_, scope_, args.positional[0], depth_ + 1));
  }

  Value cycle(const CallArgs& args) const {
    if (args.positional.empty()) throw Failure("no items for cycling given");
    return args.positional[index_ % args.positional.size()];
  }

  Value changed(const CallArgs& args) {
    Value current = Value::tuple(args.positional);
    if (has_last_ && equals(current, last_changed_)) return Value(false);
    has_last_ = true;
    last_changed_ = current;
    return Value(true);
  }

  std::string repr(uint32_t) const override {
    return "<LoopContext " + std::to_string(index_ + 1) + "/" + std::to_string(items_->size()) +
           ">";
  }
  void release() override {
    scope_.reset();
    last_changed_ = Value();
  }

 private:
  Interpreter* interp_;
  const ForStmt* stmt_;
  ScopePtr scope_;
  std::shared_ptr<const ValueList> items_;
  uint32_t depth_;
  size_t index_ = 0;
  bool has_last_ = false;
  Value last_changed_;
};

Value LoopMethod::call(Interpreter&, const CallArgs& args) {
  if (!loop_) throw Failure("loop method called after the loop ended");
  return cycle_ ? loop_->cycle(args) : loop_->changed(args);
}

}  // namespace

// ---- Scope ----

const Value* Scope::find(std::string_view name) const {
  for (const Scope* s = this; s != nullptr; s = s->parent_.get()) {
    for (auto it = s->vars_.rbegin(); it != s->vars_.rend(); ++it)
      if (it->first == name) return &it->second;
    if (s->context_)
      if (const Value* v = s->context_->find(name)) return v;
    if (s->globals_)
      if (const Value* v = s->globals_->find(name)) return v;
  }
  return nullptr;
}

void Scope::set(std::string_view name, Value value) {
  for (auto& [k, v] : vars_) {
    if (k == name) {
      v = std::move(value);
      return;
    }
  }
  vars_.emplace_back(std::string(name), std::move(value));
}

// ---- Interpreter ----

Interpreter::Interpreter(const Limits& limits, const RenderOptions& options)
    : budget_(limits), options_(options), globals_(make_globals(*this)) {}

Interpreter::~Interpreter() {
  // Values can form cycles (a namespace holding itself, a macro stored in the scope it
  // captured); dropping every object's references here frees them all.
  for (const auto& o : objects_) o->release();
  for (const auto& s : scopes_) s->clear();
  globals_.clear();
}

std::tm Interpreter::now() const {
  if (options_.now) return *options_.now;
  std::time_t t = std::time(nullptr);
  std::tm local{};
  localtime_r(&t, &local);
  return local;
}

void Interpreter::check_stack() {
  char here;
  auto used = static_cast<size_t>(stack_base_ > &here ? stack_base_ - &here : &here - stack_base_);
  if (used > options_.max_stack_bytes)
    throw Failure("template recursion too deep (stack limit " +
                      std::to_string(options_.max_stack_bytes) + " bytes)",
                  ErrorKind::Limit);
}

std::string Interpreter::render(const Body& body, const Value& context) {
  char base;
  stack_base_ = &base;
  if (!context.is_mapping()) throw Failure("the render context must be a mapping");
  auto root = std::make_shared<Scope>(&context.as_mapping(), &globals_);
  scopes_.push_back(root);
  std::string out;
  exec_body(body, root, out);
  return out;
}

void Interpreter::emit(std::string& out, std::string_view text) {
  if (out.size() + text.size() > budget_.limits().max_output_bytes)
    throw Failure(
        "output exceeds the " + std::to_string(budget_.limits().max_output_bytes) + "-byte limit",
        ErrorKind::Limit);
  budget_.tick(text.size() / 64);
  out.append(text);
}

Interpreter::Flow Interpreter::exec_body(const Body& body, const ScopePtr& scope,
                                         std::string& out) {
  for (const StmtPtr& stmt : body) {
    Flow flow = exec(*stmt, scope, out);
    if (flow != Flow::Normal) return flow;
  }
  return Flow::Normal;
}

Interpreter::Flow Interpreter::exec(const Stmt& stmt, const ScopePtr& scope, std::string& out) {
  try {
    budget_.tick();
    check_stack();
    return exec_inner(stmt, scope, out);
  } catch (const Failure& f) {
    throw Error(f.kind(), f.message(), stmt.pos.line, stmt.pos.column);
  }
}

void Interpreter::assign(const Target& target, const Value& value, const ScopePtr& scope) {
  switch (target.kind) {
    case Target::Kind::Name:
      scope->set(target.name, value);
      return;
    case Target::Kind::Attribute: {
      const Value* ns = scope->find(target.name);
      if (!ns || !ns->is_object() || !is_namespace(ns->as_object()))
        throw Failure("cannot assign attribute on non-namespace object");
      namespace_set(ns->as_object(), target.attribute, value);
      return;
    }
    case Target::Kind::Tuple: {
      ValueList items = iterate(value);
      size_t want = target.items.size();
      if (items.size() > want)
        throw Failure("too many values to unpack (expected " + std::to_string(want) + ")");
      if (items.size() < want)
        throw Failure("not enough values to unpack (expected " + std::to_string(want) + ", got " +
                      std::to_string(items.size()) + ")");
      for (size_t i = 0; i < want; ++i) assign(target.items[i], items[i], scope);
      return;
    }
  }
}

Interpreter::Flow Interpreter::exec_inner(const Stmt& stmt, const ScopePtr& scope,
                                          std::string& out) {
  switch (stmt.kind) {
    case StmtKind::Text:
      emit(out, static_cast<const TextStmt&>(stmt).text);
      break;
    case StmtKind::Output: {
      Value v = eval(*static_cast<const OutputStmt&>(stmt).expr, scope);
      emit(out, py_str(v));
      break;
    }
    case StmtKind::If: {
      const auto& s = static_cast<const IfStmt&>(stmt);
      for (const auto& [test, body] : s.branches)
        if (truthy(eval(*test, scope))) return exec_body(body, scope, out);
      return exec_body(s.else_body, scope, out);
    }
    case StmtKind::For: {
      const auto& s = static_cast<const ForStmt&>(stmt);
      exec_for(s, scope, out, eval(*s.iterable, scope), 1);
      break;
    }
    case StmtKind::Set: {
      const auto& s = static_cast<const SetStmt&>(stmt);
      assign(s.target, eval(*s.value, scope), scope);
      break;
    }
    case StmtKind::SetBlock: {
      const auto& s = static_cast<const SetBlockStmt&>(stmt);
      std::string body;
      exec_body(s.body, std::make_shared<Scope>(scope), body);
      Value v(std::move(body));
      if (s.filter) v = eval_filter_chain(*s.filter, scope, v);
      assign(s.target, v, scope);
      break;
    }
    case StmtKind::Macro: {
      const auto& s = static_cast<const MacroStmt&>(stmt);
      auto macro = std::make_shared<MacroObject>(*this, s.def, scope);
      adopt(macro);
      scopes_.push_back(scope);
      scope->set(s.def.name, Value::object(macro));
      break;
    }
    case StmtKind::CallBlock: {
      const auto& s = static_cast<const CallBlockStmt&>(stmt);
      auto caller = std::make_shared<MacroObject>(*this, s.caller, scope);
      adopt(caller);
      scopes_.push_back(scope);
      Value callee = eval(*s.call->callee, scope);
      CallArgs args = eval_args(s.call->args, scope);
      args.named.emplace_back("caller", Value::object(caller));
      Value result;
      try {
        result = call(callee, args);
      } catch (const Failure& f) {
        throw Error(f.kind(), f.message(), s.call->pos.line, s.call->pos.column);
      }
      emit(out, py_str(result));
      break;
    }
    case StmtKind::FilterBlock: {
      const auto& s = static_cast<const FilterBlockStmt&>(stmt);
      std::string body;
      exec_body(s.body, std::make_shared<Scope>(scope), body);
      emit(out, py_str(eval_filter_chain(*s.filter, scope, Value(std::move(body)))));
      break;
    }
    case StmtKind::With: {
      const auto& s = static_cast<const WithStmt&>(stmt);
      auto inner = std::make_shared<Scope>(scope);
      ValueList values;
      for (const auto& [target, expr] : s.assignments) values.push_back(eval(*expr, scope));
      for (size_t i = 0; i < values.size(); ++i) assign(s.assignments[i].first, values[i], inner);
      return exec_body(s.body, inner, out);
    }
    case StmtKind::Scope:
      return exec_body(static_cast<const ScopeStmt&>(stmt).body, std::make_shared<Scope>(scope),
                       out);
    case StmtKind::Break:
      return Flow::Break;
    case StmtKind::Continue:
      return Flow::Continue;
  }
  return Flow::Normal;
}

void Interpreter::exec_for(const ForStmt& stmt, const ScopePtr& scope, std::string& out,
                           const Value& iterable, uint32_t depth) {
  ValueList all = iterate(iterable);
  budget_.tick(all.size());
  auto items = std::make_shared<ValueList>();
  if (stmt.filter) {
    // `for x in xs if cond`: filtered before the loop starts, so loop.length counts only
    // the items that pass.
    for (Value& item : all) {
      auto probe = std::make_shared<Scope>(scope);
      assign(stmt.target, item, probe);
      if (truthy(eval(*stmt.filter, probe))) items->push_back(std::move(item));
    }
  } else {
    *items = std::move(all);
  }
  if (items->empty()) {
    exec_body(stmt.else_body, std::make_shared<Scope>(scope), out);
    return;
  }
  auto loop = std::make_shared<LoopObject>(*this, stmt, scope, items, depth);
  adopt(loop);
  Value loop_value = Value::object(loop);
  for (size_t i = 0; i < items->size(); ++i) {
    budget_.tick();
    loop->advance(i);
    auto iteration = std::make_shared<Scope>(scope);
    assign(stmt.target, (*items)[i], iteration);
    iteration->set("loop", loop_value);
    if (exec_body(stmt.body, iteration, out) == Flow::Break) break;
  }
}

std::string Interpreter::run_loop(const ForStmt& loop, const ScopePtr& scope, const Value& iterable,
                                  uint32_t depth) {
  CallGuard guard(budget_);
  std::string out;
  exec_for(loop, scope, out, iterable, depth);
  return out;
}

std::string Interpreter::run_macro(const MacroDef& def, const ScopePtr& defining,
                                   const CallArgs& args) {
  CallGuard guard(budget_);
  auto scope = std::make_shared<Scope>(defining);
  size_t n = def.params.size();
  std::vector<bool> bound(n, false);
  for (size_t i = 0; i < args.positional.size() && i < n; ++i) {
    scope->set(def.params[i].name, args.positional[i]);
    bound[i] = true;
  }
  if (args.positional.size() > n && !def.uses_varargs)
    throw Failure("macro '" + def.name + "' takes not more than " + std::to_string(n) +
                  " argument(s)");
  if (def.uses_varargs) {
    ValueList extra;
    for (size_t i = n; i < args.positional.size(); ++i) extra.push_back(args.positional[i]);
    scope->set("varargs", Value::tuple(std::move(extra)));
  }
  Mapping kwargs;
  Value caller = Value::undefined("No caller defined");
  for (const auto& [key, value] : args.named) {
    size_t i = 0;
    while (i < n && def.params[i].name != key) ++i;
    if (i < n) {
      if (bound[i])
        throw Failure("macro '" + def.name + "' got multiple values for argument '" + key + "'");
      scope->set(key, value);
      bound[i] = true;
    } else if (key == "caller" && def.uses_caller) {
      caller = value;
    } else if (def.uses_kwargs) {
      kwargs.set(Value(key), value);
    } else {
      throw Failure("macro '" + def.name + "' takes no keyword argument '" + key + "'");
    }
  }
  if (def.uses_kwargs) scope->set("kwargs", Value::mapping(std::move(kwargs)));
  if (def.uses_caller) scope->set("caller", caller);
  for (size_t i = 0; i < n; ++i) {
    if (bound[i]) continue;
    const MacroParam& p = def.params[i];
    scope->set(p.name, p.default_value
                           ? eval(*p.default_value, scope)
                           : Value::undefined("parameter '" + p.name + "' was not provided"));
  }
  std::string out;
  exec_body(def.body, scope, out);
  return out;
}

Value Interpreter::call(const Value& callee, const CallArgs& args) {
  require_defined(callee);
  if (callee.is_object() && callee.as_object().callable())
    return callee.as_object().call(*this, args);
  throw Failure("'" + type_name(callee) + "' object is not callable");
}

Value Interpreter::apply_filter(std::string_view name, const Value& input, const CallArgs& args) {
  return run_filter(*this, name, input, args);
}

bool Interpreter::apply_test(std::string_view name, const Value& input, const CallArgs& args) {
  return run_test(*this, name, input, args);
}

CallArgs Interpreter::eval_args(const ArgList& list, const ScopePtr& scope) {
  CallArgs args;
  for (const ExprPtr& e : list.positional) args.positional.push_back(eval(*e, scope));
  for (const auto& [key, e] : list.named) args.named.emplace_back(key, eval(*e, scope));
  if (list.star) {
    for (Value& v : iterate(eval(*list.star, scope))) args.positional.push_back(std::move(v));
  }
  if (list.double_star) {
    Value kw = eval(*list.double_star, scope);
    if (!kw.is_mapping())
      throw Failure("argument after ** must be a mapping, not " + type_name(kw));
    for (const auto& [k, v] : kw.as_mapping().entries()) {
      if (!k.is_string()) throw Failure("keywords must be strings");
      args.named.emplace_back(k.as_string(), v);
    }
  }
  return args;
}

Value Interpreter::eval_filter_chain(const Expr& expr, const ScopePtr& scope, const Value& hole) {
  const auto& f = static_cast<const FilterExpr&>(expr);
  Value input = f.operand ? eval_filter_chain(*f.operand, scope, hole) : hole;
  try {
    return apply_filter(f.name, input, eval_args(f.args, scope));
  } catch (const Failure& e) {
    throw Error(e.kind(), e.message(), f.pos.line, f.pos.column);
  }
}

Value Interpreter::eval(const Expr& expr, const ScopePtr& scope) {
  try {
    budget_.tick();
    check_stack();
    return eval_inner(expr, scope);
  } catch (const Failure& f) {
    throw Error(f.kind(), f.message(), expr.pos.line, expr.pos.column);
  }
}

Value Interpreter::eval_inner(const Expr& expr, const ScopePtr& scope) {
  switch (expr.kind) {
    case ExprKind::Literal:
      return static_cast<const LiteralExpr&>(expr).value;
    case ExprKind::Name: {
      const std::string& name = static_cast<const NameExpr&>(expr).name;
      if (const Value* v = scope->find(name)) return *v;
      return Value::undefined("'" + name + "' is undefined");
    }
    case ExprKind::List:
    case ExprKind::Tuple: {
      const auto& e = static_cast<const ItemsExpr&>(expr);
      budget_.items(e.items.size());
      ValueList items;
      items.reserve(e.items.size());
      for (const ExprPtr& item : e.items) items.push_back(eval(*item, scope));
      return expr.kind == ExprKind::List ? Value::list(std::move(items))
                                         : Value::tuple(std::move(items));
    }
    case ExprKind::Dict: {
      const auto& e = static_cast<const DictExpr&>(expr);
      budget_.items(e.items.size());
      Mapping m;
      for (const auto& [k, v] : e.items) {
        Value key = eval(*k, scope);
        m.set(std::move(key), eval(*v, scope));
      }
      return Value::mapping(std::move(m));
    }
    case ExprKind::Unary: {
      const auto& e = static_cast<const UnaryExpr&>(expr);
      Value v = eval(*e.operand, scope);
      if (e.op == UnaryOp::Not) return Value(!truthy(v));
      return unary_op(e.op, v);
    }
    case ExprKind::Binary: {
      const auto& e = static_cast<const BinaryExpr&>(expr);
      Value left = eval(*e.left, scope);
      if (e.op == BinaryOp::And) return truthy(left) ? eval(*e.right, scope) : left;
      if (e.op == BinaryOp::Or) return truthy(left) ? left : eval(*e.right, scope);
      return binary_op(budget_, e.op, left, eval(*e.right, scope));
    }
    case ExprKind::Compare: {
      const auto& e = static_cast<const CompareExpr&>(expr);
      Value left = eval(*e.left, scope);
      for (const auto& [op, right_expr] : e.rest) {
        Value right = eval(*right_expr, scope);
        if (!compare_op(op, left, right)) return Value(false);
        left = std::move(right);
      }
      return Value(true);
    }
    case ExprKind::Conditional: {
      const auto& e = static_cast<const ConditionalExpr&>(expr);
      if (truthy(eval(*e.test, scope))) return eval(*e.then_expr, scope);
      if (e.else_expr) return eval(*e.else_expr, scope);
      return Value::undefined("the inline if-expression on line " + std::to_string(expr.pos.line) +
                              " evaluated to false and no else section was defined.");
    }
    case ExprKind::GetAttr: {
      const auto& e = static_cast<const GetAttrExpr&>(expr);
      return get_attribute(eval(*e.object, scope), e.name);
    }
    case ExprKind::GetItem: {
      const auto& e = static_cast<const GetItemExpr&>(expr);
      Value obj = eval(*e.object, scope);
      return get_item(obj, eval(*e.index, scope));
    }
    case ExprKind::Slice: {
      const auto& e = static_cast<const SliceExpr&>(expr);
      Value obj = eval(*e.object, scope);
      auto part = [&](const ExprPtr& p) { return p ? eval(*p, scope) : Value::none(); };
      Value start = part(e.start), stop = part(e.stop), step = part(e.step);
      return slice_value(budget_, obj, start, stop, step);
    }
    case ExprKind::Call: {
      const auto& e = static_cast<const CallExpr&>(expr);
      Value callee = eval(*e.callee, scope);
      return call(callee, eval_args(e.args, scope));
    }
    case ExprKind::Filter: {
      const auto& e = static_cast<const FilterExpr&>(expr);
      Value input = e.operand ? eval(*e.operand, scope) : Value();
      return apply_filter(e.name, input, eval_args(e.args, scope));
    }
    case ExprKind::Test: {
      const auto& e = static_cast<const TestExpr&>(expr);
      Value input = eval(*e.operand, scope);
      return Value(apply_test(e.name, input, eval_args(e.args, scope)));
    }
  }
  return Value();
}

}  // namespace zen::tmpl
