// zen-engine perplexity -m MODEL -f TEXT [-c 512] [--chunks N] [--logits-out FILE]: the text's
// tokens split into chunks of c tokens, each evaluated from an empty cache (its first token
// replaced by BOS when the model adds one), the negative log-likelihood taken over the second
// half of every chunk, as llama.cpp's perplexity tool does, so the figures compare.
//
// --logits-out writes every position's logits for comparison with another engine:
//   "ZENLGT01" | u32 n_vocab | u32 n_ctx | u32 n_chunks |
//   per chunk: i32 tokens[n_ctx], f32 logits[n_ctx][n_vocab]   (little-endian)
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "context.h"
#include "loaded_model.h"
#include "options.h"
#include "tokenizer/tokenizer.h"

namespace zen::cli {
namespace {

// log-softmax(logits)[target], in double for a stable sum over thousands of positions.
double log_prob(std::span<const float> logits, int32_t target) {
  float mx = logits[0];
  for (float x : logits) mx = std::max(mx, x);
  double sum = 0;
  for (float x : logits) sum += std::exp(static_cast<double>(x - mx));
  return static_cast<double>(logits[static_cast<size_t>(target)] - mx) - std::log(sum);
}

template <class T>
void put(std::ofstream& out, const T& v) {
  out.write(reinterpret_cast<const char*>(&v), sizeof v);
}

}  // namespace

int cmd_perplexity(const Args& args, const GlobalOptions& global) {
  po::options_description desc("zen-engine perplexity options");
  std::string model, text_file, logits_out;
  unsigned threads = 0, n_ctx = 512, n_batch = 0;
  int max_chunks = -1;
  desc.add_options()("model,m", po::value(&model), "GGUF model file")(
      "file,f", po::value(&text_file), "text file")(
      "ctx-size,c", po::value(&n_ctx)->default_value(512), "tokens per chunk")(
      "batch-size,b", po::value(&n_batch),
      "tokens per micro-batch (default: the chunk, at most 512; 1: token by token, as decoding)")(
      "chunks", po::value(&max_chunks)->default_value(-1), "most chunks to evaluate (-1 = all)")(
      "threads,t", po::value(&threads), "CPU threads")(
      "logits-out", po::value(&logits_out), "save every position's logits here")("help,h",
                                                                                 "show this help");
  DeviceFlags devices;
  devices.add_to(desc);
  auto vm = parse(args, desc);
  if (vm.count("help") || model.empty() || text_file.empty()) {
    std::cout << "usage: zen-engine perplexity -m MODEL -f TEXT [-c 512] [-b N] [--chunks N] "
                 "[--logits-out FILE]\n"
              << desc;
    return vm.count("help") ? 0 : 2;
  }
  std::ifstream in(text_file, std::ios::binary);
  if (!in) {
    std::cerr << "zen-engine perplexity: cannot read '" << text_file << "'\n";
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  if (n_ctx < 4) {
    std::cerr << "zen-engine perplexity: --ctx-size must be at least 4\n";
    return 2;
  }

  auto host = make_context(global, [&](host::Config& c) {
    if (threads) c.cpu_threads = threads;
    devices.apply(c);
  });
  model::ContextParams params;
  params.n_ctx = n_ctx;
  params.n_batch = n_batch ? std::min(n_batch, n_ctx) : std::min(n_ctx, 512u);
  host::LoadedModel lm(*host->plugins, host->config, model, params);
  const tokenizer::Tokenizer tok = tokenizer::Tokenizer::from_gguf(lm.file().gguf());
  const std::vector<int32_t> ids = tok.encode(ss.str(), true, false);
  size_t n_chunks = ids.size() / n_ctx;
  if (max_chunks >= 0) n_chunks = std::min(n_chunks, static_cast<size_t>(max_chunks));
  if (n_chunks == 0) {
    std::cerr << "zen-engine perplexity: the text has " << ids.size()
              << " tokens, fewer than one chunk of " << n_ctx << "\n";
    return 1;
  }
  std::fprintf(stderr, "%zu tokens, %zu chunks of %u\n", ids.size(), n_chunks, n_ctx);

  std::ofstream out;
  if (!logits_out.empty()) {
    out.open(logits_out, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(ZEN_ERR_IO, "cannot write '" + logits_out + "'");
    out.write("ZENLGT01", 8);
    put(out, static_cast<uint32_t>(tok.n_vocab()));
    put(out, static_cast<uint32_t>(n_ctx));
    put(out, static_cast<uint32_t>(n_chunks));
  }
  model::Context& ctx = lm.context();
  const size_t first = n_ctx / 2;
  double nll = 0, nll2 = 0;
  size_t count = 0;
  for (size_t c = 0; c < n_chunks; ++c) {
    std::vector<int32_t> chunk(ids.begin() + static_cast<ptrdiff_t>(c * n_ctx),
                               ids.begin() + static_cast<ptrdiff_t>((c + 1) * n_ctx));
    if (tok.add_bos() && tok.bos() >= 0) chunk[0] = tok.bos();
    ctx.kv().clear();
    ctx.decode(model::Batch::sequence(chunk, 0, 0, true));
    if (out.is_open()) {
      for (int32_t t : chunk) put(out, t);
      for (size_t i = 0; i < n_ctx; ++i) {
        std::span<const float> row = ctx.logits(i);
        out.write(reinterpret_cast<const char*>(row.data()),
                  static_cast<std::streamsize>(row.size_bytes()));
      }
    }
    for (size_t i = first; i + 1 < n_ctx; ++i) {
      const double lp = -log_prob(ctx.logits(i), chunk[i + 1]);
      nll += lp;
      nll2 += lp * lp;
      ++count;
    }
    std::fprintf(stderr, "[%zu]%.4f,", c + 1, std::exp(nll / static_cast<double>(count)));
  }
  const double mean = nll / static_cast<double>(count);
  const double var = nll2 / static_cast<double>(count) - mean * mean;
  const double err = count > 1 ? std::sqrt(std::max(var, 0.0) / static_cast<double>(count - 1)) : 0;
  std::printf("\nFinal estimate: PPL = %.4f +/- %.5f\n", std::exp(mean), std::exp(mean) * err);
  return 0;
}

}  // namespace zen::cli
