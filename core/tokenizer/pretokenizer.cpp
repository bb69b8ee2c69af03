#include "tokenizer/pretokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>
#include <new>

#include "tokenizer/error.h"

namespace zen::tokenizer {
namespace {

// Unicode White_Space, the \s of llama.cpp's splitters and of HF tokenizers.
#define ZEN_WS         \
  "\\t\\n\\x0B\\f\\r " \
  "\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
#define ZEN_S "[" ZEN_WS "]"
#define ZEN_NOT_S "[^" ZEN_WS "]"
// Trailing whitespace runs: all but the last space before a word, or the whole run.
#define ZEN_SPACE_RUNS "|" ZEN_S "+(?!" ZEN_NOT_S ")|" ZEN_S "+"
#define ZEN_CONTRACTIONS "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"

// GPT-2. (Its published regex lacks the final \s+; llama.cpp's splitter and HF both
// behave as if it were there.)
constexpr std::string_view kGpt2 =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^" ZEN_WS "\\p{L}\\p{N}]+" ZEN_SPACE_RUNS;
// Llama 3 (tiktoken cl100k style): case-insensitive contractions, digits in threes.
constexpr std::string_view kLlama3 =
    ZEN_CONTRACTIONS "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^" ZEN_WS
                     "\\p{L}\\p{N}]+[\\r\\n]*|" ZEN_S "*[\\r\\n]+" ZEN_SPACE_RUNS;
// Qwen 2: as Llama 3 with single digits.
constexpr std::string_view kQwen2 =
    ZEN_CONTRACTIONS "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^" ZEN_WS
                     "\\p{L}\\p{N}]+[\\r\\n]*|" ZEN_S "*[\\r\\n]+" ZEN_SPACE_RUNS;
constexpr std::string_view kPunctuationRuns = "[\\p{P}$+<=>^~|]+";
constexpr std::string_view kFalconPunctuationRuns = "[\\p{P}$+<=>^~|`]+";
constexpr std::string_view kNumberRuns = "\\p{N}+";
constexpr std::string_view kSingleNumbers = "\\p{N}";
constexpr std::string_view kThreeDigits = "[0-9][0-9][0-9]";

// The White_Space set without brackets, for use inside a character class.
constexpr std::string_view kWhiteSpaceItems = ZEN_WS;

#undef ZEN_CONTRACTIONS
#undef ZEN_SPACE_RUNS
#undef ZEN_NOT_S
#undef ZEN_S
#undef ZEN_WS

// The families of llama.cpp's pre-tokenizer table whose regexes are the ones above.
const std::vector<PreTokenizerSpec>& specs() {
  static const std::vector<PreTokenizerSpec> table = {
      {{"default"}, {kPunctuationRuns, kGpt2, kNumberRuns, kThreeDigits}},
      {{"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0",
        "mellum", "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe", "mpt", "olmo", "jais",
        "exaone4", "trillion", "granite-docling"},
       {kGpt2}},
      {{"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
        "jina-v5-nano"},
       {kLlama3},
       /*add_bos=*/true,
       /*ignore_merges=*/true},
      {{"dbrx", "smaug-bpe"}, {kLlama3}},
      {{"chatglm-bpe"}, {kLlama3}, false, false, /*no_default_bos=*/true},
      {{"glm4", "glm5"}, {kLlama3}, false, /*ignore_merges=*/true, /*no_default_bos=*/true},
      {{"qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "megrez", "stablelm2", "hunyuan",
        "solar-open"},
       {kQwen2}},
      {{"starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b",
        "mellum2"},
       {kSingleNumbers, kGpt2}},
      {{"falcon"}, {kFalconPunctuationRuns, kGpt2, kThreeDigits}},
  };
  return table;
}

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  if (pcre2_get_error_message(code, buffer, sizeof buffer) < 0)
    return "error " + std::to_string(code);
  return reinterpret_cast<const char*>(buffer);
}

using Span = std::pair<size_t, size_t>;

}  // namespace

const PreTokenizerSpec* find_pre_tokenizer(std::string_view name) {
  if (name.empty()) name = "default";
  for (const PreTokenizerSpec& spec : specs()) {
    for (std::string_view n : spec.names) {
      if (n == name) return &spec;
    }
  }
  return nullptr;
}

std::string supported_pre_tokenizers() {
  std::string out;
  for (const PreTokenizerSpec& spec : specs()) {
    for (std::string_view n : spec.names) {
      if (!out.empty()) out += ", ";
      out += n;
    }
  }
  return out;
}

