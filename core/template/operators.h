// Python's arithmetic, concatenation, comparison and membership on template values, with
// Python's int/float rules (/ is true division, // and % floor toward negative infinity) and
// its error wording. Integers are 64-bit: overflow is an error instead of a big integer.
#pragma once

#include "ast.h"
#include "budget.h"
#include "value.h"

namespace zen::tmpl {

// Arithmetic and ~ (And/Or short-circuit in the interpreter).
Value binary_op(Budget& budget, BinaryOp op, const Value& a, const Value& b);
Value unary_op(UnaryOp op, const Value& v);
bool compare_op(CompareOp op, const Value& a, const Value& b);
// Python `item in container`; consumes a generator up to the match.
bool contains(const Value& container, const Value& item);
// Python repetition: "ab" * 3, [1] * 2.
Value repeat(Budget& budget, const Value& seq, int64_t count);

}  // namespace zen::tmpl
