#!/usr/bin/env bash
# Configures and builds Zen Engine into ${ZEN_BUILD_DIR:-build} (Release with debug info).
# Extra arguments go to the CMake configure step, e.g. -DZEN_PLUGINS=cpu.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${ZEN_BUILD_DIR:-build}
JOBS=${ZEN_JOBS:-2}
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
cmake -S . -B "$BUILD_DIR" "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython3_EXECUTABLE="$(command -v python3)" "$@"
cmake --build "$BUILD_DIR" -j"$JOBS"
