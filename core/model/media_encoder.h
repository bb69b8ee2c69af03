// Runs a media encoder Model (zen_model_kind ZEN_MODEL_MEDIA_ENCODER): one image (or audio
// clip) in as F32 of the shape it has, the rows a decoder reads as the input embeddings of
// consecutive positions out (Batch::give). zen/arch.h has the contract. Not thread-safe: one
// caller at a time.
//
//   MediaEncoder enc(model, devices);
//   MediaEncoder::Rows rows = enc.encode(pixels, {224, 224, 3, 1});
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "graph/device_ref.h"
#include "graph/scheduler.h"
#include "model/kept_tensors.h"
#include "model/model.h"

namespace zen::model {

class MediaEncoder {
 public:
  MediaEncoder(const Model& model, std::vector<graph::DeviceRef> devices,
               std::vector<std::string> keep = {});

  struct Rows {
    uint32_t n_embd = 0, n_rows = 0;
    std::vector<float> data;  // [n_rows][n_embd], row-major
    std::span<const float> row(uint32_t i) const {
      return {data.data() + static_cast<size_t>(i) * n_embd, n_embd};
    }
  };
  // Throws when the media's size is not the product of ne, or the model refuses the shape.
  Rows encode(std::span<const float> media, std::array<uint32_t, 4> ne);
  // The tensors `keep` names, from the last run.
  const std::vector<KeptTensor>& kept() const { return kept_; }
  uint64_t plans() const { return plans_; }

 private:
  const Model& model_;
  std::vector<std::string> keep_;
  graph::Scheduler sched_;
  std::array<uint32_t, 4> planned_{};
  uint32_t n_embd_ = 0, n_rows_ = 0;
  uint64_t plans_ = 0;
  std::vector<KeptTensor> kept_;
};

}  // namespace zen::model
