#!/usr/bin/env python3
"""Compare running servers on one ~950-token Vietnamese prompt (64-token reply), round-robin.

    python scripts/llm/bench_threads.py --rounds 3 t1=18082 t2+passive=18081 t2=18080

Start the servers first with serve.sh (e.g. N_THREADS=1 ...; OMP_WAIT_POLICY=ACTIVE ...); each one's log
must be the default MODEL_DIR/llama-server-PORT.log (or pass --log-dir). A nonce system message defeats
llama-cpp-python's prompt-prefix reuse, so every call evaluates the whole prompt. Needs httpx.
"""

from __future__ import annotations

import argparse
import re
import time
import uuid
from pathlib import Path

import httpx

PERF = re.compile(r"llama_perf_context_print:\s+(prompt eval time|eval time)\s+=\s+([\d.]+) ms /\s+(\d+)")
FILLER = (
    "Chính sách đổi trả áp dụng cho sản phẩm còn nguyên tem mác, chưa qua sử dụng và có hóa đơn mua hàng. "
    "Khách hàng liên hệ tổng đài hoặc gửi yêu cầu trên ứng dụng, nhân viên sẽ xác nhận trong 24 giờ. "
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("servers", nargs="+", help="NAME=PORT")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--log-dir", type=Path, default=Path("/work/llm/models"))
    args = ap.parse_args()
    servers = dict(s.split("=", 1) for s in args.servers)
    for rnd in range(args.rounds):
        for name, port in servers.items():
            log = args.log_dir / f"llama-server-{port}.log"
            off = log.stat().st_size
            body = {
                "messages": [
                    {"role": "system", "content": f"run {uuid.uuid4()}"},
                    {"role": "user", "content": FILLER * 17 + "\nTóm tắt trong một câu."},
                ],
                "temperature": 0,
                "max_tokens": 64,
            }
            t0 = time.perf_counter()
            httpx.post(
                f"http://127.0.0.1:{port}/v1/chat/completions", json=body, timeout=600
            ).raise_for_status()
            wall = time.perf_counter() - t0
            perf: dict[str, tuple[int, float]] = {}
            for _ in range(30):  # the perf lines reach the log just after the response
                time.sleep(0.2)
                text = log.read_bytes()[off:].decode("utf-8", "replace")
                perf = {k: (int(n), float(ms)) for k, ms, n in PERF.findall(text)}
                if len(perf) == 2:
                    break
            rates = " | ".join(f"{k} {n} tok {n / (ms / 1000):6.1f} tok/s" for k, (n, ms) in perf.items())
            print(f"round {rnd} {name:12s} wall {wall:6.1f}s | {rates}", flush=True)


if __name__ == "__main__":
    main()
