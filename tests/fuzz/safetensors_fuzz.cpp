// libFuzzer target: any byte string must either parse as a safetensors file or be refused
// with zen::safetensors::Error. Anything else -- a crash, a sanitizer report, another
// exception type, a huge allocation -- is a bug.
#include <cstddef>
#include <cstdint>
#include <span>

#include "safetensors/file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const zen::safetensors::File f =
        zen::safetensors::File::parse(std::span<const uint8_t>(data, size), "fuzz");
    // Touch what a caller would: every tensor's first and last byte, inside the input.
    volatile uint8_t sink = 0;
    for (const auto& t : f.tensors())
      if (!t.data.empty()) sink = sink + t.data.front() + t.data.back();
  } catch (const zen::safetensors::Error&) {
  }
  return 0;
}
