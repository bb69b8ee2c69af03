// A device that can do little, for graph scheduler tests: ADD and MUL on F32 only, and memory
// that is NOT host-visible (buffer_host_ptr is NULL; bytes move only through upload/download),
// so the scheduler has to place nodes around it and insert real copies.
#include <zen/device.hpp>
#include <zen/plugin.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Bytes uploaded so far (all devices of this plugin): tests read it through get_proc to see
// what the scheduler moves on each compute.
uint64_t g_uploaded_bytes = 0;
uint64_t uploaded_bytes() { return g_uploaded_bytes; }

struct TestBuffer {
  std::vector<unsigned char> bytes;
};

TestBuffer& buf(zen_buffer* b) {
  if (!b) throw zen::Error(ZEN_ERR_INVALID_ARG, "testdev: NULL buffer");
  return *reinterpret_cast<TestBuffer*>(b);
}

void check_range(const TestBuffer& b, uint64_t off, uint64_t n) {
  if (off > b.bytes.size() || n > b.bytes.size() - off)
    throw zen::Error(ZEN_ERR_INVALID_ARG, "testdev: access of " + std::to_string(n) + " bytes at " +
                                              std::to_string(off) + " runs past the buffer");
}

// The device reads tensors from its own buffers; it never sees (or wants) host addresses.
char* addr(const zen_tensor& t) {
  return reinterpret_cast<char*>(buf(t.buffer).bytes.data()) + t.offset;
}

float& f32_at(const zen_tensor& t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  return *reinterpret_cast<float*>(addr(t) + i0 * t.nb[0] + i1 * t.nb[1] + i2 * t.nb[2] +
                                   i3 * t.nb[3]);
}

class PartialDevice final : public zen::Device {
 public:
  bool supports_op(const zen_graph& g, int32_t node) override {
    const zen_tensor& t = *zen_graph_tensor(&g, node);
    if (t.op != ZEN_OP_ADD && t.op != ZEN_OP_MUL) return false;
    return t.type == ZEN_TYPE_F32 && zen_graph_tensor(&g, t.src[0])->type == ZEN_TYPE_F32 &&
           zen_graph_tensor(&g, t.src[1])->type == ZEN_TYPE_F32;
  }
  zen_buffer* alloc(uint64_t bytes) override {
    auto* b = new TestBuffer;
    b->bytes.resize(bytes);
    return reinterpret_cast<zen_buffer*>(b);
  }
  void free(zen_buffer* b) override { delete reinterpret_cast<TestBuffer*>(b); }
  void* host_ptr(zen_buffer*) override { return nullptr; }
  void upload(zen_buffer* b, uint64_t off, const void* src, uint64_t n) override {
    check_range(buf(b), off, n);
    std::memcpy(buf(b).bytes.data() + off, src, n);
    g_uploaded_bytes += n;
  }
  void download(zen_buffer* b, uint64_t off, void* dst, uint64_t n) override {
    check_range(buf(b), off, n);
    std::memcpy(dst, buf(b).bytes.data() + off, n);
  }
  void compute(const zen_graph& g) override {
    for (uint32_t n = 0; n < g.n_nodes; ++n) {
      const zen_tensor& d = *zen_graph_tensor(&g, g.nodes[n]);
      const zen_tensor& a = *zen_graph_tensor(&g, d.src[0]);
      const zen_tensor& b = *zen_graph_tensor(&g, d.src[1]);
      for (int64_t i3 = 0; i3 < d.ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < d.ne[2]; ++i2)
          for (int64_t i1 = 0; i1 < d.ne[1]; ++i1)
            for (int64_t i0 = 0; i0 < d.ne[0]; ++i0) {
              float x = f32_at(a, i0, i1, i2, i3);
              float y = f32_at(b, i0 % b.ne[0], i1 % b.ne[1], i2 % b.ne[2], i3 % b.ne[3]);
              f32_at(d, i0, i1, i2, i3) = d.op == ZEN_OP_ADD ? x + y : x * y;
            }
    }
  }
  void synchronize() override {}
  void* get_proc(const char* name) override {
    using Counter = uint64_t (*)();
    if (std::string(name) == "zen_testdev_uploaded_bytes")
      return reinterpret_cast<void*>(static_cast<Counter>(&uploaded_bytes));
    return nullptr;
  }
};

struct Provider {
  static uint32_t count() { return 1; }
  static void props(uint32_t index, zen_device_props& p) {
    if (index != 0) throw zen::Error(ZEN_ERR_NOT_FOUND, "testdev: one device only");
    std::snprintf(p.name, sizeof p.name, "testdev");
    std::snprintf(p.description, sizeof p.description,
                  "test device: F32 add and mul only, memory not host-visible");
    p.type = ZEN_DEVICE_ACCEL;
    p.priority = 50;
    p.host_visible = 0;
    p.compute_units = 1;
  }
  static zen::Device* open(uint32_t index) {
    if (index != 0) throw zen::Error(ZEN_ERR_NOT_FOUND, "testdev: one device only");
    return new PartialDevice;
  }
};

const zen_device_v1* table() {
  static const zen_device_v1 t = zen::device_table<Provider>();
  return &t;
}

}  // namespace

ZEN_DEFINE_PLUGIN(ZEN_KIND_DEVICE, "testdev", "0.1.0", nullptr, table(),
                  (zen::write_reason(reason, reason_len, "test device, always available"), 1u),
                  (void)0)
