#include "embedder.h"

#include <cmath>

#include <zen/task.h>

#include "api_error.h"

namespace zen::serving {
namespace {

void normalize_in_place(std::vector<float>& v) {
  double sum = 0;
  for (float x : v) sum += static_cast<double>(x) * x;
  const float inv = sum > 0 ? static_cast<float>(1.0 / std::sqrt(sum)) : 0.0f;
  for (float& x : v) x *= inv;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::string too_long(const std::string& what, size_t n, uint32_t limit, const std::string& id,
                     const std::string& cut) {
  return what + " has " + std::to_string(n) + " tokens; model '" + id + "' takes at most " +
         std::to_string(limit) + " (send \"truncate\": true to " + cut + ")";
}

}  // namespace

// One caller's sequences while they wait for (or ride along in) a run of the encoder.
struct Embedder::Pending {
  const std::vector<std::vector<int32_t>>* seqs;
  const std::vector<std::vector<int32_t>>* types;
  std::vector<std::vector<float>> out;
  std::exception_ptr error;
  bool done = false;
};

Embedder::Embedder(std::string model_id, model::Encoder& encoder,
                   const tokenizer::Tokenizer* tokenizer, EmbeddingProfile profile)
    : id_(std::move(model_id)),
      encoder_(encoder),
      tokenizer_(tokenizer),
      profile_(std::move(profile)),
      max_tokens_(encoder.max_tokens()) {}

uint32_t Embedder::task_kinds() const {
  return profile_.reranker() ? ZEN_TASK_RERANK : ZEN_TASK_EMBED;
}

const tokenizer::Tokenizer& Embedder::tokenizer() const {
  if (!tokenizer_)
    throw ApiError::invalid(
        "model", "model '" + id_ + "' has no tokenizer this server reads: send token ids");
  return *tokenizer_;
}

std::vector<std::vector<float>> Embedder::encode(const std::vector<std::vector<int32_t>>& seqs,
                                                 const std::vector<std::vector<int32_t>>& types) {
  Pending me{&seqs, &types, {}, nullptr, false};
  std::unique_lock lock(mu_);
  waiting_.push_back(&me);
  // The first caller to find the encoder idle runs everyone waiting; the rest sleep until
  // their rows are back.
  while (!me.done) {
    if (running_) {
      cv_.wait(lock);
      continue;
    }
    running_ = true;
    std::vector<Pending*> batch;
    batch.swap(waiting_);
    lock.unlock();
    run_together(batch);
    lock.lock();
    running_ = false;
    for (Pending* p : batch) p->done = true;
    cv_.notify_all();
  }
  if (me.error) std::rethrow_exception(me.error);
  return std::move(me.out);
}

void Embedder::run_together(std::vector<Pending*>& batch) {
  std::vector<std::vector<int32_t>> seqs, types;
  bool typed = false;
  for (const Pending* p : batch) typed = typed || !p->types->empty();
  for (const Pending* p : batch) {
    seqs.insert(seqs.end(), p->seqs->begin(), p->seqs->end());
    if (!typed) continue;
    if (p->types->empty())
      for (const auto& s : *p->seqs) types.emplace_back(s.size(), 0);
    else
      types.insert(types.end(), p->types->begin(), p->types->end());
  }
  try {
    std::vector<std::vector<float>> rows = encoder_.encode(seqs, false, types);
    size_t next = 0;
    for (Pending* p : batch)
      for (size_t i = 0; i < p->seqs->size(); ++i) p->out.push_back(std::move(rows[next++]));
  } catch (...) {
    if (batch.size() == 1) {
      batch[0]->error = std::current_exception();
      return;
    }
    // One request's failure must not fail the others that rode along: each alone.
    for (Pending* p : batch) {
      std::vector<Pending*> one{p};
      p->out.clear();
      run_together(one);
    }
  }
}

std::vector<int32_t> Embedder::embed_tokens(const EmbedRequest::Input& in,
                                            const std::string& prefix, size_t index,
                                            bool truncate) const {
  std::vector<int32_t> ids =
      in.is_text ? tokenizer().encode(prefix + in.text, true, false) : in.tokens;
  if (ids.empty())
    throw ApiError::invalid("input", "input " + std::to_string(index) + " has no tokens");
  if (ids.size() <= max_tokens_) return ids;
  if (!truncate)
    throw ApiError::invalid("input",
                            too_long("input " + std::to_string(index), ids.size(), max_tokens_, id_,
                                     "keep its first " + std::to_string(max_tokens_)));
  // Keep the head; a trailing EOS the tokenizer adds stays last (last-token pooling reads it).
  const bool eos_last = in.is_text && tokenizer().add_eos() && ids.back() == tokenizer().eos();
  const int32_t eos = ids.back();
  ids.resize(max_tokens_);
  if (eos_last) ids.back() = eos;
  return ids;
}

Embeddings Embedder::embed(const EmbedRequest& r) {
  if (profile_.reranker())
    throw ApiError::invalid("model", "model '" + id_ +
                                         "' is a reranker: it answers /v1/rerank, "
                                         "not embeddings");
  if (r.inputs.empty()) throw ApiError::invalid("input", "'input' has no items to embed");
  const std::string prefix = profile_.prefix(r.prompt_name);
  std::vector<std::vector<int32_t>> seqs;
  Embeddings out;
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    seqs.push_back(embed_tokens(r.inputs[i], prefix, i, r.truncate));
    out.prompt_tokens += seqs.back().size();
  }
  out.vectors = encode(seqs, {});
  const size_t width = out.vectors.empty() ? 0 : out.vectors[0].size();
  if (r.dimensions && r.dimensions != width) {
    bool trained = false;
    for (uint32_t d : profile_.matryoshka_dims) trained = trained || d == r.dimensions;
    if (!trained || r.dimensions > width) {
      std::string dims;
      for (uint32_t d : profile_.matryoshka_dims)
        dims += (dims.empty() ? "" : ", ") + std::to_string(d);
      throw ApiError::invalid(
          "dimensions", "model '" + id_ + "' makes " + std::to_string(width) + "-wide vectors" +
                            (dims.empty() ? " and was not trained to be truncated (Matryoshka)"
                                          : "; it was trained to be truncated to " + dims));
    }
    for (std::vector<float>& v : out.vectors) v.resize(r.dimensions);
  }
  const bool normalize = r.normalize == EmbedRequest::Normalize::kYes ||
                         (r.normalize == EmbedRequest::Normalize::kAsModel && profile_.normalize);
  if (normalize)
    for (std::vector<float>& v : out.vectors) normalize_in_place(v);
  return out;
}

void Embedder::rerank_pair(const RerankRequest& r, size_t d, std::vector<int32_t>& tokens,
                           std::vector<int32_t>& types) const {
  const tokenizer::Tokenizer& tok = tokenizer();
  const std::string what = "document " + std::to_string(d) + " with the query";
  if (!profile_.rerank_template.empty()) {
    // A decoder reranker: its prompt, tokenized whole (as its reference implementation does).
    const std::string with_query = replace_all(profile_.rerank_template, "{query}", r.query);
    auto prompt = [&](const std::string& doc) {
      return tok.encode(replace_all(with_query, "{document}", doc), true, true);
    };
    tokens = prompt(r.documents[d]);
    if (tokens.size() > max_tokens_ && r.truncate) {
      // Cut the document by the excess (and a little more where retokenizing merges
      // differently at the cut) until the prompt fits.
      std::vector<int32_t> doc = tok.encode(r.documents[d], false, false);
      for (size_t excess = tokens.size() - max_tokens_; tokens.size() > max_tokens_ && !doc.empty();
           excess = tokens.size() - max_tokens_ + 1) {
        doc.resize(doc.size() > excess ? doc.size() - excess : 0);
        tokens = prompt(tok.decode(doc, true));
      }
    }
    types.clear();
  } else {
    // A cross-encoder: [CLS] query [SEP] document [SEP], segment 0 then 1.
    const std::vector<int32_t> q = tok.encode(r.query, false, false);
    std::vector<int32_t> doc = tok.encode(r.documents[d], false, false);
    const int32_t cls = tok.bos(),
                  sep = tok.special_ids().sep != -1 ? tok.special_ids().sep : tok.eos();
    if (cls < 0 || sep < 0)
      throw ApiError::invalid("model", "model '" + id_ +
                                           "' is a reranker without a prompt "
                                           "template or [CLS]/[SEP] tokens");
    const size_t fixed = q.size() + 3;
    if (fixed + doc.size() > max_tokens_ && r.truncate && fixed < max_tokens_)
      doc.resize(max_tokens_ - fixed);
    tokens.assign(1, cls);
    tokens.insert(tokens.end(), q.begin(), q.end());
    tokens.push_back(sep);
    types.assign(tokens.size(), 0);
    tokens.insert(tokens.end(), doc.begin(), doc.end());
    tokens.push_back(sep);
    types.resize(tokens.size(), 1);
  }
  if (tokens.size() > max_tokens_)
    throw ApiError::invalid(
        "documents", too_long(what, tokens.size(), max_tokens_, id_, "cut the document to fit"));
}

float Embedder::relevance(const std::vector<float>& logits) const {
  // A yes/no head (Qwen3-Reranker): P(yes) over the two; one label (cross-encoders): its
  // logistic, as sentence-transformers' CrossEncoder scores it.
  for (size_t i = 0; i < profile_.labels.size() && logits.size() == 2; ++i)
    if (profile_.labels[i] == "yes") {
      const float yes = logits[i], no = logits[1 - i];
      return 1.0f / (1.0f + std::exp(no - yes));
    }
  if (logits.size() == 1) return 1.0f / (1.0f + std::exp(-logits[0]));
  throw ApiError::internal("model '" + id_ + "' has a " + std::to_string(logits.size()) +
                           "-label classifier without a \"yes\" label: which is relevance is "
                           "unknown");
}

Reranked Embedder::rerank(const RerankRequest& r) {
  if (!profile_.reranker())
    throw ApiError::invalid("model", "model '" + id_ + "' is an embedding model, not a reranker");
  if (r.documents.empty()) throw ApiError::invalid("documents", "'documents' is empty");
  std::vector<std::vector<int32_t>> seqs(r.documents.size()), types(r.documents.size());
  Reranked out;
  bool typed = false;
  for (size_t d = 0; d < r.documents.size(); ++d) {
    rerank_pair(r, d, seqs[d], types[d]);
    typed = typed || !types[d].empty();
    out.prompt_tokens += seqs[d].size();
  }
  if (!typed) types.clear();
  for (const std::vector<float>& logits : encode(seqs, types))
    out.scores.push_back(relevance(logits));
  return out;
}

}  // namespace zen::serving
