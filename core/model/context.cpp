#include "model/context.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string_view>

#include <zen/plugin.hpp>

#include "lora/apply.h"

namespace zen::model {
namespace {

constexpr std::string_view kMaskSwa = "kq_mask.swa";
constexpr uint32_t kRowPad = 32;

uint32_t default_ctx(const Model& m, uint32_t asked) {
  if (asked) return asked;
  return m.n_ctx_train() ? m.n_ctx_train() : 4096;
}

// "cache.k.12" -> (12, false); nullopt for any other name.
std::optional<std::pair<uint32_t, bool>> cache_name(std::string_view name) {
  constexpr std::string_view k = "cache.k.", v = "cache.v.";
  bool is_v = name.starts_with(v);
  if (!is_v && !name.starts_with(k)) return std::nullopt;
  std::string_view num = name.substr(k.size());
  uint32_t il = 0;
  auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), il);
  if (ec != std::errc() || end != num.data() + num.size()) return std::nullopt;
  return std::pair{il, is_v};
}

}  // namespace

Batch Batch::sequence(std::span<const int32_t> ids, int32_t pos0, int32_t seq, bool all_logits) {
  Batch b;
  const size_t n = ids.size();
  b.tokens.assign(ids.begin(), ids.end());
  b.positions.resize(n);
  for (size_t i = 0; i < n; ++i) b.positions[i] = pos0 + static_cast<int32_t>(i);
  b.seq_ids.assign(n, seq);
  b.logits.assign(n, all_logits ? 1 : 0);
  if (n) b.logits.back() = 1;
  return b;
}

void Batch::give(size_t i, std::span<const float> row) {
  if (i >= tokens.size()) throw Error(ZEN_ERR_INVALID_ARG, "batch: give() past the last token");
  if (n_embd_given == 0) n_embd_given = static_cast<uint32_t>(row.size());
  if (row.size() != n_embd_given || row.empty())
    throw Error(ZEN_ERR_INVALID_ARG, "batch: given rows differ in width (" +
                                         std::to_string(row.size()) + " vs " +
                                         std::to_string(n_embd_given) + ")");
  given_row.resize(tokens.size(), -1);
  given_row[i] = static_cast<int32_t>(given.size() / n_embd_given);
  given.insert(given.end(), row.begin(), row.end());
}

Context::Context(const Model& model, std::vector<graph::DeviceRef> devices, ContextParams params)
    : model_(model),
      params_(params),
      kv_(model.kv_layers(), default_ctx(model, params.n_ctx), params.kv_type, params.block_size),
      sched_(std::move(devices)) {
  params_.n_ctx = kv_.size();
  params_.lora_scale.resize(params_.lora.size(), 1.0f);
  for (float s : params_.lora_scale)
    if (!std::isfinite(s)) throw Error(ZEN_ERR_INVALID_ARG, "context: a LoRA scale is not finite");
  model_.expect_kind(ZEN_MODEL_DECODER);
  if (params_.n_batch == 0) throw Error(ZEN_ERR_INVALID_ARG, "context: n_batch must be > 0");
  // On a device that cannot read host memory the cache lives in the scheduler's mirror.
  kv_.set_row_access({[this](const void* base, uint64_t off, void* dst, uint64_t n) {
                        sched_.read_placed(base, off, dst, n);
                      },
                      [this](void* base, uint64_t off, const void* src, uint64_t n) {
                        sched_.write_placed(base, off, src, n);
                      }});
}

std::optional<graph::WeightInfo> Context::resolve(std::string_view name) const {
  if (auto c = cache_name(name)) {
    graph::WeightInfo w;
    auto [il, is_v] = *c;
    if (il >= kv_.layers().size()) return std::nullopt;
    const KvLayer& l = kv_.layers()[il];
    const uint32_t row = is_v ? l.v_row : l.k_row;
    if (row == 0) return std::nullopt;
    w.type = kv_.type();
    w.ne = {row, kv_.size(), 1, 1};
    w.where.host = kv_.data(il, is_v);
    w.state = true;
    return w;
  }
  if (auto w = lora::resolve(params_.lora, name)) return w;
  return model_.weight(name);
}

