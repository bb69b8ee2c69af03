#include "parser.h"

#include <initializer_list>

#include "error.h"
#include "filters.h"
#include "predicates.h"

namespace zen::tmpl {
namespace {

std::string describe(const Token& t) {
  switch (t.type) {
    case TokenType::Text:
      return "template text";
    case TokenType::VarBegin:
      return "begin of print statement";
    case TokenType::VarEnd:
      return "end of print statement";
    case TokenType::BlockBegin:
      return "begin of statement block";
    case TokenType::BlockEnd:
      return "end of statement block";
    case TokenType::Name:
      return "'" + t.text + "'";
    case TokenType::String:
      return "string";
    case TokenType::Integer:
      return "integer";
    case TokenType::Float:
      return "float";
    case TokenType::Operator:
      return "'" + t.text + "'";
    case TokenType::End:
      return "end of template";
  }
  return "token";
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, const ParseLimits& limits)
      : tokens_(std::move(tokens)), limits_(limits) {}

  Body parse() {
    Body body = parse_body({}, nullptr);
    if (cur().type != TokenType::End) fail(cur(), "unexpected " + describe(cur()));
    return body;
  }

 private:
  // ---- token helpers ----
  const Token& cur() const { return tokens_[pos_]; }
  const Token& peek(size_t ahead = 1) const {
    size_t i = pos_ + ahead;
    return tokens_[i < tokens_.size() ? i : tokens_.size() - 1];
  }
  const Token& next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool is_op(std::string_view op) const {
    return cur().type == TokenType::Operator && cur().text == op;
  }
  bool is_name(std::string_view name) const {
    return cur().type == TokenType::Name && cur().text == name;
  }
  bool skip_op(std::string_view op) {
    if (!is_op(op)) return false;
    next();
    return true;
  }
  bool skip_name(std::string_view name) {
    if (!is_name(name)) return false;
    next();
    return true;
  }
  [[noreturn]] void fail(const Token& at, const std::string& message) const {
    throw Error(ErrorKind::Syntax, message, at.pos.line, at.pos.column);
  }
  const Token& expect_op(std::string_view op) {
    if (!is_op(op)) fail(cur(), "expected '" + std::string(op) + "', got " + describe(cur()));
    return next();
  }
  const Token& expect_name() {
    if (cur().type != TokenType::Name) fail(cur(), "expected a name, got " + describe(cur()));
    return next();
  }
  void expect_block_end() {
    if (cur().type != TokenType::BlockEnd)
      fail(cur(), "expected end of statement block, got " + describe(cur()));
    next();
  }

  // Nesting guard: statements and expression levels share one budget.
  class Nest {
   public:
    Nest(Parser& p, const Token& at) : p_(p) {
      if (++p_.depth_ > p_.limits_.max_nesting)
        throw Error(
            ErrorKind::Limit,
            "template nests deeper than " + std::to_string(p_.limits_.max_nesting) + " levels",
            at.pos.line, at.pos.column);
    }
    ~Nest() { --p_.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    Parser& p_;
  };

  // Frame state: jinja allows unknown filters/tests inside if branches and conditional
  // expressions (it reports them only if they run), and break/continue only inside loops.
  struct Frame {
    bool soft = false;
    int loop_depth = 0;
  };
  class FrameScope {
   public:
    FrameScope(Parser& p, Frame f) : p_(p), saved_(p.frame_) { p_.frame_ = f; }
    ~FrameScope() { p_.frame_ = saved_; }
    FrameScope(const FrameScope&) = delete;
    FrameScope& operator=(const FrameScope&) = delete;

   private:
    Parser& p_;
    Frame saved_;
  };

  // ---- statements ----

  // Parses until a {% name %} with name in `ends` (consumed, with its name stored in *which)
  // or, with no ends, until the end of the template.
  Body parse_body(std::initializer_list<std::string_view> ends, std::string* which) {
    Body body;
    while (true) {
      const Token& t = cur();
      switch (t.type) {
        case TokenType::Text:
          body.push_back(std::make_unique<TextStmt>(t.pos, t.text));
          next();
          break;
        case TokenType::VarBegin: {
          next();
          ExprPtr e = parse_tuple(true, {}, false);
          if (cur().type != TokenType::VarEnd)
            fail(cur(), "expected end of print statement, got " + describe(cur()));
          next();
          body.push_back(std::make_unique<OutputStmt>(t.pos, std::move(e)));
          break;
        }
        case TokenType::BlockBegin: {
          const Token& name = peek();
          if (name.type == TokenType::Name) {
            for (std::string_view end : ends) {
              if (name.text == end) {
                next();
                next();
                if (which) *which = std::string(end);
                return body;
              }
            }
          }
          next();
          body.push_back(parse_statement(t));
          break;
        }
        case TokenType::End:
          if (ends.size() != 0) {
            std::string expected;
            for (std::string_view e : ends)
              expected += (expected.empty() ? "'" : " or '") + std::string(e) + "'";
            fail(t, "unexpected end of template, expected " + expected);
          }
          return body;
        default:
          fail(t, "unexpected " + describe(t));
      }
    }
  }

