#include "model/media_encoder.h"

#include <zen/plugin.hpp>

namespace zen::model {

MediaEncoder::MediaEncoder(const Model& model, std::vector<graph::DeviceRef> devices,
                           std::vector<std::string> keep)
    : model_(model), keep_(std::move(keep)), sched_(std::move(devices)) {
  model_.expect_kind(ZEN_MODEL_MEDIA_ENCODER);
}

MediaEncoder::Rows MediaEncoder::encode(std::span<const float> media, std::array<uint32_t, 4> ne) {
  uint64_t n = 1;
  for (uint32_t d : ne) n *= d;
  if (n == 0 || n != media.size())
    throw Error(ZEN_ERR_INVALID_ARG, "media encoder: " + std::to_string(media.size()) +
                                         " values do not fill the shape [" + std::to_string(ne[0]) +
                                         ", " + std::to_string(ne[1]) + ", " +
                                         std::to_string(ne[2]) + ", " + std::to_string(ne[3]) +
                                         "]");
  try {
    if (ne != planned_) {
      zen_batch shape{};
      shape.h = ZEN_HDR_INIT(zen_batch);
      std::copy(ne.begin(), ne.end(), shape.media_ne);
      auto [g, n_embd] = model_.build_graph(
          shape, [this](std::string_view name) { return model_.weight(name); }, "embeddings",
          "n_embd", Model::kAnyColumns);
      n_embd_ = static_cast<uint32_t>(n_embd);
      n_rows_ = static_cast<uint32_t>(g.tensor(g.find("embeddings")).ne[1]);
      keep_tensors(g, keep_, model_.arch().plugin);
      sched_.plan(std::move(g));
      planned_ = ne;
      ++plans_;
    }
    for (const graph::Tensor& t : sched_.graph().tensors())
      if ((t.flags & ZEN_TENSOR_INPUT) && t.name != "media")
        throw Error(ZEN_ERR_INVALID_ARG, model_.arch().plugin + ": graph input '" + t.name +
                                             "' is not one the runtime gives a media encoder "
                                             "(see zen/arch.h)");
    sched_.set_input("media", media.data(), media.size() * sizeof(float));
    sched_.compute();
    Rows out;
    out.n_embd = n_embd_;
    out.n_rows = n_rows_;
    out.data.resize(static_cast<size_t>(n_embd_) * n_rows_);
    sched_.get_output("embeddings", out.data.data(), out.data.size() * sizeof(float));
    kept_ = read_kept(sched_, keep_);
    return out;
  } catch (...) {
    planned_ = {};  // a failed build or compute leaves no plan worth trusting
    throw;
  }
}

}  // namespace zen::model
