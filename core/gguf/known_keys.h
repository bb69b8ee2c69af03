// Type checks for the metadata keys the engine relies on, so code reading e.g. the vocabulary
// can trust its type and length instead of re-validating.
#pragma once

#include <cstdint>
#include <vector>

#include "gguf/gguf.h"

namespace zen::gguf {

// Refuses well-known keys with the wrong type and per-token arrays whose length differs from
// tokenizer.ggml.tokens; returns the data alignment (general.alignment or the default 32).
uint64_t check_known_keys(const std::vector<KeyValue>& kv, const Limits& limits);

}  // namespace zen::gguf