  StmtPtr parse_statement(const Token& begin) {
    Nest nest(*this, begin);
    const Token& tag = cur();
    if (tag.type != TokenType::Name) fail(tag, "tag name expected");
    std::string name = tag.text;
    next();
    if (name == "for") return parse_for(tag);
    if (name == "if") return parse_if(tag);
    if (name == "set") return parse_set(tag);
    if (name == "macro") return parse_macro(tag);
    if (name == "call") return parse_call_block(tag);
    if (name == "filter") return parse_filter_block(tag);
    if (name == "with") return parse_with(tag);
    if (name == "generation") {
      auto s = std::make_unique<ScopeStmt>(tag.pos);
      expect_block_end();
      FrameScope frame(*this, Frame{});
      s->body = parse_body({"endgeneration"}, nullptr);
      expect_block_end();
      return s;
    }
    if (name == "break" || name == "continue") {
      if (frame_.loop_depth == 0) fail(tag, "'" + name + "' outside of a loop");
      expect_block_end();
      return std::make_unique<LoopControlStmt>(
          name == "break" ? StmtKind::Break : StmtKind::Continue, tag.pos);
    }
    if (name == "include" || name == "import" || name == "from" || name == "extends")
      fail(tag, "tag '" + name + "' is not supported: templates cannot load other templates");
    if (name == "block" || name == "autoescape" || name == "do")
      fail(tag, "tag '" + name + "' is not supported in chat templates");
    fail(tag, "unknown tag '" + name + "'");
  }

  StmtPtr parse_for(const Token& tag) {
    auto s = std::make_unique<ForStmt>(tag.pos);
    s->target = parse_target(false);
    if (!skip_name("in")) fail(cur(), "expected 'in', got " + describe(cur()));
    s->iterable = parse_tuple(false, {"recursive"}, false);
    {
      FrameScope frame(*this, Frame{false, frame_.loop_depth + 1});
      if (skip_name("if")) s->filter = parse_expression(true);
    }
    s->recursive = skip_name("recursive");
    expect_block_end();
    std::string end;
    {
      FrameScope frame(*this, Frame{false, frame_.loop_depth + 1});
      s->body = parse_body({"endfor", "else"}, &end);
    }
    if (end == "else") {
      expect_block_end();
      FrameScope frame(*this, Frame{false, frame_.loop_depth});
      s->else_body = parse_body({"endfor"}, nullptr);
    }
    expect_block_end();
    return s;
  }

  StmtPtr parse_if(const Token& tag) {
    auto s = std::make_unique<IfStmt>(tag.pos);
    FrameScope frame(*this, Frame{true, frame_.loop_depth});
    std::string end = "elif";
    while (end == "elif") {
      ExprPtr test = parse_tuple(false, {}, false);
      expect_block_end();
      Body body = parse_body({"elif", "else", "endif"}, &end);
      s->branches.emplace_back(std::move(test), std::move(body));
    }
    if (end == "else") {
      expect_block_end();
      s->else_body = parse_body({"endif"}, nullptr);
    }
    expect_block_end();
    return s;
  }

  StmtPtr parse_set(const Token& tag) {
    Target target = parse_target(true);
    if (skip_op("=")) {
      auto s = std::make_unique<SetStmt>(tag.pos);
      s->target = std::move(target);
      s->value = parse_tuple(true, {}, false);
      expect_block_end();
      return s;
    }
    if (target.kind == Target::Kind::Tuple) fail(tag, "a block set needs a single name");
    auto s = std::make_unique<SetBlockStmt>(tag.pos);
    s->target = std::move(target);
    if (is_op("|")) s->filter = parse_filter(nullptr, false);
    expect_block_end();
    FrameScope frame(*this, Frame{false, frame_.loop_depth});
    s->body = parse_body({"endset"}, nullptr);
    expect_block_end();
    return s;
  }

