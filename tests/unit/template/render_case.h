// Helpers shared by the template tests: render a source with a JSON context, and check for an
// Error of a given kind whose message contains a given text.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "template/template.h"

namespace zen::tmpl::test {

struct RenderCase {
  const char* source;
  const char* context;  // JSON object
  const char* expected;
};

inline std::string render(std::string_view source, std::string_view context = "{}",
                          const Limits& limits = {}, const RenderOptions& options = {}) {
  return Template::parse(source, limits).render(Json::parse(context), options);
}

inline void expect_renders(const RenderCase& c) {
  SCOPED_TRACE(c.source);
  try {
    EXPECT_EQ(render(c.source, c.context), c.expected);
  } catch (const Error& e) {
    ADD_FAILURE() << "threw: " << e.what();
  }
}

// Runs `fn`, which must throw an Error of `kind` whose what() contains `needle`.
template <typename Fn>
void expect_error(Fn&& fn, ErrorKind kind, std::string_view needle) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one containing: " << needle;
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message: " << e.what() << "\nexpected to contain: " << needle;
  }
}

inline void expect_render_error(std::string_view source, std::string_view context, ErrorKind kind,
                                std::string_view needle, const Limits& limits = {}) {
  SCOPED_TRACE(source);
  expect_error([&] { render(source, context, limits); }, kind, needle);
}

}  // namespace zen::tmpl::test
