#!/usr/bin/env bash
# Start llama-cpp-python's OpenAI-compatible server on loopback, wait until it answers, print its pid.
#
#   scripts/llm/serve.sh MODEL_PATH PORT            -> prints the server's pid on stdout
#   kill "$pid"                                     -> stops it (SIGTERM; uvicorn exits cleanly)
#
# Environment (all optional):
#   VENV            venv with llama-cpp-python[server]==0.3.36 (default /work/llm/venv; see build_server.sh)
#   N_CTX           context window in tokens (default 4096: a ~2k-token judge prompt, Vietnamese costing
#                   more tokens per character, plus room for the JSON reply; KV cache is ~28 KiB/token)
#   N_THREADS       generation and prompt threads (default 2 = the machine's cores)
#   MODEL_ALIAS     the id listed by /v1/models (default: the file name without .gguf); the server
#                   serves the one model whatever "model" a request names
#   READY_TIMEOUT_S seconds to wait for /v1/models (default 120; the model loads in a few seconds)
#   LOG             server log (default: beside the model, llama-server-PORT.log)
#   PIDFILE         if set, the pid is also written there
#   EXTRA_ARGS      more llama_cpp.server flags, e.g. "--flash_attn true"
#   OMP_WAIT_POLICY default PASSIVE (see below); set ACTIVE for ggml's default spinning threads
#
# Options chosen:
#   --chat_format is NOT given: the GGUF embeds Qwen's chat template (tokenizer.chat_template), which
#     llama-cpp-python renders with jinja2; that is the "auto" format.
#   --logits_all false: the server's own default is true (logits for every prompt token, needed only
#     for `logprobs`); a judge needs none, and off is faster on long prompts.
#   --n_batch 512 (default), --cache false (default: no prompt cache between unrelated traces),
#   --interrupt_requests true (default; only affects streaming, which the judge does not use).
#   OMP_WAIT_POLICY=PASSIVE: ggml's OpenMP threads otherwise spin at every barrier; when another process
#     holds one of the 2 cores (pytest, the ragmon daemon under test, a colleague's build) the spinning
#     thread waits a whole scheduler slice for the preempted one, and generation fell from ~25 to
#     0.4-1.4 tokens/s (a 54-token reply took 70-164 s instead of 13 s). Passive waiting measured the
#     same under that load as 1 thread (~23 s) and nearly the spinning speed when the machine is idle
#     (prompt ~85-89 vs ~86-92 tokens/s; generation ~18 vs ~25-27 tokens/s). See PROBE.md.
# Requests are served one at a time (the server holds a lock around the model): concurrent clients queue.
set -euo pipefail

MODEL=${1:?usage: serve.sh MODEL_PATH PORT}
PORT=${2:?usage: serve.sh MODEL_PATH PORT}
VENV=${VENV:-/work/llm/venv}
N_CTX=${N_CTX:-4096}
N_THREADS=${N_THREADS:-2}
ALIAS=${MODEL_ALIAS:-$(basename "$MODEL" .gguf)}
READY_TIMEOUT_S=${READY_TIMEOUT_S:-120}
LOG=${LOG:-$(dirname "$(realpath "$MODEL")")/llama-server-$PORT.log}
HOST=127.0.0.1
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
URL="http://$HOST:$PORT/v1/models"

[ -f "$MODEL" ] || { echo "serve.sh: no model at $MODEL (run fetch_model.py)" >&2; exit 1; }
[ -x "$VENV/bin/python" ] || { echo "serve.sh: no venv at $VENV (run build_server.sh)" >&2; exit 1; }
if curl -s -o /dev/null --max-time 2 "$URL"; then
    echo "serve.sh: something already answers on $HOST:$PORT" >&2
    exit 1
fi

# setsid: the server is its own process group, so it outlives this script and `kill PID` ends it alone.
# shellcheck disable=SC2086  # EXTRA_ARGS is meant to split into words
setsid "$VENV/bin/python" -m llama_cpp.server \
    --model "$MODEL" --model_alias "$ALIAS" \
    --host "$HOST" --port "$PORT" \
    --n_ctx "$N_CTX" --n_threads "$N_THREADS" --n_threads_batch "$N_THREADS" \
    --n_batch 512 --logits_all false --cache false --verbose true \
    ${EXTRA_ARGS:-} \
    </dev/null >"$LOG" 2>&1 &
pid=$!
[ -n "${PIDFILE:-}" ] && echo "$pid" >"$PIDFILE"

start=$(date +%s)
until curl -sf -o /dev/null --max-time 2 "$URL"; do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "serve.sh: server exited during start-up; last log lines ($LOG):" >&2
        tail -20 "$LOG" >&2
        exit 1
    fi
    if (( $(date +%s) - start >= READY_TIMEOUT_S )); then
        echo "serve.sh: no answer from $URL after ${READY_TIMEOUT_S}s; stopping pid $pid" >&2
        kill "$pid" 2>/dev/null || true
        exit 1
    fi
    sleep 0.5
done
echo "serve.sh: $ALIAS ready on http://$HOST:$PORT/v1 after $(( $(date +%s) - start ))s (pid $pid, log $LOG)" >&2
echo "$pid"