  void parse_signature(MacroDef& def) {
    expect_op("(");
    bool seen_default = false;
    while (!is_op(")")) {
      if (!def.params.empty()) expect_op(",");
      if (is_op(")")) break;
      const Token& name = expect_name();
      MacroParam param{name.text, nullptr};
      if (skip_op("=")) {
        param.default_value = parse_expression(true);
        seen_default = true;
      } else if (seen_default) {
        fail(name, "non-default argument follows default argument");
      }
      def.params.push_back(std::move(param));
    }
    next();
  }

  void parse_macro_body(MacroDef& def, std::string_view end) {
    FrameScope frame(*this, Frame{});
    open_macros_.push_back(&def);
    def.body = parse_body({end}, nullptr);
    open_macros_.pop_back();
    expect_block_end();
  }

  StmtPtr parse_macro(const Token& tag) {
    auto s = std::make_unique<MacroStmt>(tag.pos);
    s->def.name = expect_name().text;
    parse_signature(s->def);
    expect_block_end();
    parse_macro_body(s->def, "endmacro");
    return s;
  }

  StmtPtr parse_call_block(const Token& tag) {
    auto s = std::make_unique<CallBlockStmt>(tag.pos);
    s->caller.name = "caller";
    if (is_op("(")) parse_signature(s->caller);
    ExprPtr call = parse_expression(true);
    if (call->kind != ExprKind::Call) fail(tag, "expected a call after 'call'");
    s->call.reset(static_cast<CallExpr*>(call.release()));
    expect_block_end();
    parse_macro_body(s->caller, "endcall");
    return s;
  }

  StmtPtr parse_filter_block(const Token& tag) {
    auto s = std::make_unique<FilterBlockStmt>(tag.pos);
    s->filter = parse_filter(nullptr, true);
    expect_block_end();
    FrameScope frame(*this, Frame{false, frame_.loop_depth});
    s->body = parse_body({"endfilter"}, nullptr);
    expect_block_end();
    return s;
  }

  StmtPtr parse_with(const Token& tag) {
    auto s = std::make_unique<WithStmt>(tag.pos);
    while (cur().type != TokenType::BlockEnd) {
      if (!s->assignments.empty()) expect_op(",");
      Target t = parse_target(false);
      expect_op("=");
      s->assignments.emplace_back(std::move(t), parse_expression(true));
    }
    next();
    FrameScope frame(*this, Frame{false, frame_.loop_depth});
    s->body = parse_body({"endwith"}, nullptr);
    expect_block_end();
    return s;
  }

  // ---- assignment targets ----

  Target parse_target(bool allow_namespace) {
    if (allow_namespace && cur().type == TokenType::Name && peek().type == TokenType::Operator &&
        peek().text == ".") {
      Target t;
      t.kind = Target::Kind::Attribute;
      t.pos = cur().pos;
      t.name = next().text;
      next();
      t.attribute = expect_name().text;
      return t;
    }
    Target first = parse_target_primary();
    if (!is_op(",")) return first;
    Target tuple;
    tuple.kind = Target::Kind::Tuple;
    tuple.pos = first.pos;
    tuple.items.push_back(std::move(first));
    while (skip_op(",")) {
      if (cur().type != TokenType::Name && !is_op("(")) break;
      tuple.items.push_back(parse_target_primary());
    }
    return tuple;
  }

  Target parse_target_primary() {
    const Token& t = cur();
    if (t.type == TokenType::Name) {
      static constexpr std::string_view constants[] = {"true",  "false", "True",
                                                       "False", "none",  "None"};
      for (std::string_view c : constants)
        if (t.text == c) fail(t, "cannot assign to '" + t.text + "'");
      next();
      Target target;
      target.pos = t.pos;
      target.name = t.text;
      return target;
    }
    if (skip_op("(")) {
      Target target;
      target.kind = Target::Kind::Tuple;
      target.pos = t.pos;
      while (!is_op(")")) {
        if (!target.items.empty()) expect_op(",");
        if (is_op(")")) break;
        target.items.push_back(parse_target_primary());
      }
      next();
      if (target.items.size() == 1 && !target.items[0].items.empty()) return target;
      return target;
    }
    fail(t, "cannot assign to " + describe(t));
  }

  // ---- expressions (jinja2's precedence, lowest first) ----

