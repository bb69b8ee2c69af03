// Caps on what a GGUF file may ask the reader to allocate or walk. The defaults are far above
// any real model (a 256k-token vocab is ~5 MiB of metadata, big MoE files have a few thousand
// tensors) yet keep a hostile file from making the process allocate gigabytes or recurse
// deeply. Every count is also checked against the bytes actually left in the file, so even
// within these caps a small file can only describe small things.
#pragma once

#include <cstdint>

namespace zen::gguf {

struct Limits {
  // One metadata string value (chat templates are tens of KiB).
  uint64_t max_string_bytes = uint64_t{16} << 20;
  // Metadata keys; the GGUF spec caps them at 65535 bytes.
  uint64_t max_key_bytes = 65535;
  // Elements of one metadata array (vocabularies and merge lists are < 1 Mi).
  uint64_t max_array_length = uint64_t{16} << 20;
  // Memory the decoded metadata may occupy in total, charged per string byte, per scalar
  // array byte and per nested-array element (whose in-memory object is larger than its 12
  // encoded bytes), so this bounds RAM, not just file bytes.
  uint64_t max_metadata_bytes = uint64_t{256} << 20;
  uint64_t max_kv_count = 65536;
  uint64_t max_tensor_count = uint64_t{1} << 20;
  // Arrays nested inside arrays; real files use depth 1 (an array of scalars or strings).
  uint32_t max_array_depth = 8;
  // GGUF says 64 bytes (ggml's GGML_MAX_NAME, including the NUL); some converters exceed it,
  // so accept more but keep it small enough to print in one line.
  uint64_t max_tensor_name_bytes = 256;
  // general.alignment: any power of two up to this (GGUF default 32; 1 MiB covers huge pages
  // of any sane configuration).
  uint64_t max_alignment = uint64_t{1} << 20;
};

}  // namespace zen::gguf
