// Text <-> token ids for a model, built from its GGUF tokenizer metadata (or from a Hugging
// Face tokenizer.json through hf_json.h). Four model families:
//   "llama" - SentencePiece-style BPE with byte fallback (Llama 2, Gemma, Mistral v1)
//   "gpt2"  - byte-level BPE with a pre-tokenizer regex chosen by tokenizer.ggml.pre
//             (GPT-2, Llama 3, Qwen 2, ... see pretokenizer.h for the names)
//   "bert"  - WordPiece (wpm.h); "t5" - SentencePiece unigram (ugm.h), both as Hugging Face
//             tokenizers runs them
// Token ids, pieces and end-of-generation ids equal llama.cpp's for the same file (that is
// what the tests check). Any bytes are accepted as input: invalid UTF-8 goes through byte
// fallback (SPM) or becomes U+FFFD (byte-level BPE), as in llama.cpp. A Tokenizer is
// immutable and may be used from several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/gguf.h"
#include "tokenizer/error.h"
#include "tokenizer/token_attr.h"
#include "tokenizer/vocab.h"

namespace zen::tokenizer {

class Tokenizer {
 public:
  // Reads tokenizer.ggml.* from the file; Error naming the key if anything is missing or
  // inconsistent. The Tokenizer owns copies: the File may be closed afterwards.
  static Tokenizer from_gguf(const gguf::File& file);

  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;
  ~Tokenizer();

  // Longest text encode() accepts (merge positions are 32-bit); Error beyond it.
  static constexpr size_t kMaxTextBytes = size_t{1} << 30;

  // add_special: add BOS/EOS as the model asks (add_bos/add_eos).
  // parse_special: text spelling a control token ("<start_of_turn>", "<|im_end|>") becomes
  // that token; otherwise it is tokenized as plain text. User-defined tokens always match.
  std::vector<int32_t> encode(std::string_view text, bool add_special, bool parse_special) const;

  // The bytes a token stands for: "▁" and byte-level spellings decoded, <0xHH> as its byte,
  // control tokens as their text ("" with skip_special). May be a partial UTF-8 sequence.
  std::string piece(int32_t id, bool skip_special = false) const;
  // Concatenated pieces, as llama_detokenize(remove_special = false, unparse_special =
  // !skip_special): when the model adds a space prefix (Llama 2), the first token's leading
  // space is dropped. No "clean-up" of spaces before punctuation (it loses information).
  // Raw bytes, possibly invalid UTF-8: stream through StreamDecoder for display.
  std::string decode(std::span<const int32_t> ids, bool skip_special) const;

  int32_t n_vocab() const { return vocab_->size(); }
  VocabKind kind() const { return vocab_->kind; }
  // The vocabulary's text for the id ("▁Hello", "Ġworld", "<0x0A>"), or Error if out of range.
  std::string_view token_text(int32_t id) const;
  uint32_t token_attr(int32_t id) const;
  std::optional<int32_t> find(std::string_view token_text) const {
    return vocab_->find(token_text);
  }

  // kNoToken (-1) where the model has none.
  int32_t bos() const { return vocab_->special.bos; }
  int32_t eos() const { return vocab_->special.eos; }
  int32_t eot() const { return vocab_->special.eot; }
  int32_t unk() const { return vocab_->special.unk; }
  int32_t pad() const { return vocab_->special.pad; }
  const SpecialIds& special_ids() const { return vocab_->special; }
  bool add_bos() const { return vocab_->add_bos; }
  bool add_eos() const { return vocab_->add_eos; }
  // End of generation: EOS, EOT, EOM and the turn/text terminators the vocabulary has
  // (<end_of_turn>, <|im_end|>, <|eot_id|>, <|endoftext|>, ...).
  bool is_eog(int32_t id) const;
  // Every id is_eog holds for, ascending (engine::Request::stop_tokens).
  std::vector<int32_t> eog_ids() const;
  bool is_control(int32_t id) const { return (token_attr(id) & kAttrControl) != 0; }

 private:
  struct Impl;
  explicit Tokenizer(std::unique_ptr<Vocab> vocab);

  void check_id(int32_t id) const;
  // Text between special tokens; after_special: it starts the text or follows a special token.
  void encode_raw(std::string_view text, bool after_special, std::vector<int32_t>& out) const;

  std::unique_ptr<Vocab> vocab_;
  std::unique_ptr<Impl> impl_;
};

// Turns a stream of generated tokens into text that is always valid UTF-8: a character split
// across tokens (byte-fallback tokens, byte-level pieces) is held back until complete, invalid
// bytes become U+FFFD, and flush() ends the stream, turning an unfinished character into
// U+FFFD. Keeps a reference to the Tokenizer.
class StreamDecoder {
 public:
  explicit StreamDecoder(const Tokenizer& tokenizer, bool skip_special = true)
      : tokenizer_(tokenizer), skip_special_(skip_special) {}

  // Text that became complete with this token (often the whole piece, sometimes "").
  std::string push(int32_t id);
  // Whatever is still held back, then the decoder is empty again.
  std::string flush();

 private:
  std::string take_complete(bool final);

  const Tokenizer& tokenizer_;
  bool skip_special_;
  std::string pending_;
};

}  // namespace zen::tokenizer
