// Runs a Model: owns the KV cache and the graph scheduler, turns batches of tokens into
// logits. One Context serves one or more sequences (seq ids); batches larger than n_batch are
// split into micro-batches. Not thread-safe: one caller at a time.
//
//   Context ctx(model, devices, {.n_ctx = 4096});
//   ctx.decode(Batch::sequence(prompt_ids, /*pos0=*/0, /*seq=*/0, /*all_logits=*/false));
//   std::span<const float> next = ctx.logits(0);
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "graph/builder.h"
#include "graph/device_ref.h"
#include "graph/scheduler.h"
#include "lora/adapter.h"
#include "model/kept_tensors.h"
#include "model/kv_cache.h"
#include "model/model.h"

namespace zen::model {

struct ContextParams {
  uint32_t n_ctx = 4096;   // KV cells (all sequences together); 0 = the model's training length
  uint32_t n_batch = 512;  // most tokens per micro-batch
  zen_type kv_type = ZEN_TYPE_F16;
  uint32_t block_size = 16;  // KV cells per block (the unit of allocation and prefix sharing)
  // Deterministic mode: each micro-batch attends over a compact copy of its sequences' K/V
  // rows, in position order (graph input "kv_rows"), not over cells [0, n_kv). A sequence
  // alone in a micro-batch then gets bit-identical logits wherever its blocks sit and whatever
  // else is cached.
  bool gather_kv = false;
  std::vector<std::string> keep;  // named tensors to keep from each micro-batch (kept())
  // LoRA adapters loaded for this model (lora/adapter.h), and the scale each token gets when
  // its batch names none (--lora-scale; missing entries are 1).
  lora::Adapters lora;
  std::vector<float> lora_scale;
};

struct Batch {
  std::vector<int32_t> tokens, positions, seq_ids;
  std::vector<uint8_t> logits;  // 1 = return logits for this token
  // Input embeddings given for some tokens instead of looked up (a media encoder's output at
  // its positions; zen_batch.n_given): given_row[i] is the row of `given` (n_embd floats each)
  // token i reads, -1 for a looked-up token; empty when none is given. The token id of such a
  // position is still its KV identity (a placeholder the prefix cache keys on).
  std::vector<int32_t> given_row;
  std::vector<float> given;
  uint32_t n_embd_given = 0;
  // Each token's scale for each of the context's LoRA adapters (token-major: lora_scales[i *
  // n_adapters + a]), 0 where the token's sequence does not use adapter a; empty: every token
  // at the context's default scales (ContextParams::lora_scale).
  std::vector<float> lora_scales;

  // Gives token i the input embedding `row` (n_embd floats).
  void give(size_t i, std::span<const float> row);

  // Tokens of one sequence at positions pos0, pos0 + 1, ...; logits for the last token only,
  // or for every token.
  static Batch sequence(std::span<const int32_t> ids, int32_t pos0, int32_t seq, bool all_logits);
  size_t size() const { return tokens.size(); }
};

class Context {
 public:
  Context(const Model& model, std::vector<graph::DeviceRef> devices, ContextParams params = {});

  // Runs the batch; afterwards logits(i) is the i-th requested row, in batch order. Each
  // sequence's positions must continue what the cache holds for it (KvCache::append). Throws
  // (the cache cut back to what it held) when the cache is full or a token id is out of range.
  void decode(const Batch& batch);
  size_t n_outputs() const { return n_outputs_; }
  std::span<const float> logits(size_t i) const;
  int32_t n_vocab() const { return n_vocab_; }  // 0 until a graph was planned
  // The logits' width (the vocabulary, whatever the architecture names its tensors). Before
  // the first decode, one token through the model tells it (and plans the decode graph); the
  // cache is left as it was.
  int32_t probe_n_vocab();

  // Graphs planned so far: batches of one shape (tokens, KV rows, outputs) reuse one plan, so
  // decode steps of a sequence re-plan only when n_kv crosses a padding boundary.
  uint64_t plans() const { return plans_; }
  // Where the last planned graph runs: segments and nodes per device, copies, arena bytes.
  std::string placement() const { return sched_.summary(); }

  // The tensors params.keep names, from the last micro-batch run.
  const std::vector<KeptTensor>& kept() const { return kept_; }

  KvCache& kv() { return kv_; }
  const KvCache& kv() const { return kv_; }
  const ContextParams& params() const { return params_; }
  const Model& model() const { return model_; }
  // What a token is run with when its batch gives no LoRA scales.
  const std::vector<float>& lora_defaults() const { return params_.lora_scale; }

 private:
  void run(const Batch& batch, size_t begin, size_t end);
  void plan(const zen_batch& shape, std::vector<size_t> lora_active);
  // Adapters some token of [begin, end) uses (scale != 0); fills lora_token_ with the scales.
  std::vector<size_t> lora_active(const Batch& b, size_t begin, size_t end);
  void set_inputs(const Batch& b, size_t begin, size_t end, std::span<const int32_t> slots,
                  uint32_t n_kv, const std::vector<int32_t>& out_ids);
  // gather_kv: fills rows_ for the sequences of positions/seqs (padded to a multiple of 32)
  // and returns the row count.
  uint32_t gather_rows(std::span<const int32_t> seqs);
  // Fills given_ and pick_ for tokens [begin, end) and returns how many rows are given.
  uint32_t pick_given(const Batch& b, size_t begin, size_t end);
  void fill_gathered_mask(float* mask, uint32_t n_rows, std::span<const int32_t> positions,
                          std::span<const int32_t> seqs, uint32_t window) const;
  std::optional<graph::WeightInfo> resolve(std::string_view name) const;

  const Model& model_;
  ContextParams params_;
  KvCache kv_;
  graph::Scheduler sched_;
  int32_t n_vocab_ = 0;
  // Shape of the planned graph: (tokens, kv cells, outputs, given rows).
  uint32_t planned_tokens_ = 0, planned_kv_ = 0, planned_outputs_ = 0, planned_given_ = 0;
  std::vector<size_t> planned_lora_;
  uint64_t plans_ = 0;
  std::vector<float> logits_;
  std::vector<KeptTensor> kept_;
  size_t n_outputs_ = 0;
  std::vector<float> mask_;
  // This micro-batch's given rows and each token's pick ("given_embd", "embd_pick").
  std::vector<float> given_;
  std::vector<int32_t> pick_;
  // This micro-batch's LoRA scales, token-major, and one adapter's column of them.
  std::vector<float> lora_token_, lora_column_;
  // gather_kv: cell ids of the gathered rows (the graph input "kv_rows"), and where each
  // sequence's rows start.
  std::vector<int32_t> rows_;
  std::vector<std::pair<int32_t, uint32_t>> row_start_;  // (seq, its first row)
};

}  // namespace zen::model
