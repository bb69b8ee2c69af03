#include "sampling_defaults.h"

#include <cmath>

#include <zen/task.h>

namespace zen::serving {
namespace {

std::optional<double> number(const gguf::File& f, const char* key, double lo, double hi) {
  const gguf::Value* v = f.find(key);
  if (!v) return std::nullopt;
  double d = 0;
  if (v->type() == gguf::ValueType::F32 || v->type() == gguf::ValueType::F64)
    d = v->as_float();
  else if (v->is_integer())
    d = static_cast<double>(v->as_int<int64_t>());
  else
    return std::nullopt;
  if (!std::isfinite(d) || d < lo || d > hi) return std::nullopt;
  return d;
}

}  // namespace

SamplingDefaults SamplingDefaults::from(const gguf::File& f) {
  SamplingDefaults d;
  if (auto v = number(f, "general.sampling.temp", 0, 100)) d.temperature = static_cast<float>(*v);
  if (auto v = number(f, "general.sampling.top_p", 0, 1)) d.top_p = static_cast<float>(*v);
  if (auto v = number(f, "general.sampling.min_p", 0, 1)) d.min_p = static_cast<float>(*v);
  if (auto v = number(f, "general.sampling.penalty_repeat", 1e-6, 100))
    d.repeat_penalty = static_cast<float>(*v);
  if (auto v = number(f, "general.sampling.top_k", 0, 1 << 30)) d.top_k = static_cast<int32_t>(*v);
  return d;
}

void SamplingDefaults::apply(sampling::Params& p, uint32_t given) const {
  auto fill = [given](auto& field, const auto& value, uint32_t bit) {
    if (!(given & bit) && value) field = *value;
  };
  fill(p.temperature, temperature, ZEN_SAMPLING_TEMPERATURE);
  fill(p.top_p, top_p, ZEN_SAMPLING_TOP_P);
  fill(p.top_k, top_k, ZEN_SAMPLING_TOP_K);
  fill(p.min_p, min_p, ZEN_SAMPLING_MIN_P);
  fill(p.repeat_penalty, repeat_penalty, ZEN_SAMPLING_REPEAT_PENALTY);
}

}  // namespace zen::serving
