// The Context on the paged KV cache, with real tiny models (tests/data/models/tiny) through the
// real architecture plugins and CPU device:
//  - gather_kv: a sequence decoded alone gets bit-identical logits wherever its blocks sit and
//    whatever else is cached (before, between and after its blocks);
//  - a prefix attached from the cache gives the logits of a full recompute;
//  - a failed decode leaves the cache as it was; decode steps reuse one plan;
//  - input embeddings given at some positions (what a media encoder hands a decoder) are read
//    exactly where the token's own row would have been.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <zen/plugin.hpp>

#include "tiny_host.h"

namespace zen {
namespace {

using Ids = std::vector<int32_t>;
using Rows = std::vector<std::vector<float>>;  // logits rows, in the order they came out

using test::load_model;
const std::string& kDir = test::kTinyModelsDir;

// The 40 token ids of the manifest's "long_random" prompt for this model (valid ids).
Ids token_ids(const std::string& model) {
  std::ifstream in(kDir + "manifest.json");
  const nlohmann::json m = nlohmann::json::parse(in);
  for (const auto& x : m.at("models"))
    if (x.at("name") == model)
      for (const auto& p : x.at("prompts"))
        if (p.at("name") == "long_random") return p.at("ids").get<Ids>();
  throw std::runtime_error("manifest: no long_random prompt for " + model);
}

model::ContextParams params(bool gather, uint32_t block = 4) {
  model::ContextParams p;
  p.n_ctx = 256;
  p.block_size = block;
  p.gather_kv = gather;
  return p;
}

Ids slice(const Ids& v, size_t from, size_t to) {
  return Ids(v.begin() + static_cast<ptrdiff_t>(from), v.begin() + static_cast<ptrdiff_t>(to));
}

// Decodes ids as one batch of seq continuing at pos0; returns every token's logits.
Rows decode(model::Context& ctx, const Ids& ids, int32_t pos0, int32_t seq) {
  ctx.decode(model::Batch::sequence(ids, pos0, seq, true));
  Rows out;
  for (size_t i = 0; i < ctx.n_outputs(); ++i)
    out.emplace_back(ctx.logits(i).begin(), ctx.logits(i).end());
  return out;
}

// Appends n filler tokens to another sequence (its logits are not looked at).
void occupy(model::Context& ctx, const Ids& ids, int32_t seq, size_t n) {
  const Ids fill = slice(ids, 0, n);
  ctx.decode(model::Batch::sequence(fill, ctx.kv().seq_len(seq), seq, false));
}

bool bit_identical(const Rows& a, const Rows& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].size() != b[i].size() ||
        std::memcmp(a[i].data(), b[i].data(), a[i].size() * sizeof(float)) != 0)
      return false;
  return true;
}

double max_abs_diff(const Rows& a, const Rows& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < a[i].size(); ++j)
      m = std::max(m, std::fabs(static_cast<double>(a[i][j]) - b[i][j]));
  return m;
}

class ContextOnTinyModel : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ids_ = token_ids(GetParam());
    lm_ = load_model(kDir + GetParam() + ".gguf", params(false));
  }
  std::unique_ptr<model::Context> context(const model::ContextParams& p) {
    return std::make_unique<model::Context>(lm_->model(), lm_->devices(), p);
  }

  // The sequence under test: a 20-token prompt, then 6 decode steps, each alone in its batch.
  // `between` runs before the prompt and after every step (other sequences' work).
  Rows run_subject(model::Context& ctx, int32_t seq, const std::function<void()>& between) {
    between();
    Rows out = decode(ctx, slice(ids_, 0, 20), 0, seq);
    for (int32_t pos = 20; pos < 26; ++pos) {
      between();
      Rows step = decode(ctx, slice(ids_, static_cast<size_t>(pos), static_cast<size_t>(pos) + 1),
                         pos, seq);
      out.push_back(step[0]);
    }
    return out;
  }

  Ids ids_;
  std::unique_ptr<host::LoadedModel> lm_;
};

