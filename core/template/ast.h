// The parsed form of a template: expressions and statements, each with its source position
// for error messages. Built by the parser, walked by the interpreter, never modified after
// parsing (a Template may render from several threads at once).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lexer.h"
#include "value.h"

namespace zen::tmpl {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

// Arguments of a call, filter or test: f(a, b, key=c, *rest, **more).
struct ArgList {
  std::vector<ExprPtr> positional;
  std::vector<std::pair<std::string, ExprPtr>> named;
  ExprPtr star;         // *args
  ExprPtr double_star;  // **kwargs
};

enum class ExprKind {
  Literal,
  Name,
  List,
  Tuple,
  Dict,
  Unary,
  Binary,
  Compare,
  Conditional,
  GetAttr,
  GetItem,
  Slice,
  Call,
  Filter,
  Test,
};

struct Expr {
  Expr(ExprKind k, Pos p) : kind(k), pos(p) {}
  virtual ~Expr() = default;
  ExprKind kind;
  Pos pos;
};

struct LiteralExpr : Expr {
  LiteralExpr(Pos p, Value v) : Expr(ExprKind::Literal, p), value(std::move(v)) {}
  Value value;  // scalars and strings only, so sharing it between threads is safe
};

struct NameExpr : Expr {
  NameExpr(Pos p, std::string n) : Expr(ExprKind::Name, p), name(std::move(n)) {}
  std::string name;
};

// List and tuple literals.
struct ItemsExpr : Expr {
  ItemsExpr(ExprKind k, Pos p) : Expr(k, p) {}
  std::vector<ExprPtr> items;
};

struct DictExpr : Expr {
  explicit DictExpr(Pos p) : Expr(ExprKind::Dict, p) {}
  std::vector<std::pair<ExprPtr, ExprPtr>> items;
};

enum class UnaryOp { Neg, Pos, Not };

struct UnaryExpr : Expr {
  UnaryExpr(Pos p, UnaryOp o, ExprPtr e) : Expr(ExprKind::Unary, p), op(o), operand(std::move(e)) {}
  UnaryOp op;
  ExprPtr operand;
};

enum class BinaryOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Concat, And, Or };

struct BinaryExpr : Expr {
  BinaryExpr(Pos p, BinaryOp o, ExprPtr l, ExprPtr r)
      : Expr(ExprKind::Binary, p), op(o), left(std::move(l)), right(std::move(r)) {}
  BinaryOp op;
  ExprPtr left, right;
};

enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn };

// a < b <= c: Python's chained comparison.
struct CompareExpr : Expr {
  CompareExpr(Pos p, ExprPtr first) : Expr(ExprKind::Compare, p), left(std::move(first)) {}
  ExprPtr left;
  std::vector<std::pair<CompareOp, ExprPtr>> rest;
};

// then_expr if test else else_expr (else_expr may be null: undefined when the test fails).
struct ConditionalExpr : Expr {
  explicit ConditionalExpr(Pos p) : Expr(ExprKind::Conditional, p) {}
  ExprPtr test, then_expr, else_expr;
};

struct GetAttrExpr : Expr {
  GetAttrExpr(Pos p, ExprPtr o, std::string n)
      : Expr(ExprKind::GetAttr, p), object(std::move(o)), name(std::move(n)) {}
  ExprPtr object;
  std::string name;
};

struct GetItemExpr : Expr {
  GetItemExpr(Pos p, ExprPtr o, ExprPtr i)
      : Expr(ExprKind::GetItem, p), object(std::move(o)), index(std::move(i)) {}
  ExprPtr object, index;
};

// object[start:stop:step]; missing parts are null.
struct SliceExpr : Expr {
  SliceExpr(Pos p, ExprPtr o) : Expr(ExprKind::Slice, p), object(std::move(o)) {}
  ExprPtr object, start, stop, step;
};

struct CallExpr : Expr {
  CallExpr(Pos p, ExprPtr c) : Expr(ExprKind::Call, p), callee(std::move(c)) {}
  ExprPtr callee;
  ArgList args;
};

// operand | name(args). operand is null inside {% filter %} blocks and block sets, where the
// interpreter supplies the rendered body.
struct FilterExpr : Expr {
  FilterExpr(Pos p, ExprPtr o, std::string n)
      : Expr(ExprKind::Filter, p), operand(std::move(o)), name(std::move(n)) {}
  ExprPtr operand;
  std::string name;
  ArgList args;
};

