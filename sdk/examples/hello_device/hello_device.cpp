// A complete device plugin in one file, written only against the installed SDK: one device
// that adds F32 tensors in host memory. It shows the shape of a real device plugin: a
// zen::Device subclass, a provider, a table, and the three entry points.
#include <zen/device.hpp>
#include <zen/plugin.hpp>

#include <cstdlib>
#include <cstring>
#include <new>

namespace {

class HelloDevice final : public zen::Device {
 public:
  bool supports_op(const zen_graph& g, int32_t node) override {
    const zen_tensor* t = zen_graph_tensor(&g, node);
    if (t->op != ZEN_OP_ADD || t->type != ZEN_TYPE_F32) return false;
    const zen_tensor* a = zen_graph_tensor(&g, t->src[0]);
    const zen_tensor* b = zen_graph_tensor(&g, t->src[1]);
    return a->type == ZEN_TYPE_F32 && b->type == ZEN_TYPE_F32 && same_shape(*a, *t) &&
           same_shape(*b, *t);
  }
  zen_buffer* alloc(uint64_t bytes) override {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    if (!p) throw std::bad_alloc();
    return static_cast<zen_buffer*>(p);
  }
  void free(zen_buffer* buf) override { std::free(buf); }
  void* host_ptr(zen_buffer* buf) override { return buf; }
  void upload(zen_buffer* buf, uint64_t off, const void* src, uint64_t n) override {
    std::memcpy(reinterpret_cast<char*>(buf) + off, src, n);
  }
  void download(zen_buffer* buf, uint64_t off, void* dst, uint64_t n) override {
    std::memcpy(dst, reinterpret_cast<char*>(buf) + off, n);
  }
  void compute(const zen_graph& g) override {
    for (uint32_t i = 0; i < g.n_nodes; ++i) {
      const zen_tensor* t = zen_graph_tensor(&g, g.nodes[i]);
      const float* a = static_cast<const float*>(zen_graph_tensor(&g, t->src[0])->data);
      const float* b = static_cast<const float*>(zen_graph_tensor(&g, t->src[1])->data);
      float* out = static_cast<float*>(t->data);
      for (int64_t k = 0, n = t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3]; k < n; ++k)
        out[k] = a[k] + b[k];
    }
  }
  void synchronize() override {}

 private:
  static bool same_shape(const zen_tensor& a, const zen_tensor& b) {
    for (int d = 0; d < ZEN_MAX_DIMS; ++d)
      if (a.ne[d] != b.ne[d] || a.nb[d] != b.nb[d]) return false;
    return true;
  }
};

struct HelloProvider {
  static uint32_t count() { return 1; }
  static void props(uint32_t index, zen_device_props& p) {
    if (index != 0) throw zen::Error(ZEN_ERR_NOT_FOUND, "no such device");
    std::strncpy(p.name, "hello", sizeof p.name - 1);
    std::strncpy(p.description, "SDK example: F32 add in host memory", sizeof p.description - 1);
    p.type = ZEN_DEVICE_ACCEL;
    p.priority = 1;  // below the CPU: only used when a config names it
    p.host_visible = 1;
    p.compute_units = 1;
  }
  static zen::Device* open(uint32_t index) {
    if (index != 0) throw zen::Error(ZEN_ERR_NOT_FOUND, "no such device");
    return new HelloDevice();
  }
};

const zen_device_v1 kTable = zen::device_table<HelloProvider>();

}  // namespace

ZEN_DEFINE_PLUGIN(ZEN_KIND_DEVICE, "hello", "1.0.0", nullptr, &kTable,
                  (zen::write_reason(reason, reason_len, "runs anywhere"), 1u), (void)0)