TEST_P(ContextOnTinyModel, GatheredLogitsAreBitIdenticalWhereverTheBlocksSit) {
  auto alone = context(params(true));
  const Rows want = run_subject(*alone, 0, [] {});

  auto crowded = context(params(true));
  model::Context& ctx = *crowded;
  occupy(ctx, ids_, 10, 10);  // blocks 0-2
  occupy(ctx, ids_, 11, 8);   // blocks 3-4
  occupy(ctx, ids_, 12, 12);  // blocks 5-7
  ctx.kv().seq_free(11);      // a hole the subject's first blocks fall into
  int round = 0;
  const Rows got = run_subject(ctx, 3, [&] {
    if (round++ > 0) occupy(ctx, ids_, 13, 4);  // a block of someone else after each step
  });
  // The subject's cells really are scattered: before, between and after other sequences'.
  const model::KvCache& kv = ctx.kv();
  EXPECT_EQ(kv.cell(3, 0), 12);                                // the freed block 3
  EXPECT_GT(kv.cell(3, 8), kv.cell(12, 11));                   // after seq 12's blocks
  EXPECT_GT(kv.cell(3, 25), kv.cell(13, 0));                   // after seq 13's first block
  EXPECT_LT(kv.cell(3, 25), kv.cell(13, kv.seq_len(13) - 1));  // and before its last

  ASSERT_EQ(got.size(), want.size());
  EXPECT_TRUE(bit_identical(got, want)) << "max abs difference " << max_abs_diff(got, want);

  // Without gather_kv the same run attends over cells [0, n_kv): equal up to float rounding
  // (summation order over a different number of masked cells), not necessarily to the bit.
  auto plain_alone = context(params(false));
  auto plain_crowded = context(params(false));
  const Rows plain_want = run_subject(*plain_alone, 0, [] {});
  occupy(*plain_crowded, ids_, 10, 10);
  occupy(*plain_crowded, ids_, 11, 8);
  occupy(*plain_crowded, ids_, 12, 12);
  plain_crowded->kv().seq_free(11);
  round = 0;
  const Rows plain_got = run_subject(*plain_crowded, 3, [&] {
    if (round++ > 0) occupy(*plain_crowded, ids_, 13, 4);
  });
  // Rounding: relative to the logits' scale (float's 2^-24 grows through the layers; the
  // AVX-512 build's qwen3 differs by 1.5e-4 on logits up to 21, 7e-6 of them).
  double scale = 0;
  for (const auto& row : plain_want)
    for (float v : row) scale = std::max(scale, std::fabs(static_cast<double>(v)));
  const double bound = std::max(1e-4, 1e-5 * scale);
  std::printf("  %s: cell mode crowded vs alone: max abs %.3g (%s), logits up to %.3g\n",
              GetParam().c_str(), max_abs_diff(plain_got, plain_want),
              bit_identical(plain_got, plain_want) ? "bit-identical" : "not bit-identical", scale);
  EXPECT_LE(max_abs_diff(plain_got, plain_want), bound);
  // Gathering changes no result beyond rounding either.
  EXPECT_LE(max_abs_diff(want, plain_want), bound);
}

// The attached cells hold K/V that the same batch (same tokens, positions and graph shape)
// computed in both contexts, and with gather_kv the next batch reads the same rows in the same
// order: the computation is the same, so the logits are exactly equal. Without gather_kv the
// attention also spans other sequences' (masked) cells, so only float rounding separates them.
TEST_P(ContextOnTinyModel, AttachedPrefixGivesTheLogitsOfAFullRecompute) {
  const Ids p = slice(ids_, 0, 24);
  Ids q = slice(ids_, 0, 16);
  for (int32_t t : slice(ids_, 30, 38)) q.push_back(t);  // same first 16 tokens, other tail
  for (bool gather : {true, false}) {
    SCOPED_TRACE(gather ? "gather_kv" : "cell mode");
    auto shared = context(params(gather));
    decode(*shared, slice(p, 0, 16), 0, 0);
    decode(*shared, slice(p, 16, 24), 16, 0);
    shared->kv().publish(0, p);
    ASSERT_EQ(shared->kv().attach_prefix(1, q, static_cast<uint32_t>(q.size() - 1)), 16u);
    const Rows got = decode(*shared, slice(q, 16, 24), 16, 1);

    auto scratch = context(params(gather));
    decode(*scratch, slice(q, 0, 16), 0, 0);
    const Rows want = decode(*scratch, slice(q, 16, 24), 16, 0);
    if (gather)
      EXPECT_TRUE(bit_identical(got, want)) << "max abs difference " << max_abs_diff(got, want);
    else
      EXPECT_LE(max_abs_diff(got, want), 1e-4);
    EXPECT_EQ(shared->kv().stats().prefix_hit_tokens, 16u);
  }
}

