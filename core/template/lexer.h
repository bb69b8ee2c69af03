// Splits a template into text and tag tokens exactly as jinja2's lexer does with
// trim_blocks=True and lstrip_blocks=True (the way transformers configures it): newline
// normalization, the single trailing newline dropped, `-`/`+` whitespace control, comments,
// {% raw %} blocks, and the tokens of expressions inside {{ }} and {% %}.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zen::tmpl {

struct Pos {
  uint32_t line = 1;
  uint32_t column = 1;
};

enum class TokenType : uint8_t {
  Text,        // literal template text (after whitespace control)
  VarBegin,    // {{
  VarEnd,      // }}
  BlockBegin,  // {%
  BlockEnd,    // %}
  Name,
  String,    // text holds the decoded value
  Integer,   // int_value
  Float,     // float_value
  Operator,  // text holds the operator: + - * / // % ** ~ == != < <= > >= = . : | , ( ) [ ] { }
  End,       // end of template
};

struct Token {
  TokenType type;
  Pos pos;
  std::string text;
  int64_t int_value = 0;
  double float_value = 0;
};

// Throws Error(Syntax) with the position of the offending character.
std::vector<Token> tokenize(std::string_view source);

}  // namespace zen::tmpl
