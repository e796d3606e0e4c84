"""Judge benchmarks: judged-path throughput against a 500 ms scripted server, and calls/tokens per trace.

Prints one JSON object per line. Token counts are the scripted server's estimates (1 token per CJK
character, 1 per 4 other characters; see tests/support/scripted_llm.py), not a real tokenizer's.
The Ragas and DeepEval figures are the brief's reference numbers for the same 20/150/5x200-token trace.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import multiprocessing
import os
import resource
import time
from collections.abc import Iterator, Sequence
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
import pytest
import structlog

from monitor.embeddings import Embedder, Kind, LocalE5Embedder, Vectors
from monitor.judge.base import JudgeChunk, JudgeInput, JudgeResult
from monitor.judge.client import ChatClient, ChatClientSettings, JsonSchemaMode
from monitor.judge.llm import LLMJudge
from monitor.judge.prompts import GROUNDING_SYSTEM
from tests.support.scripted_llm import (
    Recorded,
    Reply,
    ScriptedLLM,
    estimate_tokens,
    grounding_json,
    relevance_json,
)

pytestmark = [pytest.mark.bench, pytest.mark.timeout(120)]

LATENCY_S = 0.5
CONCURRENCY = 64
CALLS_PER_TRACE = 2
RAGAS = {"calls": 7, "prompt_tokens": 6900}
DEEPEVAL = {"calls": 13, "prompt_tokens": 7400}
CPU_MS_PER_TRACE = [0.0]  # client-process CPU of the last drive(), for a load-independent figure
SENTENCE = "Customers may return unopened items within seven days of delivery for a full refund. "


@pytest.fixture(autouse=True)
def quiet_logs() -> Any:
    """Keep stdout to the JSON lines: only warnings and above, restored afterwards."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    yield
    structlog.reset_defaults()


class HashEmbedder:
    """Deterministic pseudo-embeddings with no model: isolates the LLM path from embedding CPU cost."""

    name = "hash"

    def embed(self, texts: Sequence[str], kind: Kind) -> Vectors:
        rows = [
            np.frombuffer(hashlib.sha512(t.encode()).digest(), dtype=np.uint8).astype(np.float32)
            for t in texts
        ]
        out = np.stack(rows) if rows else np.zeros((0, 64), np.float32)
        return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


