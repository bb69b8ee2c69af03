// The sampler's random source: std::mt19937_64, whose output sequence the C++ standard fixes,
// turned into uniforms by our own arithmetic (std::uniform_real_distribution's algorithm is
// unspecified, so it differs between standard libraries). Same seed, same numbers, everywhere.
#pragma once

#include <cstdint>
#include <random>

namespace zen::sampling {

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  // Uniform in [0, 1) on a grid of 2^-53: the top 53 bits of one 64-bit output.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace zen::sampling
