// The graph scheduler: runs a Graph on an ordered list of devices.
//
//   Scheduler s(devices);          // preference order: each node goes to the first that takes it
//   s.plan(std::move(graph));      // assign, copy, plan memory, lower; allocates the arenas
//   s.set_input("tokens", ids, bytes);
//   s.compute();                   // segments in order, copies between them
//   s.get_output("logits", out, bytes);
//
// Memory: each device gets one arena for the intermediates, inputs and incoming copies placed
// on it; tensors whose lifetimes do not overlap share bytes, views keep their storage alive,
// outputs and inputs are never shared (inputs keep their values across computes). Weights stay
// where their Placement says; a weight in plain host memory is read in place by host-visible
// devices (its lowered tensor then has buffer NULL and data set). A device that cannot read
// host memory gets a mirror: a buffer of its own holding the weight (uploaded once, at the
// first plan that needs it, and kept across plans), or the state (KV cache), whose mirror is
// then the authoritative copy: the ops writing and reading a state must all run on one device
// (partition() throws otherwise), and host code touching a state's bytes goes through
// read_placed/write_placed. A placed leaf's host bytes must not change behind the scheduler.
//
// This is the synchronous skeleton: each segment is computed and synchronized before the next
// one's copies. plan() allocates; compute() does not.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/device_ref.h"
#include "graph/ir.h"
#include "graph/memory_plan.h"
#include "graph/partition.h"

namespace zen::graph {

class Scheduler {
 public:
  // Borrowed devices in preference order; they must outlive the scheduler.
  explicit Scheduler(std::vector<DeviceRef> devices);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Plans the graph (kept by the scheduler: lowered graphs point at its names). A previous plan
  // is dropped; its arenas are reused when large enough.
  void plan(Graph g);

  // Inputs by name, exactly the tensor's packed size. An input the outputs do not need is
  // accepted and ignored.
  void set_input(std::string_view name, const void* data, uint64_t bytes);
  void compute();
  // Outputs by name, exactly the tensor's packed size; the tensor must be contiguous.
  void get_output(std::string_view name, void* dst, uint64_t bytes) const;

  const Graph& graph() const { return graph_; }
  const std::vector<DeviceRef>& devices() const { return devices_; }
  const Partition& partition() const { return part_; }
  const MemoryPlan& memory() const { return memory_; }
  size_t n_segments() const { return part_.segments.size(); }
  size_t n_copies() const { return part_.copies.size(); }
  // Device index computing tensor t, or -1 when t is not a planned node.
  int device_of(TensorId t) const;
  // One line: segments, copies and peak bytes per device.
  std::string summary() const;

  // Bytes [offset, offset + bytes) of the placed leaf at host address `host`, wherever they
  // really are: read from its device mirror if it has one (else from host memory); written to
  // host memory and every mirror. For host code editing a state in place (KV cache blocks).
  void read_placed(const void* host, uint64_t offset, void* dst, uint64_t bytes) const;
  void write_placed(void* host, uint64_t offset, const void* src, uint64_t bytes) const;

 private:
  void allocate_arenas();
  Location locate(TensorId t, int device) const;
  Location storage_location(TensorId r, int device) const;
  void run_copy(const Copy& c);
  void write(int device, const Location& at, const void* src, uint64_t bytes) const;
  void read(int device, const Location& at, void* dst, uint64_t bytes) const;

  std::vector<DeviceRef> devices_;
  Graph graph_;
  Partition part_;
  MemoryPlan memory_;
  std::vector<int32_t> block_of_;  // per (storage tensor, device): index into memory_.blocks
  struct Arena {
    zen_buffer* buffer = nullptr;
    uint64_t size = 0;
    void* host = nullptr;
  };
  std::vector<Arena> arenas_;
  // Persistent device copies of placed host leaves, by (device, host address).
  struct Mirror {
    zen_buffer* buffer = nullptr;
    uint64_t bytes = 0;
    void* host = nullptr;  // the device's mapping of buffer, if any
  };
  std::map<std::pair<int, const void*>, Mirror> mirrors_;
  const Mirror& mirror(int device, const Tensor& t);
  const Mirror* find_mirror(int device, const void* host) const;
  // Where byte `offset` of a device buffer is: the buffer, and the host address when mapped.
  static Location buffer_location(zen_buffer* buffer, void* host, uint64_t offset);
  std::vector<unsigned char> staging_;  // device -> device copies where neither side is host
  bool planned_ = false;
};

}  // namespace zen::graph
