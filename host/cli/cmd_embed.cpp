// zen-engine embed -m MODEL [TEXT ...] [--ids 1,2,3 ...] [--normalize] [--dump NAME ...] [--json]:
// the pooled vectors of an encoder model (core/model/encoder.h), one per text or id list, like
// llama.cpp's embedding tool. --dump keeps named intermediate tensors ("l_out-0") of the last
// graph and prints them too, to compare a model layer by layer with its reference. With
// --media FILE --media-shape W,H,C (raw little-endian F32) it runs an image/audio encoder
// (core/model/media_encoder.h) and prints the rows a decoder would read.
#include <array>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "context.h"
#include "loaded_model.h"
#include "model/media_encoder.h"
#include "options.h"
#include "tokenizer/tokenizer.h"

namespace zen::cli {
namespace {

void print_values(const char* label, const std::vector<float>& v) {
  std::printf("%s:", label);
  for (float x : v) std::printf(" %.6f", x);
  std::printf("\n");
}

int embed_media(host::LoadedModel& lm, const std::string& path, const std::string& shape,
                const std::vector<std::string>& dump, bool json) {
  std::array<uint32_t, 4> ne{1, 1, 1, 1};
  const std::vector<int> dims = parse_int_list(shape, "--media-shape", 1, INT32_MAX);
  if (dims.empty() || dims.size() > 4)
    throw std::invalid_argument("--media-shape takes 1 to 4 sizes, e.g. 224,224,3");
  std::copy(dims.begin(), dims.end(), ne.begin());
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.eof() && !in) throw Error(ZEN_ERR_IO, "cannot read " + path);
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  model::MediaEncoder enc(lm.model(), lm.devices(), dump);
  const model::MediaEncoder::Rows rows = enc.encode(values, ne);
  if (json) {
    nlohmann::json j = {{"n_embd", rows.n_embd}, {"rows", nlohmann::json::array()}};
    for (uint32_t i = 0; i < rows.n_rows; ++i) j["rows"].push_back(rows.row(i));
    for (const model::KeptTensor& k : enc.kept())
      j["tensors"][k.name] = {{"ne", k.ne}, {"data", k.data}};
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::printf("%u rows of %u\n", rows.n_rows, rows.n_embd);
  for (uint32_t i = 0; i < rows.n_rows; ++i) {
    const std::span<const float> r = rows.row(i);
    print_values(("row " + std::to_string(i)).c_str(), std::vector<float>(r.begin(), r.end()));
  }
  return 0;
}

}  // namespace

int cmd_embed(const Args& args, const GlobalOptions& global) {
  po::options_description desc("zen-engine embed options");
  std::string model;
  std::vector<std::string> texts, id_lists, dump;
  std::string media, media_shape;
  unsigned n_batch = 2048;
  desc.add_options()("model,m", po::value(&model), "GGUF encoder model file")(
      "text", po::value(&texts)->composing(), "a text to embed (also positional; repeatable)")(
      "ids", po::value(&id_lists)->composing(),
      "token ids to embed, e.g. 101,7592,102 (repeatable)")("normalize",
                                                            "scale every vector to L2 norm 1")(
      "dump", po::value(&dump)->composing(),
      "also print this named tensor, e.g. l_out-0 (repeatable)")(
      "batch-size,b", po::value(&n_batch)->default_value(2048), "most tokens per graph")(
      "media", po::value(&media), "raw F32 input of an image/audio encoder")(
      "media-shape", po::value(&media_shape), "its shape, e.g. 224,224,3")(
      "json", "print one JSON object")("help,h", "show this help");
  ComputeFlags compute;
  compute.add_to(desc);
  po::positional_options_description positional;
  positional.add("text", -1);
  auto vm = parse(args, desc, &positional);
  if (vm.count("help") || model.empty() || (texts.empty() && id_lists.empty() && media.empty())) {
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
  if (!media.empty()) return embed_media(lm, media, media_shape, dump, vm.count("json") > 0);
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
