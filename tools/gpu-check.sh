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
# `run` prints and writes to OUT (summary.txt last: the card and every table row; bench.log,
# ops.log the whole output): the devices (probe), the op harness on every GPU device (pass/
# skip/fail per suite), `bench -p 512 -n 128 -v` for each bench model on each GPU device and on
# the machine's CPU (same run, same file: the table docs/BENCHMARKS.md wants), and each GPU's
# per-token structure (submits, waits, dispatches, barriers, bytes moved). The bare image
# (NVIDIA driver, Python 3.12, no Vulkan/OpenCL loaders, no Boost) is described in
# ../shared/gpu/README.md; this script gathers what that image lacks.
#
# Overrides, for a dry run on a machine without a GPU (lavapipe): ZEN_GPU_CHECK_DEVICES
# ("vulkan:0"), ZEN_GPU_CHECK_TYPES ("Q4_0"), ZEN_GPU_CHECK_BENCH ("-p 8 -n 4 -r 1"); and
# ZEN_GPU_CHECK_STEPS (any of bench,profile,variants,ops), ZEN_GPU_CHECK_SECONDS (480).
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
    >"$out/summary.txt" 2>&1 || true
  echo "== $(date -u +%F) $(cat "$out/summary.txt")"
  # NVIDIA's Vulkan driver does not start without the nvidia_modeset kernel module (seen on
  # the lent machines on 2026-11-27; ../shared/gpu/README.md): say so up front.
  if grep -q '^nvidia ' /proc/modules 2>/dev/null && ! grep -q '^nvidia_modeset ' /proc/modules; then
    echo "note: no nvidia_modeset kernel module on this host: NVIDIA's Vulkan ICD cannot start"
    echo "      (vulkan:0 will be missing); OpenCL still reaches the GPU"
  fi
  "$z" probe | tee "$out/probe.txt"
  "$z" probe --json >"$out/probe.json"
  # GPU devices: those probe lists as gpu/igpu/accelerator.
  local gpus
  gpus=$(python3 -c 'import json,sys
print(" ".join(d["id"] for d in json.load(open(sys.argv[1]))["devices"]
               if d["type"] in ("gpu", "igpu", "accelerator")))' "$out/probe.json")
  gpus=${ZEN_GPU_CHECK_DEVICES:-$gpus}
  echo "GPU devices: ${gpus:-none}"

  # Steps in the order of their value, each bounded by what is left of the time (the device
  # tool's commands stop at 600 s): the bench table first, the op harness last.
  local deadline=$((SECONDS + ${ZEN_GPU_CHECK_SECONDS:-480}))
  left() { local l=$((deadline - SECONDS)); echo $((l < ${1:-240} ? (l > 0 ? l : 1) : ${1:-240})); }
  zb() { # zb TAG DEVICE MODEL ARGS...: one bench, output in OUT/bench.TAG.txt, rows printed
    local tag=$1 d=$2 m=$3
    shift 3
    echo "-- $tag ($(basename "$m") on $d: $*)"
    local log=$out/run.$tag.tmp
    timeout "$(left)" "$z" bench -m "$m" "$@" -v --device "$d" >"$log" 2>&1 || echo "(exit $?)"
    grep -E '^\| (pp|tg|bd)|submits|^(vulkan|opencl) profile|^  [a-z_0-9]+(\[| )' "$log" |
      head -60 || tail -3 "$log"
    # Every run in one log and its table rows in the summary: the device tool brings back 8
    # files at most, and a file per run had lost a whole file's table rows.
    { echo "-- $tag ($(basename "$m") on $d: $*)"; cat "$log"; } >>"$out/bench.log"
    grep -E '^\| (pp|tg|bd)' "$log" | sed "s|^|$tag |" >>"$out/summary.txt"
    rm -f "$log"
  }

  echo "== bench models"
  local models=/tmp/zen-bench-models types=${ZEN_GPU_CHECK_TYPES:-Q4_0,Q4_K_M,Q8_0}
  timeout "$(left 120)" python3 "$here/make_bench_models.py" "$models" --zen-engine "$z" \
    --types "$types" --no-check >"$out/make_models.txt" 2>&1 || tail -5 "$out/make_models.txt"
  local bench=${ZEN_GPU_CHECK_BENCH:--p 512 -n 128 -r 2} first=1 vk gpu1
  local steps=${ZEN_GPU_CHECK_STEPS:-bench,profile,variants,ops}
  vk=$(tr ' ' '\n' <<<"$gpus" | grep '^vulkan' | head -1 || true)
  gpu1=${gpus%% *}
  for ty in ${types//,/ }; do
    local m=$models/qwen3-0.6b-shape-${ty,,}.gguf tag
    [ -e "$m" ] || continue
    tag=$(basename "$m" .gguf)
    if [[ $steps == *bench* ]]; then
      for d in $gpus cpu; do
        # shellcheck disable=SC2086
        zb "$tag.${d/:/_}" "$d" "$m" $bench
      done
    fi
    # Where the time goes, per kernel (ZEN_VULKAN_PROFILE / ZEN_OPENCL_PROFILE), on each GPU
    # device for the first file.
    if [[ $steps == *profile* ]] && [ "$first" = 1 ]; then
      for d in $gpus; do
        ZEN_VULKAN_PROFILE=1 ZEN_OPENCL_PROFILE=1 zb "$tag.decode-profile.${d/:/_}" "$d" "$m" \
          -p 0 -n 64 -r 1
        ZEN_VULKAN_PROFILE=1 ZEN_OPENCL_PROFILE=1 zb "$tag.prefill-profile.${d/:/_}" "$d" "$m" \
          -p 512 -n 0 -r 1
      done
    fi
    first=0
  done

  if [ -n "$vk" ] && [[ $steps == *variants* ]]; then
    local first_type=${types%%,*} m
    m=$models/qwen3-0.6b-shape-${first_type,,}.gguf
    echo "== $vk variants and batched decode ($(basename "$m"))"
    {
      for a in plain subgroup split; do
        ZEN_VULKAN_ATTENTION=$a zb "attention-$a" "$vk" "$m" -p 0 -n 128 -r 2
      done
      ZEN_VULKAN_MATVEC=rows zb matvec-rows "$vk" "$m" -p 0 -n 128 -r 2
      ZEN_VULKAN_GEMM=rows zb gemm-rows "$vk" "$m" -p 512 -n 0 -r 2
    }
  fi
  local cl
  cl=$(tr ' ' '\n' <<<"$gpus" | grep '^opencl' | head -1 || true)
  if [ -n "$cl" ] && [[ $steps == *variants* ]]; then
    local first_type=${types%%,*} m
    m=$models/qwen3-0.6b-shape-${first_type,,}.gguf
    echo "== $cl variants ($(basename "$m"))"
    {
      ZEN_OPENCL_GEMM=0 zb cl-gemm-rows "$cl" "$m" -p 512 -n 0 -r 2
      ZEN_OPENCL_FUSE=0 zb cl-unfused "$cl" "$m" -p 0 -n 128 -r 2
      ZEN_OPENCL_ATTENTION=rows zb cl-attention-rows "$cl" "$m" -p 512 -n 0 -r 2
    }
  fi
  if [ -n "$gpu1" ] && [[ $steps == *variants* ]]; then
    local first_type=${types%%,*} m
    m=$models/qwen3-0.6b-shape-${first_type,,}.gguf
    for d in "$gpu1" cpu; do
      zb "batched.${d/:/_}" "$d" "$m" -p 0 -n 0 --decode-seqs 1,4,16,64 --kv-len 256
    done
  fi

  [[ $steps == *ops* ]] && run_ops
  echo "== summary (also $out/summary.txt; every run's output in $out/bench.log)"
  cat "$out/summary.txt"
}

run_ops() {
  echo "== op harness"
  for d in $gpus; do
    for t in "$here"/bin/ops_*; do
      local filter="*/${d/:/_}" log
      log=$out/ops.tmp
      timeout "$(left 90)" "$t" --gtest_filter="$filter" --gtest_brief=1 >"$log" 2>&1 || true
      { echo "-- $(basename "$t") $d"; cat "$log"; } >>"$out/ops.log"
      printf '%-14s %-9s %s\n' "$(basename "$t")" "$d" \
        "$(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$log" | tr '\n' ' ')"
      rm -f "$log"
    done
  done | tee -a "$out/summary.txt"
}

case "${1:-}" in
  gather) shift; gather "$@" ;;
  run) shift; run_there "$@" ;;
  *) sed -n '2,20p' "$0"; exit 2 ;;
esac
