// libFuzzer target: any byte string as a tokenizer.json must either convert to GGUF tokenizer
// metadata or be refused with zen::tokenizer::Error. Anything else -- a crash, a sanitizer
// report, another exception type, unbounded recursion on deep nesting -- is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tokenizer/error.h"
#include "tokenizer/hf_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto kv = zen::tokenizer::gguf_metadata_from_tokenizer_json(
        std::string(reinterpret_cast<const char*>(data), size));
    volatile size_t sink = kv.size();
    (void)sink;
  } catch (const zen::tokenizer::Error&) {
  }
  return 0;
}
