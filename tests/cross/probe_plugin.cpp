// zen_probe_plugin <plugin.so>: dlopens a plugin and prints what its probe says (score and
// reason), exit 0 when the score is > 0. Built only in the cross build, where the zen-engine
// CLI (which reports the same through `zen-engine plugins`) is not.
// zen_probe_plugin --thread-check: starts and joins one thread (some qemu-user/kernel pairs
// hang in pthread_create; the test script then runs the op tests on one CPU).
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <thread>

#include <zen/abi.h>

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--thread-check") == 0) {
    std::thread t([] { std::puts("thread-check: a second thread ran"); });
    t.join();
    return 0;
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <plugin.so>\n", argv[0]);
    return 2;
  }
  void* so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!so) {
    std::fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
    return 2;
  }
  auto probe = reinterpret_cast<zen_plugin_probe_fn>(dlsym(so, ZEN_PLUGIN_PROBE_SYMBOL));
  if (!probe) {
    std::fprintf(stderr, "%s has no %s\n", argv[1], ZEN_PLUGIN_PROBE_SYMBOL);
    return 2;
  }
  char reason[512] = "";
  const uint32_t score = probe(reason, sizeof reason);
  std::printf("probe %s: score %u, %s\n", argv[1], score, reason);
  return score > 0 ? 0 : 1;
}
