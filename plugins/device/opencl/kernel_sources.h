// The OpenCL C sources of kernels/*.cl, embedded at build time (embed_kernels.cmake).
#pragma once

namespace zen_opencl {

struct KernelSource {
  const char* name;  // "00_common.cl"
  const char* text;
};
extern const KernelSource kKernelSources[];
extern const unsigned kKernelSourceCount;

}  // namespace zen_opencl
