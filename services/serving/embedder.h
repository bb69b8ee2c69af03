// Serves an encoder model's typed tasks: embeddings (prompts, truncation, Matryoshka widths,
// normalization) and reranking (a cross-encoder's [CLS] query [SEP] document [SEP] pairs, or a
// decoder reranker's prompt template). Requests that arrive while the encoder runs are packed
// together into the next run: many inputs share one forward pass, with no padding (the encoder
// packs whole sequences and masks them apart). Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "embedding_profile.h"
#include "model/encoder.h"
#include "tokenizer/tokenizer.h"

namespace zen::serving {

// An embedding request (the engine API's zen_embed_request, copied).
struct EmbedRequest {
  struct Input {
    bool is_text = false;
    std::string text;
    std::vector<int32_t> tokens;
  };
  enum class Normalize { kNo, kYes, kAsModel };
  std::string model;
  std::vector<Input> inputs;
  Normalize normalize = Normalize::kNo;
  uint32_t dimensions = 0;  // 0: the model's width
  std::string prompt_name;  // a prompt of the model's ("query"); empty: its default
  bool truncate = false;    // cut inputs longer than the model takes (else a 400)
};
struct Embeddings {
  std::vector<std::vector<float>> vectors;  // one per input, in order
  uint64_t prompt_tokens = 0;
};

struct RerankRequest {
  std::string model, query;
  std::vector<std::string> documents;
  bool truncate = false;  // cut documents that do not fit with the query (else a 400)
};
struct Reranked {
  std::vector<float> scores;  // one per document, in order: the relevance in [0, 1]
  uint64_t prompt_tokens = 0;
};

class Embedder {
 public:
  // tokenizer may be null (a file without one: token ids only).
  Embedder(std::string model_id, model::Encoder& encoder, const tokenizer::Tokenizer* tokenizer,
           EmbeddingProfile profile);

  uint32_t task_kinds() const;  // ZEN_TASK_EMBED or ZEN_TASK_RERANK
  const EmbeddingProfile& profile() const { return profile_; }
  Embeddings embed(const EmbedRequest& r);
  Reranked rerank(const RerankRequest& r);

 private:
  struct Pending;
  // The pooled rows of seqs (types: segment ids, or empty), run with whatever other requests
  // are waiting.
  std::vector<std::vector<float>> encode(const std::vector<std::vector<int32_t>>& seqs,
                                         const std::vector<std::vector<int32_t>>& types);
  void run_together(std::vector<Pending*>& batch);
  const tokenizer::Tokenizer& tokenizer() const;
  std::vector<int32_t> embed_tokens(const EmbedRequest::Input& in, const std::string& prefix,
                                    size_t index, bool truncate) const;
  // One document's sequence (and segment ids) for the reranker.
  void rerank_pair(const RerankRequest& r, size_t d, std::vector<int32_t>& tokens,
                   std::vector<int32_t>& types) const;
  float relevance(const std::vector<float>& logits) const;

  std::string id_;
  model::Encoder& encoder_;
  const tokenizer::Tokenizer* tokenizer_;
  EmbeddingProfile profile_;
  uint32_t max_tokens_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Pending*> waiting_;
  bool running_ = false;
};

}  // namespace zen::serving
