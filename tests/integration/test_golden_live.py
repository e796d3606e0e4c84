"""Seed 000 on live traffic: golden MRR and hit@1 per index version read back from a running daemon."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.banhang import GOLDEN, POLICY, seed_traces

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def _scrape_until(url: str, name: str, labels: dict[str, str], want: float, deadline_s: float) -> dict:  # type: ignore[type-arg]
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        try:
            samples = _samples(httpx.get(url, timeout=2).text)
            if samples.get((name, tuple(sorted(labels.items()))), 0) >= want:
                return samples
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AssertionError(f"{name}{labels} never reached {want}")


def test_live_mrr_and_hit_at_1_fall_with_the_chunk_800_deploy(tmp_path: Path) -> None:
    """Replaying chunk-200 then chunk-800 gives MRR@5 0.90 vs 0.63 and hit@1 0.80 vs 0.40 in /metrics."""
    src = tmp_path / "traces.jsonl"
    rows = seed_traces("chunk-200") + seed_traces("chunk-800")
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    port = _free_port()
    cmd = [
        sys.executable,
        "-m",
        "monitor.cli",
        "run",
        "--source",
        str(src),
        "--metrics-port",
        str(port),
        "--golden",
        str(GOLDEN),
        "--golden-sections",
        str(POLICY),
        "--store",
        str(tmp_path / "review.db"),
        "--results",
        str(tmp_path / "results.jsonl"),
        "--dlq",
        str(tmp_path / "dlq.jsonl"),
    ]
    proc = subprocess.Popen(
        cmd, cwd=tmp_path, stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(Path.cwd())}
    )
    try:
        samples = _scrape_until(
            f"http://127.0.0.1:{port}/metrics", "ragmon_traces_total", {"outcome": "ok"}, len(rows), 120
        )
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0

    def value(name: str, **labels: str) -> float:
        return samples[(name, tuple(sorted(labels.items())))]

    mrr = {
        idx: value("ragmon_golden_reciprocal_rank_sum", index_version=idx)
        / value("ragmon_golden_reciprocal_rank_count", index_version=idx)
        for idx in ("chunk-200", "chunk-800")
    }
    hit1 = {
        idx: value("ragmon_golden_first_hit_rank_bucket", index_version=idx, le="1.0")
        / value("ragmon_golden_first_hit_rank_count", index_version=idx)
        for idx in ("chunk-200", "chunk-800")
    }
    assert value("ragmon_golden_matched_total") == 10
    assert round(mrr["chunk-200"], 2) == 0.90 and round(mrr["chunk-800"], 2) == 0.63
    assert round(hit1["chunk-200"], 2) == 0.80 and round(hit1["chunk-800"], 2) == 0.40

    results = {
        r["trace_id"]: r for r in map(json.loads, (tmp_path / "results.jsonl").read_text().splitlines())
    }
    q01_bad = {f["reason"] for f in results["chunk-800-q01"]["flags"]}
    assert {"numeric_missing", "numeric_out_of_source"} <= q01_bad
    assert results["chunk-800-q01"]["golden"]["numeric"] == {
        "missing": ["7 ngày"],
        "out_of_source": ["30 ngày"],
    }
    assert not {"numeric_missing", "numeric_out_of_source"} & {
        f["reason"] for f in results["chunk-200-q01"]["flags"]
    }
