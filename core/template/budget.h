// The sandbox's resource accounting for one render: evaluation steps, the size of any string
// or list a template builds, and nesting of calls. Exceeding any of them is an Error(Limit)
// at the point of the template that asked for too much.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "error.h"
#include "options.h"

namespace zen::tmpl {

class Budget {
 public:
  explicit Budget(const Limits& limits) : limits_(limits) {}

  const Limits& limits() const { return limits_; }

  void tick(uint64_t steps = 1) {
    steps_ += steps;
    if (steps_ > limits_.max_steps)
      throw Failure("template exceeded " + std::to_string(limits_.max_steps) +
                        " evaluation steps (an endless or very large loop?)",
                    ErrorKind::Limit);
  }

  // Charges for building a string of `bytes` and refuses one larger than the output limit.
  void string_of(size_t bytes) {
    if (bytes > limits_.max_output_bytes)
      throw Failure("string of " + std::to_string(bytes) + " bytes exceeds the " +
                        std::to_string(limits_.max_output_bytes) + "-byte limit",
                    ErrorKind::Limit);
    tick(bytes / 64);
  }

  // Charges for building a container of `count` elements and refuses an oversized one.
  void items(size_t count) {
    if (count > limits_.max_items)
      throw Failure("list of " + std::to_string(count) + " items exceeds the " +
                        std::to_string(limits_.max_items) + "-item limit",
                    ErrorKind::Limit);
    tick(count);
  }

  void enter_call() {
    if (++call_depth_ > limits_.max_call_depth)
      throw Failure("macro calls nested deeper than " + std::to_string(limits_.max_call_depth) +
                        " (unbounded recursion?)",
                    ErrorKind::Limit);
  }
  void leave_call() { --call_depth_; }

 private:
  Limits limits_;
  uint64_t steps_ = 0;
  uint32_t call_depth_ = 0;
};

// Balances enter_call/leave_call across exceptions.
class CallGuard {
 public:
  explicit CallGuard(Budget& b) : b_(b) { b_.enter_call(); }
  ~CallGuard() { b_.leave_call(); }
  CallGuard(const CallGuard&) = delete;
  CallGuard& operator=(const CallGuard&) = delete;

 private:
  Budget& b_;
};

}  // namespace zen::tmpl