def text_of(tokens: int, salt: str = "") -> str:
    """English text of about ``tokens`` tokens under the server's chars/4 estimate."""
    body = (salt + " " + SENTENCE * (tokens * 4 // len(SENTENCE) + 1)).strip()
    return body[: tokens * 4]


def reference_trace(salt: str = "") -> JudgeInput:
    """The brief's comparison trace: 20-token question, 150-token answer, 5 chunks of 200 tokens."""
    chunks = tuple(JudgeChunk(f"c{i}", text_of(200, f"Chunk {i} {salt}")) for i in range(1, 6))
    return JudgeInput(f"t-{salt}", text_of(20, f"Q{salt}?"), text_of(150, f"A{salt}."), chunks)


def canned(request: Recorded) -> Reply:
    """Plausible verdicts for the reference trace: 6 claims over 5 chunks, 3 reverse questions."""
    if GROUNDING_SYSTEM in request.system:
        claims = [
            (f"Customers may return unopened items within seven days ({i}).", i < 5, [1 + i % 5])
            for i in range(6)
        ]
        return Reply.json(grounding_json(claims, [1, 2, 4]))
    questions = [
        "How long do customers have to return items?",
        "Can unopened items be refunded?",
        "What is the policy?",
    ]
    return Reply.json(relevance_json(questions))


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def emit(record: dict[str, Any]) -> None:
    print(json.dumps({**record, "peak_rss_mb": peak_rss_mb()}), flush=True)


async def drive(
    judge: LLMJudge, items: Sequence[JudgeInput], concurrency: int
) -> tuple[float, list[JudgeResult]]:
    gate = asyncio.Semaphore(concurrency)

    async def one(item: JudgeInput) -> JudgeResult:
        async with gate:
            return await judge.judge(item)

    start, cpu = time.perf_counter(), time.process_time()
    results = await asyncio.gather(*(one(item) for item in items))
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    CPU_MS_PER_TRACE[0] = 1000 * cpu / len(items)
    return len(items) / wall, list(results)


def settings(base_url: str, json_schema: JsonSchemaMode = "on") -> ChatClientSettings:
    # judge.concurrency bounds HTTP requests in flight; each trace makes CALLS_PER_TRACE of them.
    return ChatClientSettings(
        base_url=base_url,
        model="bench",
        api_key="k",
        timeout_s=10.0,
        max_concurrency=CONCURRENCY,
        json_schema=json_schema,
    )


def _serve(conn: Connection, latency_s: float) -> None:
    with ScriptedLLM(default=canned, latency_s=latency_s) as server:
        conn.send(server.base_url)
        conn.recv()


@contextlib.contextmanager
def server_process(latency_s: float) -> Iterator[str]:
    """The scripted server in its own process, so it does not share the judge's GIL and CPU budget."""
    parent, child = multiprocessing.get_context("fork").Pipe()
    process = multiprocessing.get_context("fork").Process(target=_serve, args=(child, latency_s), daemon=True)
    process.start()
    try:
        yield parent.recv()
    finally:
        parent.send("stop")
        process.join(timeout=5)
        if process.is_alive():
            process.terminate()


def throughput(embedder: Embedder, traces: int) -> tuple[float, list[JudgeResult]]:
    async def main() -> tuple[float, list[JudgeResult]]:
        with server_process(LATENCY_S) as base_url:
            async with ChatClient(settings(base_url)) as client:
                judge = LLMJudge(client, embedder, "bench")
                await drive(judge, [reference_trace("warm")], 1)
                return await drive(judge, [reference_trace(str(i)) for i in range(traces)], CONCURRENCY)

    return asyncio.run(main())


def test_bench_judged_path_throughput() -> None:
    """Traces/s with 64 requests in flight against 500 ms latency, vs the ideal 64 / 0.5 s / 2 calls."""
    ideal = CONCURRENCY / LATENCY_S / CALLS_PER_TRACE
    rate, results = throughput(HashEmbedder(), traces=CONCURRENCY * 4)
    assert all(r.scores.faithfulness == pytest.approx(5 / 6) for r in results)
    emit(
        {
            "name": "judge_http_path_hash_embedder",
            "traces_per_s": round(rate, 1),
            "baseline_traces_per_s": ideal,
            "ratio": round(rate / ideal, 3),
            "latency_s": LATENCY_S,
            "concurrency": CONCURRENCY,
            "calls_per_trace": CALLS_PER_TRACE,
            "requests_per_s": round(rate * CALLS_PER_TRACE, 1),
            "baseline_requests_per_s": CONCURRENCY / LATENCY_S,
            "client_cpu_ms_per_trace": round(CPU_MS_PER_TRACE[0], 2),
            "load_avg_1m": round(os.getloadavg()[0], 2),
            "note": "concurrency = HTTP requests in flight; baseline = concurrency / latency / calls",
        }
    )


def test_bench_judged_path_with_local_e5() -> None:
    """The same path with the in-process e5 embedder for answer relevance (CPU-bound on small machines)."""
    ideal = CONCURRENCY / LATENCY_S / CALLS_PER_TRACE
    rate, results = throughput(LocalE5Embedder(), traces=CONCURRENCY)
    assert all(r.scores.answer_relevance is not None for r in results)
    emit(
        {
            "name": "judge_path_local_e5",
            "traces_per_s": round(rate, 1),
            "baseline_traces_per_s": ideal,
            "ratio": round(rate / ideal, 3),
            "latency_s": LATENCY_S,
            "concurrency": CONCURRENCY,
            "embedded_texts_per_trace": 4,
            "client_cpu_ms_per_trace": round(CPU_MS_PER_TRACE[0], 2),
            "load_avg_1m": round(os.getloadavg()[0], 2),
        }
    )


@pytest.mark.parametrize("json_schema", ["on", "off"])
def test_bench_calls_and_tokens_per_trace(json_schema: JsonSchemaMode) -> None:
    """LLM calls and prompt/completion tokens for the reference trace, next to Ragas and DeepEval."""
    trace = reference_trace("tokens")

    async def main() -> JudgeResult:
        with ScriptedLLM(default=canned) as server:
            async with ChatClient(settings(server.base_url, json_schema)) as client:
                return await LLMJudge(client, HashEmbedder(), "bench").judge(trace)

    result = asyncio.run(main())
    inputs = estimate_tokens(trace.question) + estimate_tokens(trace.answer)
    inputs += sum(estimate_tokens(c.text) for c in trace.chunks)
    usage = result.usage
    emit(
        {
            "name": f"judge_tokens_per_trace_json_schema_{json_schema}",
            "traces_per_s": None,
            "baseline_traces_per_s": None,
            "ratio": round(usage.prompt_tokens / RAGAS["prompt_tokens"], 3),
            "calls": usage.calls,
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "trace_input_tokens": inputs,
            "ragas": RAGAS,
            "deepeval": DEEPEVAL,
            "vs_deepeval_prompt_ratio": round(usage.prompt_tokens / DEEPEVAL["prompt_tokens"], 3),
            "token_count": "scripted-server estimate: CJK 1/char, else chars/4, schema included",
        }
    )
    assert usage.calls <= 2 and usage.prompt_tokens <= 0.35 * RAGAS["prompt_tokens"]
