#!/usr/bin/env bash
# The GPU check anyone can run (issue 15): gather a stripped build for a bare GPU machine here,
# then run the op harness and the benchmarks there, in one prepared command.
#
#   tools/gpu-check.sh gather [BUILD_DIR] [DIR]     # here: fills DIR (default .gpu, git-ignored)
#   bash DIR/gpu-check.sh run [OUT]                 # there: results into OUT (default $OUT or /tmp)
#
# With the project's device tool (a copy of the checkout reaches the GPU machine; .gpu must be
# named among the paths it carries, being git-ignored):
#   run(command="bash .gpu/gpu-check.sh run", carry=[".gpu"], timeout_s=540)
#
# `run` prints and writes to OUT: the devices (probe), the op harness on every GPU device (pass/
# skip/fail per suite), `bench -p 512 -n 128 -v` for each bench model on each GPU device and on
# the machine's CPU (same run, same file: the table docs/BENCHMARKS.md wants), and each GPU's
# per-token structure (submits, waits, dispatches, barriers, bytes moved). The bare image
# (NVIDIA driver, Python 3.12, no Vulkan/OpenCL loaders, no Boost) is described in
# ../shared/gpu/README.md; this script gathers what that image lacks.
#
# Overrides, for a dry run on a machine without a GPU (lavapipe): ZEN_GPU_CHECK_DEVICES
# ("vulkan:0"), ZEN_GPU_CHECK_TYPES ("Q4_0"), ZEN_GPU_CHECK_BENCH ("-p 8 -n 4 -r 1").
set -euo pipefail

gather() {
  local build=${1:-build} dir=${2:-.gpu}
  rm -rf "$dir"
  mkdir -p "$dir"/{bin,plugins,lib,debs,tiny,py}
  cp "$build"/bin/zen-engine "$build"/bin/ops_* "$dir/bin/"
  cp "$build"/lib/zen/plugins/*.so "$dir/plugins/"
  strip "$dir"/bin/* "$dir"/plugins/*.so
  for l in libboost_program_options.so.1.81.0 libhwloc.so.15 libudev.so.1 libpcre2-8.so.0; do
    cp -L "/lib/x86_64-linux-gnu/$l" "$dir/lib/"
  done
  (cd "$dir/debs" && apt-get download libvulkan1 ocl-icd-libopencl1 >/dev/null)
  cp tests/data/models/tiny/*.gguf "$dir/tiny/"
  cp tools/make_bench_models.py "$0" "$dir/"
  cp -r "$(python3 -c 'import gguf, os; print(os.path.dirname(gguf.__file__))')" "$dir/py/"
  du -sh "$dir"
}

run_there() {
  local here out
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  out=${1:-${OUT:-/tmp/zen-gpu-check}}
  mkdir -p "$out"
  # The loaders, where the image lacks them.
  if ! ldconfig -p | grep -q 'libvulkan.so.1 ' || ! ldconfig -p | grep -q 'libOpenCL.so.1 '; then
    for f in "$here"/debs/*.deb; do dpkg -x "$f" / 2>/dev/null; done
    ldconfig
  fi
  mkdir -p /etc/OpenCL/vendors
  [ -e /usr/local/nvidia/lib64/libnvidia-opencl.so ] &&
    echo /usr/local/nvidia/lib64/libnvidia-opencl.so >/etc/OpenCL/vendors/nvidia.icd
  [ -e /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] &&
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  export LD_LIBRARY_PATH=$here/lib:${LD_LIBRARY_PATH:-} ZEN_PLUGIN_PATH=$here/plugins
  export PYTHONPATH=$here/py
  local z=$here/bin/zen-engine
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
    >"$out/gpu.txt" 2>&1 || true
  echo "== $(date -u +%F) $(cat "$out/gpu.txt")"
  "$z" probe | tee "$out/probe.txt"
  "$z" probe --json >"$out/probe.json"
  # GPU devices: those probe lists as gpu/igpu/accelerator.
  local gpus
  gpus=$(python3 -c 'import json,sys
print(" ".join(d["id"] for d in json.load(open(sys.argv[1]))["devices"]
               if d["type"] in ("gpu", "igpu", "accelerator")))' "$out/probe.json")
  gpus=${ZEN_GPU_CHECK_DEVICES:-$gpus}
  echo "GPU devices: ${gpus:-none}"

  echo "== op harness"
  for t in "$here"/bin/ops_*; do
    for d in $gpus; do
      local filter="*/${d/:/_}"
      "$t" --gtest_filter="$filter" --gtest_brief=1 >"$out/$(basename "$t").${d/:/_}.txt" 2>&1 || true
      printf '%-14s %-9s %s\n' "$(basename "$t")" "$d" \
        "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/$(basename "$t").${d/:/_}.txt" | tr '\n' ' ')"
    done
  done | tee "$out/ops.txt"

  echo "== bench models"
  local models=/tmp/zen-bench-models
  python3 "$here/make_bench_models.py" "$models" --zen-engine "$z" \
    --types "${ZEN_GPU_CHECK_TYPES:-Q4_0,Q4_K_M,Q8_0}" \
    --no-check >"$out/make_models.txt" 2>&1 || tail -5 "$out/make_models.txt"
  for m in "$models"/qwen3-0.6b-shape-{q4_0,q4_k_m,q8_0}.gguf; do
    [ -e "$m" ] || continue
    for d in $gpus cpu; do
      local tag
      tag=$(basename "$m" .gguf).${d/:/_}
      echo "-- $(basename "$m") on $d"
      # shellcheck disable=SC2086
      timeout 240 "$z" bench -m "$m" ${ZEN_GPU_CHECK_BENCH:--p 512 -n 128 -r 3} -v --device "$d" \
        >"$out/bench.$tag.txt" 2>&1 ||
        echo "(exit $?)"
      grep -E '^\| (pp|tg)|submits' "$out/bench.$tag.txt" || tail -3 "$out/bench.$tag.txt"
    done
  done | tee "$out/bench.txt"
}

case "${1:-}" in
  gather) shift; gather "$@" ;;
  run) shift; run_there "$@" ;;
  *) sed -n '2,20p' "$0"; exit 2 ;;
esac