  bool tuple_end(std::initializer_list<std::string_view> extra_ends) const {
    const Token& t = cur();
    if (t.type == TokenType::VarEnd || t.type == TokenType::BlockEnd || t.type == TokenType::End)
      return true;
    if (t.type == TokenType::Operator && t.text == ")") return true;
    if (t.type == TokenType::Name)
      for (std::string_view e : extra_ends)
        if (t.text == e) return true;
    return false;
  }

  ExprPtr parse_tuple(bool with_condexpr, std::initializer_list<std::string_view> extra_ends,
                      bool explicit_parens) {
    Pos start = cur().pos;
    std::vector<ExprPtr> items;
    bool is_tuple = false;
    while (true) {
      if (!items.empty()) expect_op(",");
      if (tuple_end(extra_ends)) break;
      items.push_back(with_condexpr ? parse_expression(true) : parse_or());
      if (is_op(",")) {
        is_tuple = true;
      } else {
        break;
      }
    }
    if (!is_tuple) {
      if (!items.empty()) return std::move(items[0]);
      if (!explicit_parens) fail(cur(), "expected an expression, got " + describe(cur()));
    }
    auto t = std::make_unique<ItemsExpr>(ExprKind::Tuple, start);
    t->items = std::move(items);
    return t;
  }

  ExprPtr parse_expression(bool with_condexpr) {
    Nest nest(*this, cur());
    if (!with_condexpr) return parse_or();
    ExprPtr expr = parse_or();
    while (is_name("if")) {
      Pos pos = next().pos;
      FrameScope frame(*this, Frame{true, frame_.loop_depth});
      auto cond = std::make_unique<ConditionalExpr>(pos);
      cond->then_expr = std::move(expr);
      cond->test = parse_or();
      if (skip_name("else")) cond->else_expr = parse_expression(true);
      expr = std::move(cond);
    }
    return expr;
  }

  ExprPtr parse_or() {
    ExprPtr left = parse_and();
    while (is_name("or")) {
      Pos pos = next().pos;
      left = std::make_unique<BinaryExpr>(pos, BinaryOp::Or, std::move(left), parse_and());
    }
    return left;
  }

  ExprPtr parse_and() {
    ExprPtr left = parse_not();
    while (is_name("and")) {
      Pos pos = next().pos;
      left = std::make_unique<BinaryExpr>(pos, BinaryOp::And, std::move(left), parse_not());
    }
    return left;
  }

  ExprPtr parse_not() {
    if (is_name("not")) {
      Nest nest(*this, cur());
      Pos pos = next().pos;
      return std::make_unique<UnaryExpr>(pos, UnaryOp::Not, parse_not());
    }
    return parse_compare();
  }

  ExprPtr parse_compare() {
    Pos start = cur().pos;
    ExprPtr left = parse_math1();
    std::unique_ptr<CompareExpr> cmp;
    while (true) {
      CompareOp op;
      if (cur().type == TokenType::Operator &&
          (cur().text == "==" || cur().text == "!=" || cur().text == "<" || cur().text == "<=" ||
           cur().text == ">" || cur().text == ">=")) {
        const std::string& t = cur().text;
        op = t == "=="   ? CompareOp::Eq
             : t == "!=" ? CompareOp::Ne
             : t == "<"  ? CompareOp::Lt
             : t == "<=" ? CompareOp::Le
             : t == ">"  ? CompareOp::Gt
                         : CompareOp::Ge;
        next();
      } else if (is_name("in")) {
        op = CompareOp::In;
        next();
      } else if (is_name("not") && peek().type == TokenType::Name && peek().text == "in") {
        op = CompareOp::NotIn;
        next();
        next();
      } else {
        break;
      }
      if (!cmp) cmp = std::make_unique<CompareExpr>(start, std::move(left));
      cmp->rest.emplace_back(op, parse_math1());
    }
    if (cmp) return cmp;
    return left;
  }

  ExprPtr parse_math1() {
    ExprPtr left = parse_concat();
    while (is_op("+") || is_op("-")) {
      const Token& t = next();
      BinaryOp op = t.text == "+" ? BinaryOp::Add : BinaryOp::Sub;
      left = std::make_unique<BinaryExpr>(t.pos, op, std::move(left), parse_concat());
    }
    return left;
  }

  ExprPtr parse_concat() {
    ExprPtr left = parse_math2();
    while (is_op("~")) {
      Pos pos = next().pos;
      left = std::make_unique<BinaryExpr>(pos, BinaryOp::Concat, std::move(left), parse_math2());
    }
    return left;
  }