class PreTokenizer::Regex {
 public:
  explicit Regex(std::string_view pattern) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                          PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
    if (!code_) {
      throw Error("tokenizer: pre-tokenizer regex \"" + std::string(pattern) +
                  "\" does not compile at offset " + std::to_string(offset) + ": " +
                  pcre2_message(error));
    }
    // Without JIT support PCRE2 interprets the pattern: slower, same results.
    pcre2_jit_compile(code_, PCRE2_JIT_COMPLETE);
  }
  ~Regex() { pcre2_code_free(code_); }
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Splits subject[begin, end) into matches and the unmatched text between them.
  void split(std::string_view subject, Span piece, pcre2_match_data* match,
             std::vector<Span>& out) const {
    auto base = reinterpret_cast<PCRE2_SPTR>(subject.data() + piece.first);
    size_t length = piece.second - piece.first;
    size_t gap = 0;  // start of text not yet emitted, relative to the piece
    size_t pos = 0;
    while (pos < length) {
      int rc = pcre2_match(code_, base, length, pos, PCRE2_NO_UTF_CHECK, match, nullptr);
      if (rc == PCRE2_ERROR_NOMATCH) break;
      if (rc < 0) throw Error("tokenizer: pre-tokenizer regex failed: " + pcre2_message(rc));
      const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match);
      size_t start = ovector[0], end = ovector[1];
      if (end == start) {  // an empty match splits nothing: look again one character on
        pos = start + utf8::lead_length(base[start]);
        continue;
      }
      if (start > gap) out.emplace_back(piece.first + gap, piece.first + start);
      out.emplace_back(piece.first + start, piece.first + end);
      gap = pos = end;
    }
    if (gap < length) out.emplace_back(piece.first + gap, piece.second);
  }

  pcre2_match_data* new_match_data() const {
    pcre2_match_data* data = pcre2_match_data_create_from_pattern(code_, nullptr);
    if (!data) throw std::bad_alloc();
    return data;
  }

 private:
  pcre2_code* code_ = nullptr;
};

std::string pcre2_pattern_from_hf(std::string_view hf) {
  std::string out;
  out.reserve(hf.size() + 64);
  bool in_class = false;
  size_t class_start = 0;  // position just after '[' or '[^'
  for (size_t i = 0; i < hf.size(); ++i) {
    char c = hf[i];
    if (c == '\\' && i + 1 < hf.size()) {
      char e = hf[++i];
      if (e == 's') {
        if (in_class) {
          out.append(kWhiteSpaceItems);
        } else {
          out.append("[").append(kWhiteSpaceItems).append("]");
        }
      } else if (e == 'S') {
        if (in_class) {
          throw Error("tokenizer: pre-tokenizer regex " + std::string(hf) +
                      ": \\S inside a character class is not supported");
        }
        out.append("[^").append(kWhiteSpaceItems).append("]");
      } else {
        out += c;
        out += e;
      }
      continue;
    }
    if (!in_class && c == '[') {
      in_class = true;
      out += c;
      if (i + 1 < hf.size() && hf[i + 1] == '^') out += hf[++i];
      class_start = i + 1;
      continue;
    }
    if (in_class && c == '[' && i + 1 < hf.size() && hf[i + 1] == ':') {
      size_t close = hf.find(":]", i + 2);  // a POSIX class such as [:alpha:]
      if (close != std::string_view::npos) {
        out.append(hf.substr(i, close + 2 - i));
        i = close + 1;
        continue;
      }
    }
    if (in_class && c == ']' && i != class_start) in_class = false;
    out += c;
  }
  return out;
}

PreTokenizer::PreTokenizer(const std::vector<std::string>& patterns) {
  for (const std::string& p : patterns) chain_.push_back(std::make_unique<Regex>(p));
}

PreTokenizer::PreTokenizer(const PreTokenizerSpec& spec) {
  for (std::string_view pattern : spec.regexes) chain_.push_back(std::make_unique<Regex>(pattern));
}

PreTokenizer::~PreTokenizer() = default;
PreTokenizer::PreTokenizer(PreTokenizer&&) noexcept = default;
PreTokenizer& PreTokenizer::operator=(PreTokenizer&&) noexcept = default;

std::vector<Span> PreTokenizer::split(const utf8::Normalized& text) const {
  std::vector<Span> pieces;
  if (text.subject.empty()) return pieces;
  pieces.emplace_back(0, text.subject.size());
  std::vector<Span> next;
  for (const auto& regex : chain_) {
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(
        regex->new_match_data(), &pcre2_match_data_free);
    next.clear();
    next.reserve(pieces.size() * 2);
    for (const Span& piece : pieces) regex->split(text.subject, piece, match.get(), next);
    pieces.swap(next);
  }
  return pieces;
}

}  // namespace zen::tokenizer
