#!/usr/bin/env bash
# Installs what building and testing Zen Engine needs on Debian 12, from Debian's packages and
# PyPI only. Idempotent: does nothing when everything is already there.
set -euo pipefail

DEB_PACKAGES=(
  build-essential cmake ninja-build pkg-config git python3 python3-pip
  libboost1.81-dev libboost-program-options1.81-dev
  libhwloc-dev hwloc nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev clang-format-14
  # the aarch64 NEON variant's cross build and its op tests under qemu (tests/cross)
  g++-aarch64-linux-gnu qemu-user
)
PY_PACKAGES=(pytest numpy gguf)

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
for p in "${PY_PACKAGES[@]}"; do
  "$PYTHON" -c "import $p" 2>/dev/null || py_missing+=("$p")
done
if [ ${#py_missing[@]} -gt 0 ]; then
  echo "install-deps: pip install ${py_missing[*]}"
  "$PYTHON" -m pip install -q "${py_missing[@]}" 2>&1 | grep -v "Running pip as the 'root' user" || true
  for p in "${py_missing[@]}"; do "$PYTHON" -c "import $p"; done
fi
