#!/usr/bin/env bash
# One entry point for an LLM integration run: build (once), fetch the model (once), serve, run, stop.
#
#   scripts/llm/test_llm.sh [COMMAND...]
#
# COMMAND runs with RAGMON_LLM_URL=http://127.0.0.1:PORT/v1 and RAGMON_LLM_MODEL set, and the server is
# stopped by its pid afterwards (also on failure or Ctrl-C). Default COMMAND: probe.py's ragmon
# ChatClient check. A Makefile target could be:
#
#   test-llm: $(BIN)/ragmon ## integration test against a real local model (first run builds ~5 min)
#   	scripts/llm/test_llm.sh $(BIN)/pytest -m llm tests
#
# Environment: LLM_DIR (default /work/llm: venv/, wheels/, models/ go there, never into the repo),
# LLM_PORT (default 18080), plus serve.sh's N_CTX, N_THREADS, EXTRA_ARGS.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
LLM_DIR=${LLM_DIR:-/work/llm}
PORT=${LLM_PORT:-18080}
MODEL_NAME=qwen2.5-coder-1.5b-instruct-q4_k_m

"$HERE/build_server.sh" "$LLM_DIR/venv" "$LLM_DIR/wheels"
model=$(python3 "$HERE/fetch_model.py" "$LLM_DIR/models")
pid=$(VENV="$LLM_DIR/venv" MODEL_ALIAS=$MODEL_NAME "$HERE/serve.sh" "$model" "$PORT")
stop() {
    kill "$pid" 2>/dev/null || return 0
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
    echo "test_llm.sh: server pid $pid still running 10 s after SIGTERM" >&2
}
trap stop EXIT INT TERM

export RAGMON_LLM_URL="http://127.0.0.1:$PORT/v1" RAGMON_LLM_MODEL=$MODEL_NAME
if [ $# -eq 0 ]; then
    repo=$(cd "$HERE/../.." && pwd)
    py="$repo/.venv/bin/python"
    [ -x "$py" ] || py=python3
    out=$(mktemp -t probe-XXXXXX.md)
    (cd "$repo" && "$py" "$HERE/probe.py" --base-url "$RAGMON_LLM_URL" --out "$out" --only-ragmon)
    cat "$out"
    rm -f "$out"
else
    "$@"
fi