  ExprPtr parse_math2() {
    ExprPtr left = parse_pow();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      const Token& t = next();
      BinaryOp op = t.text == "*"    ? BinaryOp::Mul
                    : t.text == "/"  ? BinaryOp::Div
                    : t.text == "//" ? BinaryOp::FloorDiv
                                     : BinaryOp::Mod;
      left = std::make_unique<BinaryExpr>(t.pos, op, std::move(left), parse_pow());
    }
    return left;
  }

  // Jinja's ** is left-associative: 2 ** 3 ** 2 == 64.
  ExprPtr parse_pow() {
    ExprPtr left = parse_unary(true);
    while (is_op("**")) {
      Pos pos = next().pos;
      left = std::make_unique<BinaryExpr>(pos, BinaryOp::Pow, std::move(left), parse_unary(true));
    }
    return left;
  }

  // -x binds looser than postfix operators but its filters apply to the negated value:
  // -1|abs == 1, as in jinja2.
  ExprPtr parse_unary(bool with_filter) {
    Nest nest(*this, cur());
    ExprPtr node;
    if (is_op("-") || is_op("+")) {
      const Token& t = next();
      node = std::make_unique<UnaryExpr>(t.pos, t.text == "-" ? UnaryOp::Neg : UnaryOp::Pos,
                                         parse_unary(false));
    } else {
      node = parse_primary();
    }
    node = parse_postfix(std::move(node));
    if (with_filter) node = parse_filter_expr(std::move(node));
    return node;
  }

  ExprPtr parse_primary() {
    const Token& t = cur();
    switch (t.type) {
      case TokenType::Name: {
        next();
        if (t.text == "true" || t.text == "True") return literal(t.pos, Value(true));
        if (t.text == "false" || t.text == "False") return literal(t.pos, Value(false));
        if (t.text == "none" || t.text == "None") return literal(t.pos, Value::none());
        for (MacroDef* m : open_macros_) {
          if (t.text == "caller") m->uses_caller = true;
          if (t.text == "varargs") m->uses_varargs = true;
          if (t.text == "kwargs") m->uses_kwargs = true;
        }
        return std::make_unique<NameExpr>(t.pos, t.text);
      }
      case TokenType::String: {
        std::string s = next().text;
        while (cur().type == TokenType::String) s += next().text;  // "a" "b" == "ab"
        return literal(t.pos, Value(std::move(s)));
      }
      case TokenType::Integer:
        next();
        return literal(t.pos, Value(t.int_value));
      case TokenType::Float:
        next();
        return literal(t.pos, Value(t.float_value));
      case TokenType::Operator:
        if (t.text == "(") {
          next();
          ExprPtr e = parse_tuple(true, {}, true);
          expect_op(")");
          return e;
        }
        if (t.text == "[") return parse_list();
        if (t.text == "{") return parse_dict();
        break;
      default:
        break;
    }
    fail(t, "unexpected " + describe(t));
  }

  static ExprPtr literal(Pos p, Value v) { return std::make_unique<LiteralExpr>(p, std::move(v)); }

  ExprPtr parse_list() {
    auto list = std::make_unique<ItemsExpr>(ExprKind::List, next().pos);
    while (!is_op("]")) {
      if (!list->items.empty()) expect_op(",");
      if (is_op("]")) break;
      list->items.push_back(parse_expression(true));
    }
    next();
    return list;
  }

  ExprPtr parse_dict() {
    auto dict = std::make_unique<DictExpr>(next().pos);
    while (!is_op("}")) {
      if (!dict->items.empty()) expect_op(",");
      if (is_op("}")) break;
      ExprPtr key = parse_expression(true);
      expect_op(":");
      dict->items.emplace_back(std::move(key), parse_expression(true));
    }
    next();
    return dict;
  }

  ExprPtr parse_postfix(ExprPtr node) {
    while (true) {
      if (is_op(".") || is_op("[")) {
        node = parse_subscript(std::move(node));
      } else if (is_op("(")) {
        node = parse_call(std::move(node));
      } else {
        return node;
      }
    }
  }

  ExprPtr parse_filter_expr(ExprPtr node) {
    while (true) {
      if (is_op("|")) {
        node = parse_filter(std::move(node), false);
      } else if (is_name("is")) {
        node = parse_test(std::move(node));
      } else if (is_op("(")) {
        node = parse_call(std::move(node));
      } else {
        return node;
      }
    }
  }

