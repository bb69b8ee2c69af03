#include "request_id.h"

#include <cstdint>
#include <random>

namespace zen::frontend {

std::string new_request_id(std::string_view prefix) {
  static constexpr char kAlnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  // One generator per thread: no lock, and seeded once (random_device can be slow).
  thread_local std::mt19937_64 rng{[] {
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) ^ device();
  }()};
  std::uniform_int_distribution<size_t> pick(0, sizeof kAlnum - 2);
  std::string id(prefix);
  for (int i = 0; i < 24; ++i) id += kAlnum[pick(rng)];
  return id;
}

}  // namespace zen::frontend