void Context::plan(const zen_batch& shape, std::vector<size_t> lora_active) {
  std::set<std::pair<size_t, std::string>> adapted;
  graph::MatmulHook hook;
  if (!lora_active.empty())
    hook = lora::matmul_hook(params_.lora, lora_active, shape.n_tokens, shape.n_outputs, &adapted);
  auto [g, n_vocab] = model_.build_graph(
      shape, [this](std::string_view n) { return resolve(n); }, "logits", "n_vocab",
      shape.n_outputs, hook);
  lora::check_all_applied(params_.lora, lora_active, adapted, model_.arch().plugin);
  if (shape.n_given > 0 && g.find("given_embd") == graph::kNoTensor)
    throw Error(ZEN_ERR_UNSUPPORTED, model_.arch().plugin +
                                         ": the graph does not read given input embeddings "
                                         "(\"given_embd\", ABI 1.5), so it takes no image or "
                                         "audio input");
  if (shape.gather_kv && kv_.bytes() > 0 && g.find("kv_rows") == graph::kNoTensor)
    throw Error(ZEN_ERR_UNSUPPORTED, model_.arch().plugin +
                                         ": the graph does not read the gathered cache rows "
                                         "(\"kv_rows\", ABI 1.2) that deterministic mode needs");
  n_vocab_ = static_cast<int32_t>(n_vocab);
  keep_tensors(g, params_.keep, model_.arch().plugin);
  sched_.plan(std::move(g));
  planned_tokens_ = shape.n_tokens;
  planned_kv_ = shape.n_kv;
  planned_outputs_ = shape.n_outputs;
  planned_given_ = shape.n_given;
  planned_lora_ = std::move(lora_active);
  ++plans_;
}

void Context::set_inputs(const Batch& b, size_t begin, size_t end, std::span<const int32_t> slots,
                         uint32_t n_kv, const std::vector<int32_t>& out_ids) {
  const size_t n = end - begin;
  std::span<const int32_t> pos(b.positions.data() + begin, n), seq(b.seq_ids.data() + begin, n);
  for (const graph::Tensor& t : sched_.graph().tensors()) {
    if (!(t.flags & ZEN_TENSOR_INPUT)) continue;
    std::string_view name = t.name;
    auto put = [&](const void* data, uint64_t bytes) { sched_.set_input(name, data, bytes); };
    if (name == "tokens") {
      put(b.tokens.data() + begin, n * sizeof(int32_t));
    } else if (name == "positions") {
      put(pos.data(), n * sizeof(int32_t));
    } else if (name == "kv_slots") {
      put(slots.data(), n * sizeof(int32_t));
    } else if (name == "out_ids") {
      put(out_ids.data(), out_ids.size() * sizeof(int32_t));
    } else if (name == "kv_rows") {
      put(rows_.data(), rows_.size() * sizeof(int32_t));
    } else if (name == "given_embd") {
      put(given_.data(), given_.size() * sizeof(float));
    } else if (name == "embd_pick") {
      put(pick_.data(), pick_.size() * sizeof(int32_t));
    } else if (name.starts_with("lora_scale")) {
      const bool outs = name.starts_with("lora_scale_out.");
      const std::string_view num = name.substr(outs ? 15 : 11);
      const size_t na = params_.lora.size();
      size_t a = 0;
      auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), a);
      if (ec != std::errc() || p != num.data() + num.size() || a >= na)
        throw Error(ZEN_ERR_INVALID_ARG, "graph input '" + t.name + "': no such LoRA adapter");
      lora_column_.clear();
      const float fold = params_.lora[a]->fold;  // lora/apply.h: the common fold rides here
      if (outs)
        for (int32_t o : out_ids) lora_column_.push_back(lora_token_[o * na + a] * fold);
      else
        for (size_t i = 0; i < n; ++i) lora_column_.push_back(lora_token_[i * na + a] * fold);
      put(lora_column_.data(), lora_column_.size() * sizeof(float));
    } else if (name == "kq_mask" || name.starts_with(kMaskSwa)) {
      uint32_t window = 0;
      if (name != "kq_mask") {
        std::string_view w = name.substr(kMaskSwa.size());
        auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), window);
        if (ec != std::errc() || p != w.data() + w.size() || window == 0)
          throw Error(ZEN_ERR_INVALID_ARG, "graph input '" + t.name + "': bad window size");
      }
      mask_.resize(static_cast<size_t>(n_kv) * n);
      if (params_.gather_kv)
        fill_gathered_mask(mask_.data(), n_kv, pos, seq, window);
      else
        kv_.fill_mask(mask_.data(), n_kv, pos, seq, window);
      put(mask_.data(), mask_.size() * sizeof(float));
    } else {
      throw Error(ZEN_ERR_INVALID_ARG, model_.arch().plugin + ": graph input '" + t.name +
                                           "' is not one the runtime provides (see zen/arch.h)");
    }
  }
}

