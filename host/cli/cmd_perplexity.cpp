// zen-engine perplexity -m MODEL -f TEXT [-c 512] [--chunks N] [--logits-out FILE]: the options
// and output of core/model/perplexity.h (llama.cpp's method; the logits file's layout).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "context.h"
#include "loaded_model.h"
#include "model/perplexity.h"
#include "options.h"
#include "tokenizer/tokenizer.h"

namespace zen::cli {
int cmd_perplexity(const Args& args, const GlobalOptions& global) {
  po::options_description desc("zen-engine perplexity options");
  std::string model, text_file, logits_out;
  unsigned n_ctx = 512, n_batch = 0;
  int max_chunks = -1;
  desc.add_options()("model,m", po::value(&model), "GGUF model file")(
      "file,f", po::value(&text_file), "text file")(
      "ctx-size,c", po::value(&n_ctx)->default_value(512), "tokens per chunk")(
      "batch-size,b", po::value(&n_batch),
      "tokens per micro-batch (default: the chunk, at most 512; 1: token by token, as decoding)")(
      "chunks", po::value(&max_chunks)->default_value(-1), "most chunks to evaluate (-1 = all)")(
      "logits-out", po::value(&logits_out), "save every position's logits here")("help,h",
                                                                                 "show this help");
  ComputeFlags compute;
  compute.add_to(desc);
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

  auto host = make_context(global, [&](host::Config& c) { compute.apply(c); });
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
  }
  model::PerplexityOptions po;
  po.n_ctx = n_ctx;
  po.n_chunks = n_chunks;
  po.bos = tok.add_bos() ? tok.bos() : -1;
  po.n_vocab = static_cast<uint32_t>(tok.n_vocab());
  po.logits = out.is_open() ? &out : nullptr;
  const model::Perplexity p = model::perplexity(lm.context(), ids, po, [](size_t c, double ppl) {
    std::fprintf(stderr, "[%zu]%.4f,", c, ppl);
  });
  std::printf("\nFinal estimate: PPL = %.4f +/- %.5f\n", p.value, p.error);
  return 0;
}

}  // namespace zen::cli
