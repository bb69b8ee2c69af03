#include "tokenizer/vocab_conventions.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string>

namespace zen::tokenizer {
namespace {

using Texts = std::initializer_list<std::string_view>;

// Texts llama.cpp recognises per role when the metadata does not name the token.
const Texts kEotTexts = {
    "<|eot_id|>",        "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
    "<|end_of_text|>",   "<EOT>",      "_<EOT>",  "[EOT]",         "<｜end▁of▁sentence｜>",
    "<end_of_utterance>"};
const Texts kEomTexts = {"<|eom_id|>"};
const Texts kFimPreTexts = {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>",    "<｜fim▁begin｜>",
                            "<PRE>",          "▁<PRE>",       "<|code_prefix|>", "<|prefix|>"};
const Texts kFimSufTexts = {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>",    "<｜fim▁hole｜>",
                            "<SUF>",          "▁<SUF>",       "<|code_suffix|>", "<|suffix|>"};
const Texts kFimMidTexts = {"<|fim_middle|>", "<fim-middle>", "<fim_middle>",    "<｜fim▁end｜>",
                            "<MID>",          "▁<MID>",       "<|code_middle|>", "<|middle|>"};
const Texts kFimPadTexts = {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"};
const Texts kFimRepTexts = {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"};
const Texts kFimSepTexts = {"<|file_sep|>"};

// Texts that end generation whatever the metadata says.
const Texts kEogTexts = {"<|eot_id|>",
                         "<|im_end|>",
                         "<|end|>",
                         "<|return|>",
                         "<|call|>",
                         "<|flush|>",
                         "<|calls|>",
                         "<end_of_turn>",
                         "<|endoftext|>",
                         "</s>",
                         "<|eom_id|>",
                         "<EOT>",
                         "_<EOT>",
                         "[EOT]",
                         "[EOS]",
                         "<|end_of_text|>",
                         "<end_of_utterance>",
                         "<eos>",
                         "<turn|>",
                         "<|tool_response>",
                         "<｜end▁of▁sentence｜>",
                         "[e~["};

// gpt-oss (harmony) structure tokens: always rendered, never treated as control.
const Texts kAlwaysRenderedTexts = {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"};

void make_control(Vocab& v, int32_t id) { v.set_attr(id, v.attr(id) | kAttrControl); }

// Lowest id whose text is one of `texts`, made a control token, for a role the metadata left
// unset.
void detect_role(Vocab& v, int32_t& role, const Texts& texts) {
  if (role != kNoToken) return;
  for (auto text : texts) {
    auto id = v.find(text);
    if (id && (role == kNoToken || *id < role)) role = *id;
  }
  if (role != kNoToken) make_control(v, role);
}

std::optional<int32_t> eog_with_text(const Vocab& v, std::string_view text) {
  auto id = v.find(text);
  if (id && v.is_eog[static_cast<size_t>(*id)]) return id;
  return std::nullopt;
}

void collect_eog(Vocab& v) {
  SpecialIds& s = v.special;
  v.is_eog.assign(static_cast<size_t>(v.size()), 0);
  auto mark = [&](int32_t id) {
    if (v.contains(id)) v.is_eog[static_cast<size_t>(id)] = 1;
  };
  mark(s.fim_pad);
  mark(s.fim_rep);
  mark(s.fim_sep);
  for (auto text : kEogTexts) {
    if (auto id = v.find(text)) {
      mark(*id);
      make_control(v, *id);
    }
  }
  for (auto text : kAlwaysRenderedTexts) {
    if (auto id = v.find(text)) v.set_attr(*id, kAttrUserDefined);
  }
  mark(s.eos);
  mark(s.eot);
  mark(s.eom);

  // Harmony / Solar: "<|end|>" closes a message, not the generation, when the vocabulary has
  // the tokens that do ("<|return|>" with "<|call|>", or "<|calls|>" with "<|flush|>").
  bool has_return = eog_with_text(v, "<|return|>").has_value();
  bool has_call = eog_with_text(v, "<|call|>") || eog_with_text(v, "<|calls|>");
  bool has_flush = eog_with_text(v, "<|flush|>").has_value();
  if (auto end = eog_with_text(v, "<|end|>"); end && has_call && (has_return || has_flush)) {
    v.is_eog[static_cast<size_t>(*end)] = 0;
    v.set_attr(*end, kAttrUserDefined);
  }
  // Where "<|tool_response>" or "<|plamo:eos|>" ends generation, "</s>" is ordinary text.
  bool s_is_text = eog_with_text(v, "<|tool_response>") || eog_with_text(v, "<|plamo:eos|>");
  if (auto s_close = eog_with_text(v, "</s>"); s_close && s_is_text) {
    v.is_eog[static_cast<size_t>(*s_close)] = 0;
    v.set_attr(*s_close, kAttrNormal);
  }
}

void set_attr_bit(Vocab& v, std::string_view text, uint32_t bit, bool on) {
  if (auto id = v.find(text)) v.set_attr(*id, on ? v.attr(*id) | bit : v.attr(*id) & ~bit);
}

bool contains_any(std::string_view s, const Texts& parts) {
  for (auto p : parts) {
    if (s.find(p) != std::string_view::npos) return true;
  }
  return false;
}

// Whitespace stripping around special tokens, keyed on names as llama.cpp does (the per-token
// lstrip/rstrip flags of tokenizer.json never made it into GGUF).
void apply_strip_rules(Vocab& v, std::string_view model_name) {
  std::string name(model_name);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (contains_any(v.pre, {"jina-v2-de", "jina-v2-es", "jina-v2-code"})) {
    set_attr_bit(v, "<mask>", kAttrLstrip, true);
  } else if (contains_any(name, {"phi-3", "phi3"})) {
    for (int32_t id = 0; id < v.size(); ++id) {
      if (v.attr(id) & kAttrMatchedInText) v.set_attr(id, v.attr(id) | kAttrRstrip);
    }
    set_attr_bit(v, "</s>", kAttrRstrip, true);
    for (auto text : {"<unk>", "<s>", "<|endoftext|>"}) set_attr_bit(v, text, kAttrRstrip, false);
  } else if (contains_any(name, {"modern-bert"})) {
    set_attr_bit(v, "[MASK]", kAttrLstrip, true);
  }
}

}  // namespace

void apply_vocab_conventions(Vocab& v, std::string_view model_name) {
  SpecialIds& s = v.special;
  detect_role(v, s.eot, kEotTexts);
  detect_role(v, s.eom, kEomTexts);
  detect_role(v, s.fim_pre, kFimPreTexts);
  detect_role(v, s.fim_suf, kFimSufTexts);
  detect_role(v, s.fim_mid, kFimMidTexts);
  detect_role(v, s.fim_pad, kFimPadTexts);
  detect_role(v, s.fim_rep, kFimRepTexts);
  detect_role(v, s.fim_sep, kFimSepTexts);

  // Placeholder control tokens ("<unused42>") are marked so nothing mistakes them for real
  // structure tokens.
  for (int32_t id = 0; id < v.size(); ++id) {
    if ((v.attr(id) & kAttrControl) && v.text(id).find("unused") != std::string_view::npos) {
      v.set_attr(id, v.attr(id) | kAttrUnused);
    }
  }

  collect_eog(v);
  apply_strip_rules(v, model_name);
}

}  // namespace zen::tokenizer
