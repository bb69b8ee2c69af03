#include "model/encoder.h"

#include <charconv>
#include <cmath>
#include <limits>

#include <zen/plugin.hpp>

namespace zen::model {

Encoder::Encoder(const Model& model, std::vector<graph::DeviceRef> devices, EncoderParams params)
    : model_(model), params_(std::move(params)), sched_(std::move(devices)) {
  model_.expect_kind(ZEN_MODEL_ENCODER);
  if (params_.n_batch == 0) throw Error(ZEN_ERR_INVALID_ARG, "encoder: n_batch must be > 0");
}

uint32_t Encoder::max_tokens() const {
  return model_.n_ctx_train() ? std::min(model_.n_ctx_train(), params_.n_batch) : params_.n_batch;
}

std::vector<std::vector<float>> Encoder::encode(std::span<const std::vector<int32_t>> seqs,
                                                bool normalize,
                                                std::span<const std::vector<int32_t>> types) {
  if (!types.empty() && types.size() != seqs.size())
    throw Error(ZEN_ERR_INVALID_ARG, "encoder: token types for " + std::to_string(types.size()) +
                                         " of " + std::to_string(seqs.size()) + " sequences");
  for (size_t i = 0; i < types.size(); ++i)
    if (types[i].size() != seqs[i].size())
      throw Error(ZEN_ERR_INVALID_ARG, "encoder: sequence " + std::to_string(i) + " has " +
                                           std::to_string(seqs[i].size()) + " tokens but " +
                                           std::to_string(types[i].size()) + " token types");
  const uint32_t limit = max_tokens();
  for (size_t i = 0; i < seqs.size(); ++i)
    if (seqs[i].empty() || seqs[i].size() > limit)
      throw Error(ZEN_ERR_INVALID_ARG,
                  "encoder: sequence " + std::to_string(i) + " has " +
                      std::to_string(seqs[i].size()) + " tokens; 1 to " + std::to_string(limit) +
                      (limit == params_.n_batch ? " fit one batch" : " fit the model's context"));
  std::vector<std::vector<float>> out;
  out.reserve(seqs.size());
  for (size_t begin = 0; begin < seqs.size();) {
    size_t end = begin, tokens = 0;
    while (end < seqs.size() && tokens + seqs[end].size() <= params_.n_batch)
      tokens += seqs[end++].size();
    run(seqs.subspan(begin, end - begin), types.empty() ? types : types.subspan(begin, end - begin),
        out);
    begin = end;
  }
  if (normalize)
    for (std::vector<float>& v : out) {
      double sum = 0;
      for (float x : v) sum += static_cast<double>(x) * x;
      const float inv = sum > 0 ? static_cast<float>(1.0 / std::sqrt(sum)) : 0.0f;
      for (float& x : v) x *= inv;
    }
  return out;
}

void Encoder::run(std::span<const std::vector<int32_t>> seqs,
                  std::span<const std::vector<int32_t>> types,
                  std::vector<std::vector<float>>& out) {
  tokens_.clear();
  positions_.clear();
  seq_ids_.clear();
  types_.clear();
  for (size_t s = 0; s < seqs.size(); ++s)
    for (size_t i = 0; i < seqs[s].size(); ++i) {
      tokens_.push_back(seqs[s][i]);
      positions_.push_back(static_cast<int32_t>(i));
      seq_ids_.push_back(static_cast<int32_t>(s));
      types_.push_back(types.empty() ? 0 : types[s][i]);
    }
  zen_batch shape{};
  shape.h = ZEN_HDR_INIT(zen_batch);
  shape.n_tokens = static_cast<uint32_t>(tokens_.size());
  shape.tokens = tokens_.data();
  shape.positions = positions_.data();
  shape.seq_ids = seq_ids_.data();
  shape.n_seqs = static_cast<uint32_t>(seqs.size());
  shape.n_outputs = shape.n_seqs;
  try {
    if (shape.n_tokens != planned_tokens_ || shape.n_seqs != planned_seqs_) plan(shape);
    set_inputs(seqs);
    sched_.compute();
    std::vector<float> all(static_cast<size_t>(n_embd_) * seqs.size());
    sched_.get_output("embeddings", all.data(), all.size() * sizeof(float));
    for (size_t s = 0; s < seqs.size(); ++s)
      out.emplace_back(all.begin() + static_cast<ptrdiff_t>(s * n_embd_),
                       all.begin() + static_cast<ptrdiff_t>((s + 1) * n_embd_));
    kept_ = read_kept(sched_, params_.keep);
  } catch (...) {
    planned_tokens_ = 0;  // a failed build or compute leaves no plan worth trusting
    throw;
  }
}

void Encoder::plan(const zen_batch& shape) {
  auto [g, n_embd] = model_.build_graph(
      shape, [this](std::string_view name) { return model_.weight(name); }, "embeddings", "n_embd",
      shape.n_seqs);
  n_embd_ = static_cast<int32_t>(n_embd);
  keep_tensors(g, params_.keep, model_.arch().plugin);
  sched_.plan(std::move(g));
  planned_tokens_ = shape.n_tokens;
  planned_seqs_ = shape.n_seqs;
  ++plans_;
}

void Encoder::fill_mask(std::string_view name) {
  // "kq_mask", "kq_mask.causal", either with ".swa<W>" (zen/arch.h): row q (a query) sees the
  // keys of its own sequence, only those at or before it when causal, only those fewer than W
  // positions away with a window.
  std::string_view rest = name.substr(std::string_view("kq_mask").size());
  const bool causal = rest.starts_with(".causal");
  if (causal) rest.remove_prefix(std::string_view(".causal").size());
  int64_t window = 0;
  if (rest.starts_with(".swa")) {
    rest.remove_prefix(4);
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), window);
    if (ec != std::errc() || window <= 0)
      rest = "?";
    else
      rest = std::string_view(end, rest.data() + rest.size());
  }
  if (!rest.empty())
    throw Error(ZEN_ERR_INVALID_ARG, model_.arch().plugin + ": graph input '" + std::string(name) +
                                         "' is not a mask the runtime gives an encoder "
                                         "(kq_mask[.causal][.swa<W>], see zen/arch.h)");
  const size_t n = tokens_.size();
  mask_.assign(n * n, -std::numeric_limits<float>::infinity());
  for (size_t q = 0; q < n; ++q) {
    const size_t first = q - static_cast<size_t>(positions_[q]);
    for (size_t k = first; k < n && seq_ids_[k] == seq_ids_[q]; ++k) {
      const int64_t distance = positions_[q] - positions_[k];
      if (causal && distance < 0) break;
      if (window > 0 && (distance >= window || -distance >= window)) continue;
      mask_[q * n + k] = 0.0f;
    }
  }
}

