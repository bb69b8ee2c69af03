// Reads a Vocab from GGUF metadata (tokenizer.ggml.*), checking every array's type and length
// and every special id against the vocabulary; anything inconsistent is an Error naming the
// key. Defaults and text-based special-token detection follow llama.cpp, so a file behaves
// here as it does there.
#pragma once

#include "gguf/gguf.h"
#include "tokenizer/vocab.h"

namespace zen::tokenizer {

Vocab load_vocab(const gguf::File& file);

}  // namespace zen::tokenizer
