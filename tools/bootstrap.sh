#!/usr/bin/env bash
# The README's first command: install dependencies, build, and run the main job. Until a model
# runs, the main job is `zen-engine probe`: what this machine is and what the engine chose.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh "$@"
"${ZEN_BUILD_DIR:-build}"/bin/zen-engine probe
