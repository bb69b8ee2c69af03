// Which chat template a model is rendered with, and how a rendered chat becomes tokens: shared
// by `zen-engine run` and the server so both talk to a model the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model_file.h"
#include "tokenizer/tokenizer.h"

namespace zen::serving {

// The template in `file` when given, else the model's own (tokenizer.chat_template), else a
// built-in one for its architecture, else ChatML. Throws zen::Error for an unreadable file.
std::string chat_template_source(const model::ModelFile& model, const std::string& file = {});

// Tokens of a rendered conversation: specials spelled in the text become tokens; BOS is added
// only when the model wants one and the template did not write it.
std::vector<int32_t> tokenize_chat(const tokenizer::Tokenizer& tok, const std::string& text);

}  // namespace zen::serving
