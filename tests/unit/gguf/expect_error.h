// Asserts that parsing fails with zen::gguf::Error whose one-line message contains every
// telling phrase, so a file refused for the wrong reason fails the test.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "gguf/gguf.h"
#include "gguf_writer.h"

namespace zen::gguf::test {

inline ::testing::AssertionResult refused(const Bytes& bytes,
                                          std::initializer_list<std::string_view> words,
                                          const Limits& limits = {}) {
  try {
    File::parse(bytes, limits);
  } catch (const Error& e) {
    std::string msg = e.what();
    if (msg.find('\n') != std::string::npos) {
      return ::testing::AssertionFailure() << "message is not one line: " << msg;
    }
    for (auto w : words) {
      if (msg.find(w) == std::string::npos) {
        return ::testing::AssertionFailure() << "message lacks '" << w << "': " << msg;
      }
    }
    return ::testing::AssertionSuccess() << msg;
  }
  return ::testing::AssertionFailure() << "file was accepted";
}

}  // namespace zen::gguf::test
