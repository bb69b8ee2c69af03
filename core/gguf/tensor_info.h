// Tensor-info records: decoding one with its shape and type validated, and placing the whole
// table in the data section (alignment, bounds, overlap).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gguf/cursor.h"
#include "gguf/gguf.h"

namespace zen::gguf {

// "[4096, 32]"
std::string shape_string(const TensorInfo& t);

// Tensor record #index at the cursor; data/file_offset are filled in by place_tensors.
TensorInfo read_tensor_info(Cursor& c, const Limits& limits, uint64_t index);

// Resolves every tensor's absolute offset and data pointer, refusing misaligned offsets, data
// outside the file and overlapping tensors.
void place_tensors(std::vector<TensorInfo>& tensors, uint64_t data_offset, uint64_t alignment,
                   std::span<const uint8_t> bytes);

}  // namespace zen::gguf
