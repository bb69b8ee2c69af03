// zen-engine embed -m MODEL [TEXT ...] [--ids 1,2,3 ...] [--normalize] [--dump NAME ...] [--json]:
// the pooled vectors of an encoder model (core/model/encoder.h), one per text or id list, like
// llama.cpp's embedding tool. --dump keeps named intermediate tensors ("l_out-0") of the last
// graph and prints them too, to compare a model layer by layer with its reference.
#include <climits>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "context.h"
#include "loaded_model.h"
#include "options.h"
#include "tokenizer/tokenizer.h"

namespace zen::cli {
namespace {

void print_values(const char* label, const std::vector<float>& v) {
  std::printf("%s:", label);
  for (float x : v) std::printf(" %.6f", x);
  std::printf("\n");
}

}  // namespace

int cmd_embed(const Args& args, const GlobalOptions& global) {
  po::options_description desc("zen-engine embed options");
  std::string model;
  std::vector<std::string> texts, id_lists, dump;
  unsigned n_batch = 2048;
  desc.add_options()("model,m", po::value(&model), "GGUF encoder model file")(
      "text", po::value(&texts)->composing(), "a text to embed (also positional; repeatable)")(
      "ids", po::value(&id_lists)->composing(),
      "token ids to embed, e.g. 101,7592,102 (repeatable)")("normalize",
                                                            "scale every vector to L2 norm 1")(
      "dump", po::value(&dump)->composing(),
      "also print this named tensor, e.g. l_out-0 (repeatable)")(
      "batch-size,b", po::value(&n_batch)->default_value(2048), "most tokens per graph")(
      "json", "print one JSON object")("help,h", "show this help");
  ComputeFlags compute;
  compute.add_to(desc);
  po::positional_options_description positional;
  positional.add("text", -1);
  auto vm = parse(args, desc, &positional);
  if (vm.count("help") || model.empty() || (texts.empty() && id_lists.empty())) {
    std::cout << "usage: zen-engine embed -m MODEL [TEXT ...] [--ids 1,2,3 ...] [--normalize] "
                 "[--dump NAME ...] [--json]\n"
              << desc;
    return vm.count("help") ? 0 : 2;
  }
  std::vector<std::vector<int32_t>> seqs, id_seqs;
  try {
    for (const std::string& list : id_lists) {
      const std::vector<int> ids = parse_int_list(list, "--ids", 0, INT32_MAX);
      id_seqs.emplace_back(ids.begin(), ids.end());
    }
  } catch (const std::invalid_argument& e) {
    std::cerr << "zen-engine embed: " << e.what() << "\n";
    return 2;
  }
  auto host = make_context(global, [&](host::Config& c) { compute.apply(c); });
  host::LoadedModel lm(*host->plugins, host->config, model, {}, {n_batch, dump});
  model::Encoder& enc = lm.encoder();
  if (!texts.empty()) {
    const tokenizer::Tokenizer tok = tokenizer::Tokenizer::from_gguf(lm.file().gguf());
    for (const std::string& t : texts) seqs.push_back(tok.encode(t, true, false));
  }
  for (const std::vector<int32_t>& ids : id_seqs) seqs.push_back(ids);
  const auto vectors = enc.encode(seqs, vm.count("normalize") > 0);

  if (vm.count("json")) {
    nlohmann::json j = {{"model", model},
                        {"n_embd", enc.n_embd()},
                        {"embeddings", vectors},
                        {"tokens", seqs},
                        {"tensors", nlohmann::json::object()}};
    for (const model::KeptTensor& k : enc.kept())
      j["tensors"][k.name] = {{"ne", k.ne}, {"data", k.data}};
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::printf("model: %s (%s, %d dims)\ndevices: %s\n", model.c_str(),
              lm.file().architecture().c_str(), enc.n_embd(), lm.devices_summary().c_str());
  for (size_t i = 0; i < vectors.size(); ++i)
    print_values(
        ("embedding " + std::to_string(i) + " (" + std::to_string(seqs[i].size()) + " tokens)")
            .c_str(),
        vectors[i]);
  for (const model::KeptTensor& k : enc.kept())
    print_values(
        ("tensor " + k.name + " [" + std::to_string(k.ne[0]) + ", " + std::to_string(k.ne[1]) + "]")
            .c_str(),
        k.data);
  return 0;
}

}  // namespace zen::cli