uint32_t Context::gather_rows(std::span<const int32_t> seqs) {
  row_start_.clear();
  rows_.clear();
  for (size_t i = 0; i < seqs.size(); ++i) {
    if (i > 0 && seqs[i] == seqs[i - 1]) continue;
    auto seen = [&](const auto& r) { return r.first == seqs[i]; };
    if (std::any_of(row_start_.begin(), row_start_.end(), seen)) continue;
    row_start_.emplace_back(seqs[i], static_cast<uint32_t>(rows_.size()));
    kv_.seq_cells(seqs[i], rows_);
  }
  // Padding rows read cell 0 and are masked; the pad keeps decode steps on one graph shape.
  const size_t padded = std::max<size_t>(kRowPad, (rows_.size() + kRowPad - 1) / kRowPad * kRowPad);
  rows_.resize(padded, 0);
  return static_cast<uint32_t>(padded);
}

void Context::fill_gathered_mask(float* mask, uint32_t n_rows, std::span<const int32_t> positions,
                                 std::span<const int32_t> seqs, uint32_t window) const {
  constexpr float kHidden = -std::numeric_limits<float>::infinity();
  std::fill(mask, mask + positions.size() * n_rows, kHidden);
  uint32_t start = 0;
  for (size_t t = 0; t < positions.size(); ++t) {
    if (t == 0 || seqs[t] != seqs[t - 1])
      for (const auto& [seq, first] : row_start_)
        if (seq == seqs[t]) start = first;
    // Row start + q holds position q; query t sees q <= its position (and inside the window).
    const int32_t p = positions[t];
    const int32_t lo = window > 0 ? std::max<int32_t>(0, p - static_cast<int32_t>(window) + 1) : 0;
    float* row = mask + t * n_rows;
    for (int32_t q = lo; q <= p; ++q) row[start + static_cast<uint32_t>(q)] = 0.0f;
  }
}

uint32_t Context::pick_given(const Batch& b, size_t begin, size_t end) {
  given_.clear();
  pick_.clear();
  if (b.given_row.empty()) return 0;
  const size_t n = end - begin, width = b.n_embd_given;
  for (size_t t = 0; t < n; ++t) {
    const int32_t row = b.given_row[begin + t];
    if (row < 0) {
      pick_.push_back(static_cast<int32_t>(t));
      continue;
    }
    pick_.push_back(static_cast<int32_t>(n + given_.size() / width));
    const float* src = b.given.data() + static_cast<size_t>(row) * width;
    given_.insert(given_.end(), src, src + width);
  }
  return static_cast<uint32_t>(given_.size() / std::max<size_t>(width, 1));
}

std::vector<size_t> Context::lora_active(const Batch& b, size_t begin, size_t end) {
  const size_t na = params_.lora.size();
  lora_token_.clear();
  if (na == 0) return {};
  for (size_t i = begin; i < end; ++i) {
    const float* row = b.lora_scales.empty() ? params_.lora_scale.data() : &b.lora_scales[i * na];
    lora_token_.insert(lora_token_.end(), row, row + na);
  }
  std::vector<size_t> active;
  for (size_t a = 0; a < na; ++a)
    for (size_t i = 0; i < end - begin; ++i)
      if (lora_token_[i * na + a] != 0.0f) {
        active.push_back(a);
        break;
      }
  return active;
}

