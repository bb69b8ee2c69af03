// Templates that cannot render fail with an Error naming the kind of problem and where it is
// (line:column), never a silent fallback: syntax, unknown filters and tests, misuse of undefined
// values, type errors, the sandbox's refusals, raise_exception, and every limit.
#include <gtest/gtest.h>

#include "render_case.h"

namespace zen::tmpl::test {
namespace {

Error error_of(std::string_view source, std::string_view context = "{}",
               const Limits& limits = {}) {
  try {
    render(source, context, limits);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "rendered without error: " << source;
  return Error(ErrorKind::Render, "", 0, 0);
}

TEST(TemplateErrors, SyntaxErrorsSayWhere) {
  Error e = error_of("line one\n{% if x %}\n  {{ 1 + }}\n{% endif %}");
  EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::Syntax));
  EXPECT_EQ(e.line(), 3u);
  EXPECT_EQ(e.column(), 10u);
  EXPECT_STREQ(e.what(), "template:3:10: syntax error: unexpected end of print statement");

  struct Case {
    const char* source;
    const char* message;
  } cases[] = {
      {"{% if x %}never closed",
       "unexpected end of template, expected 'elif' or 'else' or 'endif'"},
      {"{% endfor %}", "unknown tag 'endfor'"},
      {"{% for x in %}{% endfor %}", "expected an expression"},
      {"{{ 'open }}", "unterminated string literal"},
      {"{# open", "missing end of comment tag"},
      {"{{ (1 }}", "unexpected '}', expected ')'"},
      {"{{ x", "tag opened here has no '}}'"},
      {"{{ 1 @ 2 }}", "unexpected character '@'"},
      {"{% set true = 1 %}", "cannot assign to 'true'"},
      {"{% break %}", "'break' outside of a loop"},
      {"{% include 'other.jinja' %}", "templates cannot load other templates"},
      {"{% macro m(a=1, b) %}{% endmacro %}", "non-default argument follows default argument"},
      {"{{ 99999999999999999999 }}", "too large"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.source);
    expect_error([&] { Template::parse(c.source); }, ErrorKind::Syntax, c.message);
  }
}

TEST(TemplateErrors, UnknownFilterOrTestIsAParseErrorOutsideIf) {
  Error e = error_of("ok\n{{ x | nope }}");
  EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::Syntax));
  EXPECT_EQ(e.line(), 2u);
  EXPECT_EQ(e.column(), 8u);
  EXPECT_NE(std::string(e.what()).find("no filter named 'nope'"), std::string::npos);
  expect_render_error("{{ x is nope }}", "{}", ErrorKind::Syntax, "no test named 'nope'");
  // Inside an if branch jinja2 only fails when the filter actually runs.
  EXPECT_EQ(render("{% if x %}{{ x | nope }}{% endif %}ok", R"({"x": false})"), "ok");
  expect_render_error("{% if x %}{{ x | nope }}{% endif %}", R"({"x": true})", ErrorKind::Render,
                      "no filter named 'nope'");
  // A filter jinja2 has but this engine does not implement is a clear render error.
  expect_render_error("{{ 'a b'|wordwrap(1) }}", "{}", ErrorKind::Render,
                      "filter 'wordwrap' is not supported");
}

TEST(TemplateErrors, RaiseExceptionMessageIsSurfaced) {
  Error e =
      error_of("{% if messages|length == 0 %}{{ raise_exception('No messages!') }}{% endif %}",
               R"({"messages": []})");
  EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::Raised));
  EXPECT_EQ(e.detail(), "No messages!");
  EXPECT_EQ(e.line(), 1u);
  EXPECT_STREQ(e.what(), "template:1:48: raise_exception: No messages!");
}

TEST(TemplateErrors, UndefinedValuesFailWhenUsedNotWhenPrinted) {
  EXPECT_EQ(render("[{{ missing }}][{{ d.nope }}][{{ l[3] }}]", R"({"d": {}, "l": []})"), "[][][]");
  expect_render_error("{{ missing.attr }}", "{}", ErrorKind::Render, "'missing' is undefined");
  expect_render_error("{{ d.nope.deeper }}", R"({"d": {}})", ErrorKind::Render,
                      "'dict object' has no attribute 'nope'");
  expect_render_error("{{ l[3].x }}", R"({"l": [1]})", ErrorKind::Render,
                      "list object has no element 3");
  expect_render_error("{{ missing + 1 }}", "{}", ErrorKind::Render, "'missing' is undefined");
  expect_render_error("{{ missing() }}", "{}", ErrorKind::Render, "'missing' is undefined");
  expect_render_error("{{ missing|tojson }}", "{}", ErrorKind::Render,
                      "Object of type Undefined is not JSON serializable");
}