void Encoder::set_inputs(std::span<const std::vector<int32_t>> seqs) {
  const size_t n = tokens_.size(), n_seqs = seqs.size();
  for (const graph::Tensor& t : sched_.graph().tensors()) {
    if (!(t.flags & ZEN_TENSOR_INPUT)) continue;
    const std::string_view name = t.name;
    auto put = [&](const auto& v) { sched_.set_input(name, v.data(), v.size() * sizeof(v[0])); };
    if (name == "tokens") {
      put(tokens_);
    } else if (name == "positions") {
      put(positions_);
    } else if (name == "token_types") {
      put(types_);
    } else if (name.starts_with("kq_mask")) {
      fill_mask(name);
      put(mask_);
    } else if (name == "seq_mean") {
      mean_.assign(n * n_seqs, 0.0f);
      for (size_t t = 0; t < n; ++t) {
        const size_t s = static_cast<size_t>(seq_ids_[t]);
        mean_[s * n + t] = 1.0f / static_cast<float>(seqs[s].size());
      }
      put(mean_);
    } else if (name == "seq_first" || name == "seq_last") {
      first_.clear();
      last_.clear();
      int32_t start = 0;
      for (const std::vector<int32_t>& s : seqs) {
        first_.push_back(start);
        start += static_cast<int32_t>(s.size());
        last_.push_back(start - 1);
      }
      put(name == "seq_first" ? first_ : last_);
    } else {
      throw Error(ZEN_ERR_INVALID_ARG, model_.arch().plugin + ": graph input '" + t.name +
                                           "' is not one the runtime gives an encoder "
                                           "(see zen/arch.h)");
    }
  }
}

}  // namespace zen::model
