#!/usr/bin/env bash
# Builds llama.cpp's `llama-server`, the peer for bench/serve_compare.py, at benchmark time.
#
# The source is the llama.cpp tree vendored in the llama-cpp-python source distribution on
# PyPI (the project's designated peer package), at the version installed here
# (`import llama_cpp`), so the server and bench/compare.py's in-process peer are the same
# llama.cpp. Nothing of llama.cpp is committed to this repository: the script downloads the
# sdist with pip, extracts it and builds the `llama-server` target with cmake into a cache
# directory. A second run for the same version finds the binary and builds nothing.
#
#   bench/build_peer_server.sh              # pip download + build (several minutes on 2 cores)
#   bench/build_peer_server.sh --src DIR    # build from an extracted llama.cpp tree instead
#
# Environment: ZEN_PEER_DIR (cache, default ~/.cache/zen-peer), ZEN_JOBS (build jobs, default
# 2). Progress goes to stderr; the last line of stdout is the path of the binary.
set -euo pipefail

usage() {
    echo "usage: $0 [--src LLAMA_CPP_DIR]" >&2
    exit 2
}

src=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --src) [[ $# -ge 2 ]] || usage; src="$2"; shift 2 ;;
        -h|--help) usage ;;
        *) usage ;;
    esac
done

peer_dir="${ZEN_PEER_DIR:-$HOME/.cache/zen-peer}"
jobs="${ZEN_JOBS:-2}"
log() { echo "build_peer_server: $*" >&2; }

if [[ -n "$src" ]]; then
    src="$(cd "$src" && pwd)"
    [[ -f "$src/tools/server/CMakeLists.txt" ]] || { log "$src is not a llama.cpp tree"; exit 1; }
    # one cache entry per source directory
    work="$peer_dir/src-$(basename "$src")-$(printf '%s' "$src" | sha1sum | cut -c1-8)"
else
    version="$(python3 -c 'import llama_cpp; print(llama_cpp.__version__)')" || {
        log "llama-cpp-python is not installed (pip install llama-cpp-python)"
        exit 1
    }
    work="$peer_dir/llama-cpp-python-$version"
fi
build="$work/build"
binary="$build/bin/llama-server"

if [[ -x "$binary" ]]; then
    log "already built: $binary"
    echo "$binary"
    exit 0
fi

if [[ -z "$src" ]]; then
    src="$work/src/llama_cpp_python-$version/vendor/llama.cpp"
    if [[ ! -f "$src/CMakeLists.txt" ]]; then
        log "downloading the llama-cpp-python $version sdist"
        rm -rf "$work/sdist" "$work/src"
        mkdir -p "$work/sdist" "$work/src"
        python3 -m pip download --no-deps --no-binary :all: "llama-cpp-python==$version" \
            -d "$work/sdist" >&2
        tar -xzf "$work/sdist/llama_cpp_python-$version.tar.gz" -C "$work/src" \
            "llama_cpp_python-$version/vendor/llama.cpp"
        rm -rf "$work/sdist"
    fi
fi

# Options that exist in this llama.cpp version only: LLAMA_CURL went away when llama.cpp
# moved its downloader to cpp-httplib; the server needs neither HTTPS nor the prebuilt web UI
# (fetched from Hugging Face at build time unless turned off).
optional=()
for opt in LLAMA_CURL LLAMA_OPENSSL LLAMA_USE_PREBUILT_UI LLAMA_BUILD_UI LLAMA_BUILD_APP; do
    if grep -q "option($opt\b" "$src/CMakeLists.txt"; then
        optional+=("-D$opt=OFF")
    fi
done

log "configuring $src -> $build"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
    -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_COMMON=ON -DLLAMA_BUILD_TOOLS=ON \
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    "${optional[@]}" >&2
log "building llama-server with $jobs jobs"
cmake --build "$build" --target llama-server -j "$jobs" >&2
[[ -x "$binary" ]] || { log "the build did not produce $binary"; exit 1; }
echo "$binary"