void Context::run(const Batch& b, size_t begin, size_t end) {
  const uint32_t n = static_cast<uint32_t>(end - begin);
  std::span<const int32_t> pos(b.positions.data() + begin, n), seq(b.seq_ids.data() + begin, n);
  std::vector<int32_t> slots = kv_.append(pos, seq);
  if (slots.size() != n) {
    throw Error(ZEN_ERR_OUT_OF_MEMORY,
                "KV cache full: " + std::to_string(n) + " tokens do not fit; " +
                    std::to_string(kv_.blocks_available()) + " of " +
                    std::to_string(kv_.n_blocks()) + " blocks of " +
                    std::to_string(kv_.block_size()) + " cells are available");
  }
  std::vector<int32_t> out_ids;
  for (uint32_t i = 0; i < n; ++i)
    if (b.logits[begin + i]) out_ids.push_back(static_cast<int32_t>(i));
  // A graph needs an output: a micro-batch that wants no logits computes the last token's
  // (one output-head row) and drops them.
  const bool keep = !out_ids.empty();
  if (!keep) out_ids.push_back(static_cast<int32_t>(n - 1));
  try {
    zen_batch shape{};
    shape.h = ZEN_HDR_INIT(zen_batch);
    shape.n_tokens = n;
    shape.tokens = b.tokens.data() + begin;
    shape.positions = pos.data();
    shape.seq_ids = seq.data();
    shape.logits = b.logits.data() + begin;
    shape.kv_size = kv_.size();
    shape.n_kv = params_.gather_kv ? gather_rows(seq) : kv_.n_kv(kRowPad);
    shape.gather_kv = params_.gather_kv ? 1 : 0;
    shape.n_outputs = static_cast<uint32_t>(out_ids.size());
    shape.n_given = pick_given(b, begin, end);
    std::vector<size_t> lora = lora_active(b, begin, end);
    if (shape.n_tokens != planned_tokens_ || shape.n_kv != planned_kv_ ||
        shape.n_outputs != planned_outputs_ || shape.n_given != planned_given_ ||
        lora != planned_lora_)
      plan(shape, std::move(lora));
    set_inputs(b, begin, end, slots, shape.n_kv, out_ids);
    sched_.compute();
    if (keep) {
      const size_t have = logits_.size();
      logits_.resize(have + out_ids.size() * static_cast<size_t>(n_vocab_));
      sched_.get_output("logits", logits_.data() + have, (logits_.size() - have) * sizeof(float));
      n_outputs_ += out_ids.size();
    }
    kept_ = read_kept(sched_, params_.keep);
  } catch (...) {
    planned_tokens_ = 0;  // a failed build or compute leaves no plan worth trusting
    throw;
  }
}

void Context::decode(const Batch& b) {
  const size_t n = b.tokens.size();
  if (b.positions.size() != n || b.seq_ids.size() != n || b.logits.size() != n)
    throw Error(ZEN_ERR_INVALID_ARG, "batch: tokens, positions, seq_ids and logits differ in size");
  if (n == 0) throw Error(ZEN_ERR_INVALID_ARG, "batch: no tokens");
  if (!b.given_row.empty() && b.given_row.size() != n)
    throw Error(ZEN_ERR_INVALID_ARG, "batch: given_row and tokens differ in size");
  for (int32_t row : b.given_row)
    if (row >= 0 && (static_cast<size_t>(row) + 1) * b.n_embd_given > b.given.size())
      throw Error(ZEN_ERR_INVALID_ARG,
                  "batch: given_row " + std::to_string(row) + " is past the given rows");
  if (!b.lora_scales.empty() && b.lora_scales.size() != n * params_.lora.size())
    throw Error(ZEN_ERR_INVALID_ARG, "batch: " + std::to_string(b.lora_scales.size()) +
                                         " LoRA scales for " + std::to_string(n) + " tokens and " +
                                         std::to_string(params_.lora.size()) + " adapters");
  for (float s : b.lora_scales)
    if (!std::isfinite(s)) throw Error(ZEN_ERR_INVALID_ARG, "batch: a LoRA scale is not finite");
  for (size_t i = 0; i < n; ++i)
    if (b.positions[i] < 0 || b.seq_ids[i] < 0)
      throw Error(ZEN_ERR_INVALID_ARG,
                  "batch: negative position or sequence id at token " + std::to_string(i));
  // What each sequence held before: a failure in any micro-batch cuts the cache back to it.
  std::vector<std::pair<int32_t, int32_t>> held;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && b.seq_ids[i] == b.seq_ids[i - 1]) continue;
    auto same = [&](const auto& h) { return h.first == b.seq_ids[i]; };
    if (std::none_of(held.begin(), held.end(), same))
      held.emplace_back(b.seq_ids[i], kv_.seq_len(b.seq_ids[i]));
  }
  logits_.clear();
  n_outputs_ = 0;
  try {
    for (size_t begin = 0; begin < n; begin += params_.n_batch)
      run(b, begin, std::min(n, begin + params_.n_batch));
  } catch (...) {
    for (const auto& [seq, len] : held) kv_.seq_truncate(seq, len);
    logits_.clear();
    n_outputs_ = 0;
    throw;
  }
}

int32_t Context::probe_n_vocab() {
  if (n_vocab_ == 0) {
    const int32_t len = kv_.seq_len(0);
    decode(Batch::sequence(std::vector<int32_t>{0}, len, 0, false));
    kv_.seq_truncate(0, len);
  }
  return n_vocab_;
}

std::span<const float> Context::logits(size_t i) const {
  if (i >= n_outputs_)
    throw Error(ZEN_ERR_INVALID_ARG, "logits: row " + std::to_string(i) + " of " +
                                         std::to_string(n_outputs_) + " requested");
  return {logits_.data() + i * static_cast<size_t>(n_vocab_), static_cast<size_t>(n_vocab_)};
}

}  // namespace zen::model
