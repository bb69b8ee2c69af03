// libFuzzer target: any byte string must either parse (and describe) or be refused with
// zen::gguf::Error. Anything else -- a crash, a sanitizer report, another exception type, a
// huge allocation -- is a bug.
#include <cstddef>
#include <cstdint>
#include <span>

#include "gguf/gguf.h"
#include "gguf/gguf_describe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    zen::gguf::File f = zen::gguf::File::parse(std::span<const uint8_t>(data, size));
    // Touch what a caller would: the description (serialized: dump() must not throw on any
    // string) and every tensor's first and last byte, which must lie inside the input.
    (void)zen::gguf::describe_json(f).dump();
    volatile uint8_t sink = 0;
    for (const auto& t : f.tensors()) sink = sink + t.data[0] + t.data[t.n_bytes - 1];
  } catch (const zen::gguf::Error&) {
  }
  return 0;
}