TEST_P(ContextOnTinyModel, TwoSequencesInOneGatheredBatchMatchTheCellMode) {
  Rows got, want;
  for (bool gather : {true, false}) {
    auto ctx = context(params(gather));
    decode(*ctx, slice(ids_, 0, 9), 0, 0);
    decode(*ctx, slice(ids_, 20, 26), 0, 1);
    model::Batch b;  // 3 tokens of each, interleaved
    for (int32_t i = 0; i < 3; ++i)
      for (int32_t s : {0, 1}) {
        b.tokens.push_back(ids_[static_cast<size_t>(30 + 3 * s + i)]);
        b.positions.push_back(ctx->kv().seq_len(s) + i);
        b.seq_ids.push_back(s);
        b.logits.push_back(1);
      }
    ctx->decode(b);
    Rows& out = gather ? got : want;
    for (size_t i = 0; i < ctx->n_outputs(); ++i)
      out.emplace_back(ctx->logits(i).begin(), ctx->logits(i).end());
  }
  ASSERT_EQ(got.size(), 6u);
  EXPECT_LE(max_abs_diff(got, want), 1e-4);
}

TEST_P(ContextOnTinyModel, AFailedDecodeLeavesTheCacheAsItWas) {
  model::ContextParams small = params(false, 16);
  small.n_ctx = 32;  // 2 blocks
  small.n_batch = 16;
  auto ctx = context(small);
  decode(*ctx, slice(ids_, 0, 10), 0, 0);
  const uint32_t used = ctx->kv().stats().blocks_used;
  // 30 more tokens: the first micro-batch of 16 fits, the second cannot; both are undone.
  EXPECT_THROW(decode(*ctx, slice(ids_, 10, 40), 10, 0), Error);
  EXPECT_EQ(ctx->kv().seq_len(0), 10);
  EXPECT_EQ(ctx->kv().stats().blocks_used, used);
  // A token id past the vocabulary fails in compute: undone too.
  Ids bad = {ids_[10], ctx->n_vocab() + 5};
  EXPECT_THROW(decode(*ctx, bad, 10, 0), Error);
  EXPECT_EQ(ctx->kv().seq_len(0), 10);
  EXPECT_THROW(decode(*ctx, slice(ids_, 10, 11), 11, 0), Error);  // a gap: refused
  EXPECT_EQ(ctx->kv().seq_len(0), 10);

  const Rows got = decode(*ctx, slice(ids_, 10, 11), 10, 0);
  auto fresh = context(small);
  decode(*fresh, slice(ids_, 0, 10), 0, 0);
  const Rows want = decode(*fresh, slice(ids_, 10, 11), 10, 0);
  EXPECT_TRUE(bit_identical(got, want)) << "max abs difference " << max_abs_diff(got, want);
}

TEST_P(ContextOnTinyModel, DecodeStepsReuseOnePlan) {
  for (bool gather : {false, true}) {
    auto ctx = context(params(gather, 16));
    decode(*ctx, slice(ids_, 0, 8), 0, 0);
    EXPECT_EQ(ctx->plans(), 1u);
    for (int32_t pos = 8; pos < 20; ++pos)  // n_kv stays 32
      decode(*ctx, slice(ids_, static_cast<size_t>(pos), static_cast<size_t>(pos) + 1), pos, 0);
    EXPECT_EQ(ctx->plans(), 2u) << (gather ? "gather_kv" : "cell mode");
  }
}

