// Conventions GGUF metadata does not spell out but llama.cpp applies by looking at token texts
// and model names: which tokens end generation (<|im_end|>, <end_of_turn>, <|eot_id|>, ...),
// that such tokens are control tokens even when a converter typed them otherwise, which
// control tokens are unused placeholders, and per-model whitespace stripping around special
// tokens (Phi-3). Applying them keeps encode, decode and end-of-generation identical to
// llama.cpp on the same file.
#pragma once

#include <string_view>

#include "tokenizer/vocab.h"

namespace zen::tokenizer {

// Fills vocab.special's unset eot/eom/fim ids, vocab.is_eog and adjusts attributes. Where
// llama.cpp's choice depends on hash-map order (two candidate texts for one role), the lowest
// id wins here.
void apply_vocab_conventions(Vocab& vocab, std::string_view model_name);

}  // namespace zen::tokenizer
