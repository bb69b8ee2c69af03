// Runs an encoder Model (zen_model_kind ZEN_MODEL_ENCODER): whole token sequences in, one
// pooled vector per sequence out. Sequences are packed, in order, into graphs of up to n_batch
// tokens; the attention mask keeps them apart. zen/arch.h lists the inputs the runtime fills.
// Not thread-safe: one caller at a time.
//
//   Encoder enc(model, devices);
//   auto vectors = enc.encode({{101, 7592, 102}, {101, 2088, 102}}, /*normalize=*/true);
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graph/device_ref.h"
#include "graph/scheduler.h"
#include "model/kept_tensors.h"
#include "model/model.h"

namespace zen::model {

struct EncoderParams {
  uint32_t n_batch = 2048;        // most tokens per graph; a longer sequence is refused
  std::vector<std::string> keep;  // named tensors to keep from each graph (kept())
};

class Encoder {
 public:
  Encoder(const Model& model, std::vector<graph::DeviceRef> devices, EncoderParams params = {});

  // One vector of n_embd() floats per sequence, in order; normalize scales each to L2 norm 1.
  // `types` gives each token's segment ("token_types": a cross-encoder's query 0, document 1);
  // empty: all 0. Throws for an empty sequence, or one longer than n_batch or the model's
  // context length.
  std::vector<std::vector<float>> encode(std::span<const std::vector<int32_t>> seqs,
                                         bool normalize = false,
                                         std::span<const std::vector<int32_t>> types = {});
  int32_t n_embd() const { return n_embd_; }  // 0 until a graph was planned
  // The longest sequence encode() takes: n_batch, or the model's context length if shorter.
  uint32_t max_tokens() const;
  // The tensors params.keep names, from the last graph run.
  const std::vector<KeptTensor>& kept() const { return kept_; }
  uint64_t plans() const { return plans_; }
  std::string placement() const { return sched_.summary(); }
  const Model& model() const { return model_; }

 private:
  // Encodes seqs (one graph), appending their vectors to out.
  void run(std::span<const std::vector<int32_t>> seqs, std::span<const std::vector<int32_t>> types,
           std::vector<std::vector<float>>& out);
  void fill_mask(std::string_view name);
  void plan(const zen_batch& shape);
  void set_inputs(std::span<const std::vector<int32_t>> seqs);

  const Model& model_;
  EncoderParams params_;
  graph::Scheduler sched_;
  int32_t n_embd_ = 0;
  uint32_t planned_tokens_ = 0, planned_seqs_ = 0;
  uint64_t plans_ = 0;
  std::vector<KeptTensor> kept_;
  // Input staging, reused across graphs.
  std::vector<int32_t> tokens_, positions_, seq_ids_, types_, first_, last_;
  std::vector<float> mask_, mean_;
};

}  // namespace zen::model
