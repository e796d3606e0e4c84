#!/usr/bin/env bash
# Build llama-cpp-python[server]==0.3.36 (CPU) once, keep the wheel, install it into a venv.
#
#   scripts/llm/build_server.sh VENV_DIR [WHEEL_DIR]
#
# VENV_DIR   venv to create/reuse (e.g. /work/llm/venv); keep it outside the repo.
# WHEEL_DIR  where the built wheel is kept (default: $(dirname VENV_DIR)/wheels).
#
# Idempotent:
#   - the venv already imports llama_cpp 0.3.36 with the server extras -> nothing to do;
#   - a llama_cpp_python-0.3.36-*.whl is already in WHEEL_DIR -> it is installed, never rebuilt;
#   - otherwise the sdist is built from PyPI with `pip wheel` (~20-25 min on 2 cores), then installed.
#
# The build is native (-DGGML_NATIVE=ON: -march=native), so a wheel built on one CPU model
# is only safe to reuse on machines with the same instruction set (set LLAMA_NATIVE=OFF to build
# a portable, slower one). Build log: WHEEL_DIR/build-llama-cpp-python-0.3.36.log.
set -euo pipefail

VERSION=0.3.36
VENV_DIR=${1:?usage: build_server.sh VENV_DIR [WHEEL_DIR]}
WHEEL_DIR=${2:-$(dirname "$(realpath -m "$VENV_DIR")")/wheels}
PYTHON=${PYTHON:-python3}
JOBS=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
NATIVE=${LLAMA_NATIVE:-ON}

mkdir -p "$WHEEL_DIR"
LOG="$WHEEL_DIR/build-llama-cpp-python-$VERSION.log"

installed_ok() {
    [ -x "$VENV_DIR/bin/python" ] && "$VENV_DIR/bin/python" - "$VERSION" <<'EOF' 2>/dev/null
import sys
import llama_cpp, uvicorn, fastapi, sse_starlette, pydantic_settings  # server extras
import llama_cpp.server.app  # noqa: F401
sys.exit(0 if llama_cpp.__version__ == sys.argv[1] else 1)
EOF
}

if installed_ok; then
    echo "llama-cpp-python[server]==$VERSION already installed in $VENV_DIR"
    exit 0
fi

[ -x "$VENV_DIR/bin/python" ] || "$PYTHON" -m venv "$VENV_DIR"
"$VENV_DIR/bin/python" -m pip install -q --upgrade pip

shopt -s nullglob
wheels=("$WHEEL_DIR"/llama_cpp_python-"$VERSION"-*.whl)
if [ ${#wheels[@]} -eq 0 ]; then
    # Shorten the build without slowing inference:
    #   LLAVA_BUILD=OFF   skips the multimodal mtmd/clip library (only the vision chat
    #                     handlers import it, lazily);
    #   LLAMA_BUILD_{TESTS,EXAMPLES,TOOLS,SERVER}=OFF  (already the default when llama.cpp
    #                     is a subproject; stated so it stays that way);
    #   LLAMA_OPENSSL=OFF no HTTPS model download support needed (curl is forced off too);
    #   GGML_NATIVE=ON    -march=native: AVX2/AVX-512 kernels for this CPU.
    CMAKE_ARGS_DEFAULT="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
-DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=$NATIVE"
    export CMAKE_ARGS="${CMAKE_ARGS:-$CMAKE_ARGS_DEFAULT}"
    export CMAKE_BUILD_PARALLEL_LEVEL="$JOBS"
    echo "building llama-cpp-python==$VERSION wheel (CMAKE_ARGS=$CMAKE_ARGS, jobs=$JOBS); log: $LOG"
    start=$(date +%s)
    tmp=$(mktemp -d "$WHEEL_DIR/.build.XXXXXX")
    if ! "$VENV_DIR/bin/python" -m pip wheel --no-deps --no-binary llama-cpp-python \
        --config-settings=cmake.build-type=Release \
        -w "$tmp" "llama-cpp-python==$VERSION" >"$LOG" 2>&1; then
        echo "build failed; see $LOG" >&2
        tail -30 "$LOG" >&2
        rm -rf "$tmp"
        exit 1
    fi
    mv "$tmp"/llama_cpp_python-"$VERSION"-*.whl "$WHEEL_DIR"/
    rm -rf "$tmp"
    echo "built in $(( $(date +%s) - start )) s" | tee -a "$LOG"
    wheels=("$WHEEL_DIR"/llama_cpp_python-"$VERSION"-*.whl)
fi

echo "installing ${wheels[0]} with the server extras"
# --only-binary: never fall back to building the sdist again; the extras' dependencies come from PyPI.
"$VENV_DIR/bin/python" -m pip install -q --find-links "$WHEEL_DIR" --only-binary llama-cpp-python \
    "llama-cpp-python[server]==$VERSION"
installed_ok || { echo "install check failed in $VENV_DIR" >&2; exit 1; }
echo "llama-cpp-python[server]==$VERSION installed in $VENV_DIR"
