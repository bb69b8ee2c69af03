// The sampler's random source: std::mt19937_64, whose output sequence the C++ standard fixes,
// turned into uniforms by our own arithmetic (std::uniform_real_distribution's algorithm is
// unspecified, so it differs between standard libraries). Same seed, same numbers, everywhere.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

namespace zen::sampling {

// A seed for when the request gave none: 64 bits from std::random_device.
inline uint64_t random_seed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

// prefix + n random letters and digits ("call_" + 24 for tool calls, "chatcmpl-" + 24 for
// responses): an identifier, not a secret.
inline std::string random_id(std::string_view prefix, std::mt19937_64& rng, int n = 24) {
  static constexpr char kAlnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::uniform_int_distribution<size_t> pick(0, sizeof kAlnum - 2);
  std::string id(prefix);
  for (int i = 0; i < n; ++i) id += kAlnum[pick(rng)];
  return id;
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  // Uniform in [0, 1) on a grid of 2^-53: the top 53 bits of one 64-bit output.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace zen::sampling
