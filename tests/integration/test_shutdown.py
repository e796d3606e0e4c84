"""Graceful shutdown: in-flight judgements finish within the deadline, a blocked stdin does not hang
the exit, and a second Ctrl-C exits at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.support.daemon import parse_metrics, value, wait_until
from tests.support.kafka import free_port
from tests.support.scripted_llm import Reply, ScriptedLLM, grounding_json, relevance_json

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

TRACE = {
    "trace_id": "slow-1",
    "question": "How long do refunds take?",
    "answer": "Refunds take 5 business days.",
    "retrieved_chunks": [{"chunk_id": "c1", "text": "Refunds are issued within 5 business days."}],
}


def _metric(port: int, name: str, **labels: str) -> float:
    try:
        return value(
            parse_metrics(httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text), name, **labels
        )
    except httpx.HTTPError:
        return -1.0


def _daemon(
    tmp_path: Path, port: int, source: str, env: dict[str, str], **popen: object
) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable,
        "-m",
        "monitor.cli",
        "run",
        "--source",
        source,
        "--metrics-port",
        str(port),
        "--store",
        str(tmp_path / "review.db"),
        "--dlq",
        str(tmp_path / "dlq.jsonl"),
        "--results",
        str(tmp_path / "results.jsonl"),
    ]
    return subprocess.Popen(cmd, cwd=tmp_path, env={**os.environ, **env}, stderr=subprocess.DEVNULL, **popen)  # type: ignore[call-overload]


def _slow_judge_env(llm: ScriptedLLM) -> dict[str, str]:
    return {
        "RAGMON_SAMPLE_ALL": "true",
        "RAGMON_JUDGE__KIND": "openai",
        "RAGMON_JUDGE__URL": llm.base_url,
        "RAGMON_JUDGE__MODEL": "slow",
        "RAGMON_JUDGE__TIMEOUT_S": "60",
        "RAGMON_SHUTDOWN_DEADLINE_S": "30",
    }


def _scripted(latency_s: float) -> ScriptedLLM:
    llm = ScriptedLLM(latency_s=latency_s)
    llm.on("check an answer", Reply.json(grounding_json([("Refunds take 5 business days.", True, [1])], [1])))
    llm.on("Write", Reply.json(relevance_json(["How long do refunds take?"] * 3)))
    return llm


def test_sigterm_lets_the_inflight_judgement_finish(tmp_path: Path) -> None:
    """SIGTERM while a trace is being judged: it is finished and written, then the daemon exits 0."""
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(TRACE) + "\n", encoding="utf-8")
    port = free_port()
    with _scripted(3.0) as llm:
        proc = _daemon(tmp_path, port, str(src), _slow_judge_env(llm))
        try:
            wait_until(lambda: _metric(port, "ragmon_judge_inflight") >= 1, 60, "a judgement in flight")
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=40) == 0
        finally:
            proc.kill()
            proc.wait()
    records = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [r["trace_id"] for r in records] == ["slow-1"]
    assert records[0]["scores"]["faithfulness"] == 1.0


def test_second_sigint_exits_at_once(tmp_path: Path) -> None:
    """The first Ctrl-C drains (here: a judgement that takes 60 s); the second exits immediately."""
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(TRACE) + "\n", encoding="utf-8")
    port = free_port()
    with _scripted(60.0) as llm:
        proc = _daemon(tmp_path, port, str(src), _slow_judge_env(llm))
        try:
            wait_until(lambda: _metric(port, "ragmon_judge_inflight") >= 1, 60, "a judgement in flight")
            proc.send_signal(signal.SIGINT)
            time.sleep(1.0)
            assert proc.poll() is None  # still draining
            started = time.monotonic()
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=5) == 128 + signal.SIGINT
            assert time.monotonic() - started < 5
        finally:
            proc.kill()
            proc.wait()


def test_blocked_stdin_does_not_hang_shutdown(tmp_path: Path) -> None:
    """With stdin open and silent, SIGTERM still exits 0 after the trace that did arrive is handled."""
    port = free_port()
    proc = _daemon(tmp_path, port, "-", {}, stdin=subprocess.PIPE)
    try:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(TRACE) + "\n").encode())
        proc.stdin.flush()
        wait_until(lambda: _metric(port, "ragmon_traces_total", outcome="ok") >= 1, 60, "the trace counted")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        proc.wait()
        if proc.stdin is not None:
            proc.stdin.close()
