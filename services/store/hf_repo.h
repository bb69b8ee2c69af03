// `zen-engine pull hf://owner/repo[@revision]` (no file path): a safetensors model repository
// as a Hugging Face directory in the store (dir/NAME/, what `-m NAME` loads, docs/HF-MODELS.md).
//
// The revision's top-level files are listed through the Hub API
// ({endpoint}/api/models/owner/repo/tree/revision); only what a model needs is fetched:
// config.json, generation_config.json, the tokenizer and chat template files, and the
// safetensors shards (those model.safetensors.index.json names when there is one), never
// *.bin, *.pth, ONNX or GGUF copies. Each file goes to NAME.partial/FILE through the resumable
// download of a single-file pull (Range requests, If-Range) and is verified against the
// listing: the LFS sha256 of weights (also the X-Linked-Etag the Hub sends), the git blob id
// (SHA-1 of "blob SIZE\0" + content) of small files, and every size. Only when all are there
// and the shards validate is NAME.partial/ renamed to NAME/; an interrupted pull keeps the
// finished files and the partial one, and the same pull continues where it stopped.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

#include "store/pull.h"
#include "store/sources.h"

namespace zen::store {

// Authorization: Bearer $HF_TOKEN when it is set (the Hub's gated and private repositories).
Headers hugging_face_headers();

PullResult pull_hf_repo(const Source& source, const std::string& name,
                        const std::filesystem::path& dir, const PullOptions& options,
                        std::ostream& log);

}  // namespace zen::store