TEST(TemplateErrors, TypeErrorsUsePythonsWording) {
  expect_render_error("{{ 'a' + 1 }}", "{}", ErrorKind::Render,
                      "can only concatenate str (not \"int\") to str");
  expect_render_error("{{ 1 < 'a' }}", "{}", ErrorKind::Render,
                      "'<' not supported between instances of 'int' and 'str'");
  expect_render_error("{{ 1 // 0 }}", "{}", ErrorKind::Render,
                      "integer division or modulo by zero");
  expect_render_error("{{ 1 in 'abc' }}", "{}", ErrorKind::Render,
                      "'in <string>' requires string as left operand, not int");
  expect_render_error("{{ [1]|length > x|length }}", R"({"x": 5})", ErrorKind::Render,
                      "object of type 'int' has no len()");
  expect_render_error("{{ ([1]|select)|length }}", "{}", ErrorKind::Render,
                      "object of type 'generator' has no len()");
  expect_render_error("{% for a, b in [[1, 2, 3]] %}{% endfor %}", "{}", ErrorKind::Render,
                      "too many values to unpack (expected 2)");
  expect_render_error("{% macro m(a) %}{% endmacro %}{{ m(1, 2) }}", "{}", ErrorKind::Render,
                      "macro 'm' takes not more than 1 argument(s)");
  expect_render_error("{{ 2 ** 64 }}", "{}", ErrorKind::Render, "does not fit in 64 bits");
}

TEST(TemplateErrors, TheSandboxRefusesMutationAndPrivateAttributes) {
  expect_render_error("{% set l = [] %}{{ l.append(1) }}", "{}", ErrorKind::Render,
                      "access to attribute 'append' of 'list' object is unsafe.");
  expect_render_error("{{ d.update({'a': 1}) }}", R"({"d": {}})", ErrorKind::Render,
                      "access to attribute 'update' of 'dict' object is unsafe.");
  expect_render_error("{{ ''.__class__() }}", "{}", ErrorKind::Render,
                      "access to attribute '__class__' of 'str' object is unsafe.");
  expect_render_error("{% set ns = namespace() %}{% set ns._secret = 1 %}", "{}", ErrorKind::Render,
                      "underscore-prefixed attributes");
  expect_render_error("{% set s = 'x' %}{% set s.attr = 1 %}", "{}", ErrorKind::Render,
                      "cannot assign attribute on non-namespace object");
  expect_render_error("{{ range(100001)|length }}", "{}", ErrorKind::Render,
                      "The sandbox blocks ranges larger than MAX_RANGE (100000).");
}

TEST(TemplateLimits, UnboundedRecursionStops) {
  expect_render_error("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "{}",
                      ErrorKind::Limit, "macro calls nested deeper than 64");
  expect_render_error("{% for x in [[1]] recursive %}{{ loop([x]) }}{% endfor %}", "{}",
                      ErrorKind::Limit, "nested deeper than 64");
}

TEST(TemplateLimits, HugeLoopsRunOutOfSteps) {
  Limits small;
  small.max_steps = 200000;
  expect_render_error(
      "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "{}",
      ErrorKind::Limit, "evaluation steps", small);
  // The default budget stops the same loop too.
  expect_render_error(
      "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "{}",
      ErrorKind::Limit, "evaluation steps");
}

TEST(TemplateLimits, OutputAndValueSizesAreCapped) {
  Limits small;
  small.max_output_bytes = 1 << 20;
  expect_render_error("{% for i in range(100000) %}{{ 'x' * 100 }}{% endfor %}", "{}",
                      ErrorKind::Limit, "output exceeds the 1048576-byte limit", small);
  expect_render_error("{{ 'x' * 100000000000 }}", "{}", ErrorKind::Limit, "byte limit");
  expect_render_error("{{ ([1] * 100000000)|length }}", "{}", ErrorKind::Limit, "item limit");
  expect_render_error("{{ 'a'.center(10000000000) }}", "{}", ErrorKind::Limit, "byte limit");
}

TEST(TemplateLimits, TemplateSizeAndNestingAreCapped) {
  Limits tiny;
  tiny.max_template_bytes = 16;
  expect_error([&] { Template::parse("{{ 'longer than sixteen' }}", tiny); }, ErrorKind::Limit,
               "exceeds the 16-byte limit");
  std::string deep_expr = "{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}";
  expect_error([&] { Template::parse(deep_expr); }, ErrorKind::Limit, "nests deeper than 128");
  std::string deep_blocks;
  for (int i = 0; i < 5000; ++i) deep_blocks += "{% if true %}";
  expect_error([&] { Template::parse(deep_blocks); }, ErrorKind::Limit, "nests deeper than 128");
  std::string negations = "{{ " + std::string(20000, '-') + "1 }}";
  expect_error([&] { Template::parse(negations); }, ErrorKind::Limit, "nests deeper than 128");
}

TEST(TemplateLimits, StackBudgetStopsDeepRecursion) {
  RenderOptions options;
  options.max_stack_bytes = 16 * 1024;
  expect_error(
      [&] {
        render("{% macro f(n) %}{% if n %}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(60) }}", "{}",
               Limits{}, options);
      },
      ErrorKind::Limit, "template recursion too deep");
}

}  // namespace
}  // namespace zen::tmpl::test
