#include "graph/scheduler.h"

#include <cstring>

#include <zen/plugin.hpp>

namespace zen::graph {

Scheduler::Scheduler(std::vector<DeviceRef> devices)
    : devices_(std::move(devices)), arenas_(devices_.size()) {
  if (devices_.empty()) throw Error(ZEN_ERR_INVALID_ARG, "scheduler: no devices");
  for (const DeviceRef& d : devices_)
    if (!d.table || !d.dev)
      throw Error(ZEN_ERR_INVALID_ARG, "scheduler: device '" + d.id + "' is not open");
}

Scheduler::~Scheduler() {
  for (size_t d = 0; d < devices_.size(); ++d)
    if (arenas_[d].buffer) devices_[d].table->buffer_free(devices_[d].dev, arenas_[d].buffer);
  for (auto& [key, m] : mirrors_)
    devices_[key.first].table->buffer_free(devices_[key.first].dev, m.buffer);
}

const Scheduler::Mirror& Scheduler::mirror(int device, const Tensor& t) {
  const void* host = t.placement.host;
  const uint64_t bytes = packed_bytes(t.type, t.ne);
  auto it = mirrors_.find({device, host});
  if (it != mirrors_.end()) {
    if (it->second.bytes < bytes)
      throw Error(ZEN_ERR_INVALID_ARG, "scheduler: '" + t.name + "' (" + std::to_string(bytes) +
                                           " bytes) overlaps a smaller mirrored leaf at the same "
                                           "host address");
    return it->second;
  }
  const DeviceRef& dev = devices_[device];
  Mirror m;
  m.bytes = bytes;
  dev.check(dev.table->buffer_alloc(dev.dev, bytes, &m.buffer),
            "allocating " + std::to_string(bytes) + " bytes for '" + t.name + "'");
  m.host = dev.host_ptr(m.buffer, 0);
  // A fresh mirror holds what the host holds (the weight, or the state as initialized).
  try {
    write(device, buffer_location(m.buffer, m.host, 0), host, bytes);
  } catch (...) {
    dev.table->buffer_free(dev.dev, m.buffer);
    throw;
  }
  return mirrors_.emplace(std::make_pair(device, host), m).first->second;
}

const Scheduler::Mirror* Scheduler::find_mirror(int device, const void* host) const {
  auto it = mirrors_.find({device, host});
  return it == mirrors_.end() ? nullptr : &it->second;
}

Location Scheduler::buffer_location(zen_buffer* buffer, void* host, uint64_t offset) {
  return Location{buffer, offset, host ? static_cast<char*>(host) + offset : nullptr};
}

void Scheduler::read_placed(const void* host, uint64_t offset, void* dst, uint64_t bytes) const {
  // A state lives on one device (partition() enforces it): the first mirror found is the one.
  for (size_t d = 0; d < devices_.size(); ++d)
    if (const Mirror* m = find_mirror(static_cast<int>(d), host))
      return read(static_cast<int>(d), buffer_location(m->buffer, m->host, offset), dst, bytes);
  std::memcpy(dst, static_cast<const char*>(host) + offset, bytes);
}

void Scheduler::write_placed(void* host, uint64_t offset, const void* src, uint64_t bytes) const {
  std::memcpy(static_cast<char*>(host) + offset, src, bytes);
  for (size_t d = 0; d < devices_.size(); ++d)
    if (const Mirror* m = find_mirror(static_cast<int>(d), host))
      write(static_cast<int>(d), buffer_location(m->buffer, m->host, offset), src, bytes);
}

void Scheduler::plan(Graph g) {
  planned_ = false;
  graph_ = std::move(g);
  part_ = graph::partition(graph_, devices_);

  const size_t n_dev = devices_.size();
  memory_ = MemoryPlan{};
  memory_.peak.assign(n_dev, 0);
  block_of_.assign(graph_.size() * n_dev, -1);
  std::vector<Lifetime> lives;
  std::vector<const Resident*> on_device;
  for (size_t d = 0; d < n_dev; ++d) {
    lives.clear();
    on_device.clear();
    for (const Resident& r : part_.residents)
      if (r.device == static_cast<int>(d)) {
        lives.push_back(r.life);
        on_device.push_back(&r);
      }
    Packing packed = pack(lives, devices_[d].alignment);
    memory_.peak[d] = packed.peak;
    for (size_t i = 0; i < lives.size(); ++i) {
      const Resident& r = *on_device[i];
      block_of_[r.tensor * n_dev + d] = static_cast<int32_t>(memory_.blocks.size());
      memory_.blocks.push_back(Block{r.tensor, static_cast<int>(d), packed.offsets[i], r.life.size,
                                     r.life.start, r.life.end});
    }
  }
  allocate_arenas();

  uint64_t staging = 0;
  for (Copy& c : part_.copies) {
    if (c.mirror) mirror(c.to, graph_.tensor(c.tensor));
    c.src = storage_location(c.tensor, c.from);
    c.dst = storage_location(c.tensor, c.to);
    if (!c.src.data && !c.dst.data) staging = std::max(staging, c.bytes);
  }
  staging_.resize(staging);

  for (Segment& s : part_.segments)
    s.lowered = lower(graph_, s.nodes, [&](TensorId t) { return locate(t, s.device); });
  planned_ = true;
}

void Scheduler::allocate_arenas() {
  for (size_t d = 0; d < devices_.size(); ++d) {
    const DeviceRef& dev = devices_[d];
    Arena& a = arenas_[d];
    if (memory_.peak[d] <= a.size) continue;
    if (a.buffer) dev.table->buffer_free(dev.dev, a.buffer);
    a = Arena{};
    dev.check(dev.table->buffer_alloc(dev.dev, memory_.peak[d], &a.buffer),
              "allocating a " + std::to_string(memory_.peak[d]) + "-byte arena");
    a.size = memory_.peak[d];
    a.host = dev.host_ptr(a.buffer, 0);
  }
}

Location Scheduler::storage_location(TensorId r, int device) const {
  const Tensor& t = graph_.tensor(r);
  if (device == kHostMemory) return Location{nullptr, 0, t.placement.host};
  int32_t b = block_of_[r * devices_.size() + device];
  if (b >= 0) {
    const Arena& a = arenas_[device];
    uint64_t off = memory_.blocks[b].offset;
    return buffer_location(a.buffer, a.host, off);
  }
  const Placement& p = t.placement;
  if (p.on_host()) {
    if (device != kHostMemory && !devices_[device].host_visible())
      if (const Mirror* m = find_mirror(device, p.host))
        return buffer_location(m->buffer, m->host, 0);
    return Location{nullptr, 0, p.host};
  }
  if (p.on_device())
    return Location{p.buffer, p.offset, devices_[device].host_ptr(p.buffer, p.offset)};
  throw Error(ZEN_ERR_INTERNAL,
              "scheduler: " + describe(t) + " has no place on " + devices_[device].id);
}

Location Scheduler::locate(TensorId t, int device) const {
  const Tensor& x = graph_.tensor(t);
  Location at = storage_location(graph_.storage(t), device);
  if (x.aliases()) {
    at.offset += x.view_offset;
    if (at.data) at.data = static_cast<char*>(at.data) + x.view_offset;
  }
  return at;
}

void Scheduler::write(int device, const Location& at, const void* src, uint64_t bytes) const {
  if (at.data) {
    std::memcpy(at.data, src, bytes);
    return;
  }
  const DeviceRef& d = devices_[device];
  d.check(d.table->upload(d.dev, at.buffer, at.offset, src, bytes), "upload");
}

void Scheduler::read(int device, const Location& at, void* dst, uint64_t bytes) const {
  if (at.data) {
    std::memcpy(dst, at.data, bytes);
    return;
  }
  const DeviceRef& d = devices_[device];
  d.check(d.table->download(d.dev, at.buffer, at.offset, dst, bytes), "download");
}

void Scheduler::run_copy(const Copy& c) {
  if (c.src.data) {
    write(c.to, c.dst, c.src.data, c.bytes);
  } else if (c.dst.data) {
    read(c.from, c.src, c.dst.data, c.bytes);
  } else {
    read(c.from, c.src, staging_.data(), c.bytes);
    write(c.to, c.dst, staging_.data(), c.bytes);
  }
}

void Scheduler::compute() {
  if (!planned_) throw Error(ZEN_ERR_INVALID_ARG, "scheduler: compute() before plan()");
  for (const Segment& s : part_.segments) {
    for (size_t c : s.copies)
      if (!part_.copies[c].mirror) run_copy(part_.copies[c]);
    const DeviceRef& d = devices_[s.device];
    d.check(d.table->compute(d.dev, s.lowered.graph()), "compute");
    d.check(d.table->synchronize(d.dev), "synchronize");
  }
}

void Scheduler::set_input(std::string_view name, const void* data, uint64_t bytes) {
  if (!planned_) throw Error(ZEN_ERR_INVALID_ARG, "scheduler: set_input() before plan()");
  TensorId t = graph_.find(name);
  if (t == kNoTensor) throw Error(ZEN_ERR_NOT_FOUND, "no tensor named '" + std::string(name) + "'");
  const Tensor& x = graph_.tensor(t);
  if (!(x.flags & ZEN_TENSOR_INPUT))
    throw Error(ZEN_ERR_INVALID_ARG, "'" + x.name + "' is not an input");
  uint64_t need = packed_bytes(x.type, x.ne);
  if (bytes != need)
    throw Error(ZEN_ERR_INVALID_ARG, "input '" + x.name + "' is " + describe(x) + " = " +
                                         std::to_string(need) + " bytes, got " +
                                         std::to_string(bytes));
  int home = part_.home[t];
  if (home == kNowhere) return;
  write(home, locate(t, home), data, bytes);
}

void Scheduler::get_output(std::string_view name, void* dst, uint64_t bytes) const {
  if (!planned_) throw Error(ZEN_ERR_INVALID_ARG, "scheduler: get_output() before plan()");
  TensorId t = graph_.find(name);
  if (t == kNoTensor) throw Error(ZEN_ERR_NOT_FOUND, "no tensor named '" + std::string(name) + "'");
  const Tensor& x = graph_.tensor(t);
  if (!(x.flags & ZEN_TENSOR_OUTPUT))
    throw Error(ZEN_ERR_INVALID_ARG, "'" + x.name + "' is not an output");
  if (!is_contiguous(x))
    throw Error(ZEN_ERR_INVALID_ARG, "output '" + x.name + "' is a strided view; cpy it first");
  uint64_t need = packed_bytes(x.type, x.ne);
  if (bytes != need)
    throw Error(ZEN_ERR_INVALID_ARG, "output '" + x.name + "' is " + describe(x) + " = " +
                                         std::to_string(need) + " bytes, got " +
                                         std::to_string(bytes));
  const TensorId storage = graph_.storage(t);
  const Tensor& st = graph_.tensor(storage);
  if (st.placement.on_host())  // a weight or state (set_rows' result): its mirror may be newer
    return read_placed(st.placement.host, x.aliases() ? x.view_offset : 0, dst, bytes);
  int home = part_.home[storage];
  read(home, locate(t, home), dst, bytes);
}

int Scheduler::device_of(TensorId t) const {
  return t >= 0 && static_cast<size_t>(t) < part_.device.size() ? part_.device[t] : -1;
}

std::string Scheduler::summary() const {
  std::string s = std::to_string(part_.segments.size()) + " segments (";
  for (size_t i = 0; i < part_.segments.size(); ++i)
    s += (i ? ", " : "") + devices_[part_.segments[i].device].id + ": " +
         std::to_string(part_.segments[i].nodes.size()) + " nodes";
  s += "), " + std::to_string(part_.copies.size()) + " copies, arena bytes";
  for (size_t d = 0; d < devices_.size(); ++d)
    s += (d ? ", " : " ") + devices_[d].id + " " + std::to_string(memory_.peak[d]);
  return s;
}

}  // namespace zen::graph
