#include "model/kept_tensors.h"

#include <zen/plugin.hpp>

namespace zen::model {

void keep_tensors(graph::Graph& g, std::span<const std::string> names, const std::string& who) {
  for (const std::string& name : names) {
    const graph::TensorId t = g.find(name);
    if (t == graph::kNoTensor)
      throw Error(ZEN_ERR_NOT_FOUND, who + ": the graph has no tensor named '" + name + "'");
    const graph::Tensor& x = g.tensor(t);
    if (x.type != ZEN_TYPE_F32 || !graph::is_contiguous(x))
      throw Error(ZEN_ERR_INVALID_ARG, who + ": tensor '" + name + "' is " + graph::describe(x) +
                                           ": only packed F32 tensors can be kept");
    g.output(t, name);
  }
}

std::vector<KeptTensor> read_kept(const graph::Scheduler& sched,
                                  std::span<const std::string> names) {
  std::vector<KeptTensor> out;
  for (const std::string& name : names) {
    const graph::Tensor& x = sched.graph().tensor(sched.graph().find(name));
    KeptTensor k{name, x.ne, std::vector<float>(static_cast<size_t>(x.nelements()))};
    sched.get_output(name, k.data.data(), k.data.size() * sizeof(float));
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace zen::model
