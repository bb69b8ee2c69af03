// What a caller can tune: the sandbox limits of a template and the environment of a render.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <optional>

namespace zen::tmpl {

struct Limits {
  // Template source size (bytes) that parse() accepts; real chat templates are < 64 KiB.
  size_t max_template_bytes = size_t{1} << 20;
  // Evaluation steps per render: one per expression, statement and loop iteration, plus one
  // per element or 64 bytes a value copies. Real templates need well under 100k.
  uint64_t max_steps = 5'000'000;
  // Rendered output, and any single string value, in bytes.
  size_t max_output_bytes = size_t{16} << 20;
  // Elements in any single list or dict a template builds.
  size_t max_items = size_t{1} << 20;
  // Nested macro calls (and recursive loop calls).
  uint32_t max_call_depth = 64;
  // Nesting of blocks and expression levels in the source.
  uint32_t max_nesting = 128;
};

struct RenderOptions {
  // The local time strftime_now() reports; the current time when unset.
  std::optional<std::tm> now;
  // Stack the interpreter may use before refusing deeper recursion (the calling thread needs
  // this much plus a margin).
  size_t max_stack_bytes = size_t{1} << 20;
};

}  // namespace zen::tmpl