struct TestExpr : Expr {
  TestExpr(Pos p, ExprPtr o, std::string n)
      : Expr(ExprKind::Test, p), operand(std::move(o)), name(std::move(n)) {}
  ExprPtr operand;
  std::string name;
  ArgList args;
};

// ---- statements ----

// Where {% set %} and {% for %} store values: a name, a tuple of targets, or ns.attr.
struct Target {
  enum class Kind { Name, Tuple, Attribute } kind = Kind::Name;
  std::string name;           // Name; for Attribute the namespace variable
  std::string attribute;      // Attribute
  std::vector<Target> items;  // Tuple
  Pos pos;
};

enum class StmtKind {
  Text,
  Output,
  If,
  For,
  Set,
  SetBlock,
  Macro,
  CallBlock,
  FilterBlock,
  With,
  Break,
  Continue,
  Scope,
};

struct Stmt {
  Stmt(StmtKind k, Pos p) : kind(k), pos(p) {}
  virtual ~Stmt() = default;
  StmtKind kind;
  Pos pos;
};

struct TextStmt : Stmt {
  TextStmt(Pos p, std::string t) : Stmt(StmtKind::Text, p), text(std::move(t)) {}
  std::string text;
};

struct OutputStmt : Stmt {
  OutputStmt(Pos p, ExprPtr e) : Stmt(StmtKind::Output, p), expr(std::move(e)) {}
  ExprPtr expr;
};

struct IfStmt : Stmt {
  explicit IfStmt(Pos p) : Stmt(StmtKind::If, p) {}
  std::vector<std::pair<ExprPtr, Body>> branches;  // if, elif...
  Body else_body;
};

struct ForStmt : Stmt {
  explicit ForStmt(Pos p) : Stmt(StmtKind::For, p) {}
  Target target;
  ExprPtr iterable;
  ExprPtr filter;  // for x in y if filter
  bool recursive = false;
  Body body, else_body;
};

struct SetStmt : Stmt {
  explicit SetStmt(Pos p) : Stmt(StmtKind::Set, p) {}
  Target target;
  ExprPtr value;
};

// {% set x | filters %}body{% endset %}
struct SetBlockStmt : Stmt {
  explicit SetBlockStmt(Pos p) : Stmt(StmtKind::SetBlock, p) {}
  Target target;
  ExprPtr filter;  // FilterExpr chain whose innermost operand is null, or null
  Body body;
};

struct MacroParam {
  std::string name;
  ExprPtr default_value;  // null: required
};

// Shared by {% macro %} and the anonymous caller of {% call %}.
struct MacroDef {
  std::string name;
  std::vector<MacroParam> params;
  Body body;
  // Whether the body mentions these names, which decides what extra arguments it accepts.
  bool uses_caller = false, uses_varargs = false, uses_kwargs = false;
};

struct MacroStmt : Stmt {
  explicit MacroStmt(Pos p) : Stmt(StmtKind::Macro, p) {}
  MacroDef def;
};

// {% call(params) macro(args) %}body{% endcall %}
struct CallBlockStmt : Stmt {
  explicit CallBlockStmt(Pos p) : Stmt(StmtKind::CallBlock, p) {}
  std::unique_ptr<CallExpr> call;
  MacroDef caller;
};

struct FilterBlockStmt : Stmt {
  explicit FilterBlockStmt(Pos p) : Stmt(StmtKind::FilterBlock, p) {}
  ExprPtr filter;  // FilterExpr chain whose innermost operand is null
  Body body;
};

struct WithStmt : Stmt {
  explicit WithStmt(Pos p) : Stmt(StmtKind::With, p) {}
  std::vector<std::pair<Target, ExprPtr>> assignments;
  Body body;
};

// A body run in its own scope: transformers' {% generation %} block.
struct ScopeStmt : Stmt {
  explicit ScopeStmt(Pos p) : Stmt(StmtKind::Scope, p) {}
  Body body;
};

struct LoopControlStmt : Stmt {
  LoopControlStmt(StmtKind k, Pos p) : Stmt(k, p) {}
};

}  // namespace zen::tmpl