// Named tensors kept for a dump (ContextParams::keep) change nothing the model computes, and
// hold what their names say: "result_norm" is what the (tied) output head multiplies, so the
// token embedding times it gives the logits.
TEST_P(ContextOnTinyModel, KeptTensorsHoldTheirValuesAndLeaveTheLogitsAsTheyWere) {
  const Ids prompt = slice(ids_, 0, 12);
  auto plain = context(params(false));
  const Rows want = decode(*plain, prompt, 0, 0);
  model::ContextParams p = params(false);
  p.keep = {"l_out-0", "attn_norm-1", "result_norm"};
  auto ctx = context(p);
  EXPECT_TRUE(bit_identical(decode(*ctx, prompt, 0, 0), want));

  ASSERT_EQ(ctx->kept().size(), 3u);
  const gguf::TensorInfo* embd = lm_->file().gguf().find_tensor("token_embd.weight");
  ASSERT_TRUE(embd && embd->type == ZEN_TYPE_F32);
  const int64_t n_embd = static_cast<int64_t>(embd->ne[0]);
  for (const model::KeptTensor& k : ctx->kept()) {
    EXPECT_EQ(k.ne[0], n_embd) << k.name;
    EXPECT_EQ(k.ne[1], 12) << k.name;  // every token's row (all logits were asked for)
  }
  const model::KeptTensor& norm = ctx->kept()[2];
  const float* table = reinterpret_cast<const float*>(embd->data);
  double worst = 0;
  for (size_t t = 0; t < want.size(); ++t)
    for (size_t v = 0; v < want[t].size(); ++v) {
      double dot = 0;
      for (int64_t e = 0; e < n_embd; ++e)
        dot += static_cast<double>(table[v * n_embd + e]) * norm.data[t * n_embd + e];
      worst = std::max(worst, std::fabs(dot - want[t][v]));
    }
  EXPECT_LT(worst, 1e-4);

  p.keep = {"no_such_tensor"};
  auto bad = context(p);
  try {
    decode(*bad, prompt, 0, 0);
    FAIL() << "an unknown name was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no tensor named 'no_such_tensor'"), std::string::npos)
        << e.what();
  }
}

// Token id's input row as the architecture reads it: the F32 table's row (gemma scales it by
// sqrt(n_embd) before given rows are put in).
std::vector<float> input_row(const model::Model& m, const std::string& arch, int32_t id) {
  const std::optional<graph::WeightInfo> w = m.weight("token_embd.weight");
  if (!w || w->type != ZEN_TYPE_F32 || !w->where.on_host()) return {};
  const size_t n_embd = static_cast<size_t>(w->ne[0]);
  const float* row = static_cast<const float*>(w->where.host) + static_cast<size_t>(id) * n_embd;
  std::vector<float> out(row, row + n_embd);
  if (arch == "gemma3")
    for (float& v : out) v *= std::sqrt(static_cast<float>(n_embd));
  return out;
}

TEST_P(ContextOnTinyModel, GivenEmbeddingsAreReadAtTheirPositions) {
  const Ids prompt = slice(ids_, 0, 20);
  if (input_row(lm_->model(), GetParam(), prompt[0]).empty())
    GTEST_SKIP() << "the token table is not F32 on the host";
  auto with_placeholders = [&](bool give) {
    model::Batch b = model::Batch::sequence(prompt, 0, 0, true);
    for (size_t i = 3; i < 11; ++i) {  // across the micro-batch edge at 8
      if (give) b.give(i, input_row(lm_->model(), GetParam(), prompt[i]));
      b.tokens[i] = (prompt[i] + 1) % 32;  // a placeholder: the row must come from `given`
    }
    return b;
  };
  model::ContextParams p = params(false);
  p.n_batch = 8;
  auto run = [&](const model::Batch& b) {
    auto ctx = context(p);
    ctx->decode(b);
    Rows out;
    for (size_t i = 0; i < ctx->n_outputs(); ++i)
      out.emplace_back(ctx->logits(i).begin(), ctx->logits(i).end());
    return out;
  };
  const Rows looked_up = run(model::Batch::sequence(prompt, 0, 0, true));
  const Rows given = run(with_placeholders(true));
  const Rows placeholders = run(with_placeholders(false));
  EXPECT_TRUE(bit_identical(looked_up, given)) << "max |diff| " << max_abs_diff(looked_up, given);
  EXPECT_GT(max_abs_diff(looked_up, placeholders), 1e-3);  // the placeholders alone differ

  model::Batch ragged = with_placeholders(true);
  ragged.given.pop_back();  // the last given row is cut short
  EXPECT_THROW(context(p)->decode(ragged), Error);
}

INSTANTIATE_TEST_SUITE_P(Tiny, ContextOnTinyModel, ::testing::Values("qwen3", "gemma3"));

}  // namespace
}  // namespace zen
