#include "graph/partition.h"

#include <algorithm>
#include <map>
#include <string>

#include <zen/plugin.hpp>

namespace zen::graph {
namespace {

// Tensors the outputs depend on. Sources always precede their readers, so one backward pass
// suffices.
std::vector<bool> needed_by_outputs(const Graph& g) {
  std::vector<bool> needed(g.size(), false);
  bool any = false;
  for (TensorId o : g.outputs()) needed[o] = any = true;
  if (!any) throw Error(ZEN_ERR_INVALID_ARG, "graph has no outputs: mark one with output()");
  for (size_t i = g.size(); i-- > 0;) {
    if (!needed[i]) continue;
    const Tensor& t = g.tensors()[i];
    for (TensorId s : t.src)
      if (s != kNoTensor) needed[s] = true;
    if (t.is_view()) needed[t.view_src] = true;
  }
  return needed;
}

[[noreturn]] void unsupported(const Graph& g, TensorId node, std::span<const DeviceRef> devices) {
  const Tensor& t = g.tensor(node);
  std::string msg = "no device supports " + op_label(t.op) + ":";
  for (int i = 0; i < ZEN_MAX_SRC; ++i)
    if (t.src[i] != kNoTensor)
      msg += (i ? ", src" : " src") + std::to_string(i) + " " + describe(g.tensor(t.src[i]));
  msg += " -> " + describe(t) + " (asked";
  for (size_t d = 0; d < devices.size(); ++d) msg += (d ? ", " : " ") + devices[d].id;
  throw Error(ZEN_ERR_UNSUPPORTED, msg + ")");
}

int assign(const Graph& g, const zen_graph* probe, TensorId node,
           std::span<const DeviceRef> devices) {
  for (size_t d = 0; d < devices.size(); ++d)
    if (devices[d].table->supports_op(devices[d].dev, probe, node)) return static_cast<int>(d);
  unsupported(g, node, devices);
}

int weight_home(const Tensor& w, std::span<const DeviceRef> devices) {
  const Placement& p = w.placement;
  if (p.on_host()) return kHostMemory;
  if (!p.on_device())
    throw Error(ZEN_ERR_INVALID_ARG, "weight '" + w.name +
                                         "' has no data (no host address or "
                                         "device buffer)");
  for (size_t d = 0; d < devices.size(); ++d)
    if (devices[d].id == p.device) return static_cast<int>(d);
  throw Error(ZEN_ERR_INVALID_ARG, "weight '" + w.name + "' lives on device '" + p.device +
                                       "', which the scheduler was not given");
}

// Builds residencies and copies while walking the segments in order.
class Tracker {
 public:
  Tracker(const Graph& g, std::span<const DeviceRef> devices, Partition& p)
      : g_(g),
        devices_(devices),
        p_(p),
        n_dev_(devices.size()),
        life_(g.size() * devices.size(), Lifetime{-1, -1, 0}),
        copy_of_(g.size() * devices.size(), -1) {}

  // Storage tensor r starts occupying device d's arena at `step`.
  void define(TensorId r, int d, int32_t step) { slot(r, d) = Lifetime{step, step, 0}; }
  // r is read on device d at `step`.
  void touch(TensorId r, int d, int32_t step) {
    Lifetime& l = slot(r, d);
    l.end = std::max(l.end, step);
  }

  // Node of segment `seg` at `step` reads tensor `src`.
  void read(size_t seg, TensorId src, int32_t step) {
    TensorId r = g_.storage(src);
    int d = p_.segments[seg].device, from = p_.home[r];
    if (from == d) return touch(r, d, step);
    const Tensor& t = g_.tensor(r);
    if (t.flags & ZEN_TENSOR_STATE) note_state_user(r, d);
    if (from == kHostMemory && devices_[d].host_visible()) return;  // used in place
    int& c = copy_of_[r * n_dev_ + d];
    if (c < 0) {
      Segment& s = p_.segments[seg];
      c = static_cast<int>(p_.copies.size());
      const bool mirror = from == kHostMemory && t.placed();
      p_.copies.push_back(
          Copy{r, from, d, s.first_step, packed_bytes(t.type, t.ne), {}, {}, mirror});
      s.copies.push_back(static_cast<size_t>(c));
      if (mirror) return;  // lives outside the arena for as long as the scheduler does
      define(r, d, s.first_step);
      if (from >= 0) touch(r, from, s.first_step);
    }
    if (!p_.copies[static_cast<size_t>(c)].mirror) touch(r, d, step);
  }

