// Runs a parsed template: scopes with jinja2's rules (a loop iteration or macro call gets its
// own scope; `if` does not), statements, expressions, macros and loops, all under the
// sandbox's budget. One Interpreter renders once, on one thread.
#pragma once

#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ast.h"
#include "budget.h"
#include "options.h"
#include "value.h"

namespace zen::tmpl {

// Variables visible at one point of a template. Lookups walk outward; the outermost scope
// falls back to the render context and then to the globals.
class Scope {
 public:
  explicit Scope(std::shared_ptr<Scope> parent) : parent_(std::move(parent)) {}
  Scope(const Mapping* context, const Mapping* globals) : context_(context), globals_(globals) {}

  const Value* find(std::string_view name) const;
  void set(std::string_view name, Value value);
  void clear() { vars_.clear(); }

 private:
  std::shared_ptr<Scope> parent_;
  std::vector<std::pair<std::string, Value>> vars_;
  const Mapping* context_ = nullptr;
  const Mapping* globals_ = nullptr;
};
using ScopePtr = std::shared_ptr<Scope>;

class Interpreter {
 public:
  Interpreter(const Limits& limits, const RenderOptions& options);
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // `context` must be a mapping: its keys become template variables.
  std::string render(const Body& body, const Value& context);

  // ---- services for filters, tests, globals and objects ----
  Budget& budget() { return budget_; }
  Value call(const Value& callee, const CallArgs& args);
  Value apply_filter(std::string_view name, const Value& input, const CallArgs& args);
  bool apply_test(std::string_view name, const Value& input, const CallArgs& args);
  std::tm now() const;
  // Objects created during the render, released at its end to break reference cycles.
  void adopt(const std::shared_ptr<Object>& object) { objects_.push_back(object); }

  std::string run_macro(const MacroDef& def, const ScopePtr& defining, const CallArgs& args);
  std::string run_loop(const ForStmt& loop, const ScopePtr& scope, const Value& iterable,
                       uint32_t depth);

 private:
  enum class Flow { Normal, Break, Continue };

  Flow exec_body(const Body& body, const ScopePtr& scope, std::string& out);
  Flow exec(const Stmt& stmt, const ScopePtr& scope, std::string& out);
  Flow exec_inner(const Stmt& stmt, const ScopePtr& scope, std::string& out);
  Value eval(const Expr& expr, const ScopePtr& scope);
  Value eval_inner(const Expr& expr, const ScopePtr& scope);
  CallArgs eval_args(const ArgList& args, const ScopePtr& scope);
  // A filter chain whose innermost operand is missing, applied to `hole`.
  Value eval_filter_chain(const Expr& expr, const ScopePtr& scope, const Value& hole);

  void assign(const Target& target, const Value& value, const ScopePtr& scope);
  void emit(std::string& out, std::string_view text);
  void exec_for(const ForStmt& stmt, const ScopePtr& scope, std::string& out, const Value& iterable,
                uint32_t depth);
  void check_stack();

  Budget budget_;
  RenderOptions options_;
  std::vector<std::shared_ptr<Object>> objects_;
  std::vector<ScopePtr> scopes_;  // scopes captured by macros, cleared at the end
  Mapping globals_;               // after objects_: building it adopts objects
  const char* stack_base_ = nullptr;
};

}  // namespace zen::tmpl