  ExprPtr parse_subscript(ExprPtr node) {
    const Token& t = next();
    if (t.text == ".") {
      const Token& attr = cur();
      if (attr.type == TokenType::Name) {
        next();
        return std::make_unique<GetAttrExpr>(t.pos, std::move(node), attr.text);
      }
      if (attr.type == TokenType::Integer) {
        next();
        return std::make_unique<GetItemExpr>(t.pos, std::move(node),
                                             literal(attr.pos, Value(attr.int_value)));
      }
      fail(attr, "expected name or number after '.'");
    }
    // '[': an index or a slice (tuples of subscripts are not supported).
    ExprPtr start, stop, step;
    bool slice = false;
    if (!is_op(":")) start = parse_expression(true);
    if (skip_op(":")) {
      slice = true;
      if (!is_op(":") && !is_op("]")) stop = parse_expression(true);
      if (skip_op(":") && !is_op("]")) step = parse_expression(true);
    }
    if (is_op(",")) fail(cur(), "multiple subscripts are not supported");
    expect_op("]");
    if (!slice) return std::make_unique<GetItemExpr>(t.pos, std::move(node), std::move(start));
    auto s = std::make_unique<SliceExpr>(t.pos, std::move(node));
    s->start = std::move(start);
    s->stop = std::move(stop);
    s->step = std::move(step);
    return s;
  }

  void parse_args(ArgList& args) {
    expect_op("(");
    bool first = true;
    while (!is_op(")")) {
      if (!first) {
        expect_op(",");
        if (is_op(")")) break;
      }
      first = false;
      if (skip_op("*")) {
        args.star = parse_expression(true);
      } else if (skip_op("**")) {
        args.double_star = parse_expression(true);
      } else if (cur().type == TokenType::Name && peek().type == TokenType::Operator &&
                 peek().text == "=") {
        if (args.double_star) fail(cur(), "invalid syntax for function call expression");
        std::string key = next().text;
        next();
        args.named.emplace_back(std::move(key), parse_expression(true));
      } else {
        if (!args.named.empty() || args.star || args.double_star)
          fail(cur(), "positional argument follows keyword argument");
        args.positional.push_back(parse_expression(true));
      }
    }
    next();
  }

  ExprPtr parse_call(ExprPtr callee) {
    auto call = std::make_unique<CallExpr>(cur().pos, std::move(callee));
    parse_args(call->args);
    return call;
  }

  std::string dotted_name() {
    std::string name = expect_name().text;
    while (is_op(".")) {
      next();
      name += "." + expect_name().text;
    }
    return name;
  }

  // `| name(args) | ...`; with start_inline the first filter has no leading '|'.
  ExprPtr parse_filter(ExprPtr node, bool start_inline) {
    while (is_op("|") || start_inline) {
      if (!start_inline) next();
      start_inline = false;
      const Token& t = cur();
      std::string name = dotted_name();
      if (!frame_.soft && !has_filter(name)) fail(t, "no filter named '" + name + "'");
      auto f = std::make_unique<FilterExpr>(t.pos, std::move(node), std::move(name));
      if (is_op("(")) parse_args(f->args);
      node = std::move(f);
    }
    return node;
  }

  ExprPtr parse_test(ExprPtr node) {
    const Token& is = next();
    bool negated = skip_name("not");
    const Token& t = cur();
    std::string name = dotted_name();
    if (!frame_.soft && !has_test(name)) fail(t, "no test named '" + name + "'");
    auto test = std::make_unique<TestExpr>(t.pos, std::move(node), std::move(name));
    if (is_op("(")) {
      parse_args(test->args);
    } else if ((cur().type == TokenType::Name || cur().type == TokenType::String ||
                cur().type == TokenType::Integer || cur().type == TokenType::Float || is_op("(") ||
                is_op("[") || is_op("{")) &&
               !is_name("else") && !is_name("or") && !is_name("and")) {
      if (is_name("is")) fail(cur(), "cannot chain multiple tests with 'is'");
      // `x is divisibleby 3`: one argument without parentheses.
      test->args.positional.push_back(parse_postfix(parse_primary()));
    }
    if (negated) return std::make_unique<UnaryExpr>(is.pos, UnaryOp::Not, std::move(test));
    return test;
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  ParseLimits limits_;
  uint32_t depth_ = 0;
  Frame frame_;
  std::vector<MacroDef*> open_macros_;
};

}  // namespace

Body parse_template(std::string_view source, const ParseLimits& limits) {
  return Parser(tokenize(source), limits).parse();
}

}  // namespace zen::tmpl