  // A state (KV cache) is written in place: with copies on two devices, one device's writes
  // would never reach the other's reads. Throws naming the state and the devices.
  void check_states_on_one_device() const {
    for (const auto& [r, devices] : state_users_) {
      if (devices.size() < 2) continue;
      std::string list;
      for (int d : devices) list += (list.empty() ? "" : " and ") + devices_[d].id;
      throw Error(ZEN_ERR_UNSUPPORTED,
                  "state '" + g_.tensor(r).name + "' is used on " + list +
                      ": every op reading or writing a KV cache must run on one device (list "
                      "a device that supports all of them first, or only the CPU)");
    }
  }

  // Everything that occupies arena bytes: results and inputs at home, and copies (of weights
  // too).
  void collect(const std::vector<bool>& pinned) {
    for (size_t r = 0; r < g_.size(); ++r) {
      const Tensor& t = g_.tensors()[r];
      if (t.aliases()) continue;
      for (size_t d = 0; d < n_dev_; ++d) {
        Lifetime l = life_[r * n_dev_ + d];
        if (l.start < 0) continue;  // e.g. a weight where it already lives
        if (pinned[r] && p_.home[r] == static_cast<int>(d)) l.end = kForever;
        l.size = packed_bytes(t.type, t.ne);
        p_.residents.push_back(Resident{static_cast<TensorId>(r), static_cast<int>(d), l});
      }
    }
  }

 private:
  Lifetime& slot(TensorId r, int d) { return life_[r * n_dev_ + d]; }
  void note_state_user(TensorId r, int d) {
    std::vector<int>& users = state_users_[r];
    if (std::find(users.begin(), users.end(), d) == users.end()) users.push_back(d);
  }

  const Graph& g_;
  std::span<const DeviceRef> devices_;
  Partition& p_;
  size_t n_dev_;
  std::vector<Lifetime> life_;  // per (tensor, device); start -1: not resident there
  std::vector<int> copy_of_;
  std::map<TensorId, std::vector<int>> state_users_;  // devices reading or writing each state
};

}  // namespace

Partition partition(const Graph& g, std::span<const DeviceRef> devices) {
  if (devices.empty()) throw Error(ZEN_ERR_INVALID_ARG, "no devices to schedule on");
  std::vector<bool> needed = needed_by_outputs(g);
  Partition p;
  p.device.assign(g.size(), -1);
  p.home.assign(g.size(), kNowhere);

  Lowered probe = lower_all(g);
  for (size_t i = 0; i < g.size(); ++i) {
    if (!needed[i] || !g.tensors()[i].computes()) continue;
    TensorId id = static_cast<TensorId>(i);
    p.device[i] = p.home[i] = assign(g, probe.graph(), id, devices);
    p.nodes.push_back(id);
  }

  // Leaves: weights where they are, inputs with their first reader (or device 0 when only
  // read back as an output).
  for (size_t i = 0; i < g.size(); ++i) {
    const Tensor& t = g.tensors()[i];
    if (!needed[i] || !t.is_leaf()) continue;
    p.home[i] = t.placed() ? weight_home(t, devices) : kNowhere;
  }
  for (TensorId n : p.nodes)
    for (TensorId s : g.tensor(n).src)
      if (s != kNoTensor && p.home[g.storage(s)] == kNowhere) p.home[g.storage(s)] = p.device[n];
  for (size_t i = 0; i < g.size(); ++i)
    if (needed[i] && g.tensors()[i].is_leaf() && p.home[i] == kNowhere) p.home[i] = 0;

  for (size_t step = 0; step < p.nodes.size(); ++step) {
    int d = p.device[p.nodes[step]];
    if (p.segments.empty() || p.segments.back().device != d)
      p.segments.push_back(Segment{d, static_cast<int32_t>(step), {}, {}, {}});
    p.segments.back().nodes.push_back(p.nodes[step]);
  }

  Tracker track(g, devices, p);
  std::vector<bool> pinned(g.size(), false);
  for (size_t i = 0; i < g.size(); ++i) {
    const Tensor& t = g.tensors()[i];
    if (!needed[i] || t.is_view() || t.placed()) continue;
    // Inputs keep their values across computes, so they are never shared.
    if (t.is_leaf()) {
      track.define(static_cast<TensorId>(i), p.home[i], 0);
      pinned[i] = true;
    }
  }
  for (TensorId o : g.outputs()) pinned[g.storage(o)] = true;
  for (size_t seg = 0; seg < p.segments.size(); ++seg) {
    const Segment& s = p.segments[seg];
    for (size_t k = 0; k < s.nodes.size(); ++k) {
      int32_t step = s.first_step + static_cast<int32_t>(k);
      TensorId n = s.nodes[k];
      if (g.tensor(n).aliases())
        track.read(seg, n, step);  // writes in place: its storage must be here (set_rows)
      else
        track.define(n, s.device, step);
      for (TensorId src : g.tensor(n).src)
        if (src != kNoTensor) track.read(seg, src, step);
    }
  }
  track.check_states_on_one_device();
  track.collect(pinned);
  return p;
}

}  // namespace zen::graph
