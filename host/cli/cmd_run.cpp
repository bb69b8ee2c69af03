// zen-engine run -m MODEL [-p PROMPT] ...: one answer to a prompt, or an interactive chat
// (streamed output, the whole history rendered through the model's chat template each turn)
// when no prompt is given. --raw skips the template: plain completion of the prompt text.
// Each turn is a request to the same engine `serve` runs (core/engine): one decode loop; its
// prefix cache finds the conversation so far, so a chat turn computes only its new tokens.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "context.h"
#include "engine/engine.h"
#include "loaded_model.h"
#include "options.h"
#include "serving/chat_template.h"
#include "serving/text_stream.h"
#include "template/template.h"
#include "tokenizer/tokenizer.h"

namespace zen::cli {
namespace {

struct RunOptions {
  std::string model, prompt, system, template_file;
  bool has_prompt = false, raw = false, verbose = false;
  int n_predict = 512;
  sampling::Params sampling;
};

void print_stats(const serving::Completion& s) {
  std::fprintf(stderr,
               "\n[prompt: %zu tokens (%zu reused) %.1f t/s | generated: %zu tokens %.1f t/s | "
               "stop: %s]\n",
               s.prompt_tokens, s.reused_tokens,
               s.prompt_seconds > 0 ? static_cast<double>(s.prompt_tokens) / s.prompt_seconds : 0.0,
               s.generated,
               s.generate_seconds > 0 ? static_cast<double>(s.generated) / s.generate_seconds : 0.0,
               s.stop_reason.c_str());
}

}  // namespace

int cmd_run(const Args& args, const GlobalOptions& global) {
  RunOptions o;
  po::options_description desc("zen-engine run options");
  unsigned n_ctx = 4096;
  uint64_t seed = 0;
  desc.add_options()("model,m", po::value(&o.model), "GGUF model file")(
      "prompt,p", po::value(&o.prompt), "prompt (without it: interactive chat)")(
      "n-predict,n", po::value(&o.n_predict)->default_value(512), "most tokens to generate")(
      "temp", po::value(&o.sampling.temperature)->default_value(0.8f), "temperature (0 = greedy)")(
      "top-k", po::value(&o.sampling.top_k)->default_value(40), "top-k (0 = off)")(
      "top-p", po::value(&o.sampling.top_p)->default_value(0.95f), "top-p (1 = off)")(
      "min-p", po::value(&o.sampling.min_p)->default_value(0.05f), "min-p (0 = off)")(
      "repeat-penalty", po::value(&o.sampling.repeat_penalty)->default_value(1.0f),
      "repetition penalty (1 = off)")("seed,s", po::value(&seed), "random seed")(
      "ctx-size,c", po::value(&n_ctx)->default_value(4096), "context length in tokens")(
      "system", po::value(&o.system), "system message")(
      "chat-template-file", po::value(&o.template_file), "Jinja chat template to use instead")(
      "raw", "no chat template: complete the prompt text as given")(
      "verbose,v", "print the rendered prompt and timings")("help,h", "show this help");
  ComputeFlags compute;
  compute.add_to(desc);
  auto vm = parse(args, desc);
  if (vm.count("help") || o.model.empty()) {
    std::cout << "usage: zen-engine run -m MODEL [-p PROMPT] [-n N] [--temp T] [--top-k K] "
                 "[--top-p P] [--seed S] [--threads N] [--device ID]\n"
              << desc;
    return vm.count("help") ? 0 : 2;
  }
  o.has_prompt = vm.count("prompt") > 0;
  o.raw = vm.count("raw") > 0;
  o.verbose = vm.count("verbose") > 0;
  if (vm.count("seed")) o.sampling.seed = seed;

  auto host = make_context(global, [&](host::Config& c) { compute.apply(c); });
  model::ContextParams params;
  params.n_ctx = n_ctx;
  host::LoadedModel lm(*host->plugins, host->config, o.model, params);
  const tokenizer::Tokenizer tok = tokenizer::Tokenizer::from_gguf(lm.file().gguf());
  const std::vector<int32_t> eog = tok.eog_ids();
  engine::Engine engine(lm.context(), engine::EngineParams{.max_running = 1});
  std::optional<tmpl::Template> tmpl;
  if (!o.raw)
    tmpl.emplace(tmpl::Template::parse(serving::chat_template_source(lm.file(), o.template_file)));
  auto stream = [](std::string_view s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  };

  nlohmann::json messages = nlohmann::json::array();
  if (!o.system.empty()) messages.push_back({{"role", "system"}, {"content", o.system}});
  auto turn = [&](const std::string& user) {
    std::vector<int32_t> ids;
    if (o.raw) {
      ids = tok.encode(user, true, false);
    } else {
      messages.push_back({{"role", "user"}, {"content", user}});
      tmpl::ChatInputs in;
      in.messages = messages;
      in.add_generation_prompt = true;
      if (tok.bos() >= 0) in.bos_token = tok.piece(tok.bos());
      if (tok.eos() >= 0) in.eos_token = tok.piece(tok.eos());
      const std::string text = tmpl::render_chat(*tmpl, in);
      if (o.verbose) std::fprintf(stderr, "[prompt]\n%s\n[/prompt]\n", text.c_str());
      ids = serving::tokenize_chat(tok, text);
    }
    const serving::Completion c =
        serving::complete(engine, tok, ids, o.sampling, o.n_predict, eog, stream);
    if (!o.raw) messages.push_back({{"role", "assistant"}, {"content", c.text}});
    std::fputc('\n', stdout);
    if (o.verbose || !o.has_prompt) print_stats(c);
    if (o.verbose) std::fprintf(stderr, "[placement: %s]\n", lm.context().placement().c_str());
  };

  if (o.has_prompt) {
    turn(o.prompt);
    return 0;
  }
  const bool tty = isatty(STDIN_FILENO);
  if (tty)
    std::fprintf(stderr, "Chatting with %s (%s). /clear forgets, /exit or Ctrl-D quits.\n",
                 o.model.c_str(), lm.file().architecture().c_str());
  std::string line;
  while (true) {
    if (tty) std::fputs("> ", stderr);
    if (!std::getline(std::cin, line)) break;
    if (line == "/exit" || line == "/quit") break;
    if (line == "/clear") {
      messages = nlohmann::json::array();
      if (!o.system.empty()) messages.push_back({{"role", "system"}, {"content", o.system}});
      continue;  // (the prefix cache keeps only what a prompt with the same beginning reuses)
    }
    if (line.empty()) continue;
    turn(line);
  }
  return 0;
}

}  // namespace zen::cli
