"""Seed 000 on live traffic: golden MRR and hit@1 per index version read back from a running daemon."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.banhang import GOLDEN, POLICY, seed_traces
from tests.support.daemon import start_daemon, value
from tests.support.kafka import free_port

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


def test_live_mrr_and_hit_at_1_fall_with_the_chunk_800_deploy(tmp_path: Path) -> None:
    """Replaying chunk-200 then chunk-800 gives MRR@5 0.90 vs 0.63 and hit@1 0.80 vs 0.40 in /metrics."""
    src = tmp_path / "traces.jsonl"
    rows = seed_traces("chunk-200") + seed_traces("chunk-800")
    src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    daemon = start_daemon(
        [
            "--source",
            str(src),
            "--golden",
            str(GOLDEN),
            "--golden-sections",
            str(POLICY),
            "--store",
            str(tmp_path / "review.db"),
            "--dlq",
            str(tmp_path / "dlq.jsonl"),
        ],
        free_port(),
        tmp_path / "ragmon.log",
        results=tmp_path / "results.jsonl",
        cwd=tmp_path,
    )
    try:
        daemon.wait_metric("ragmon_traces_total", len(rows), 120, outcome="ok")
        samples = daemon.metrics()
    finally:
        assert daemon.stop() == 0

    def metric(name: str, **labels: str) -> float:
        return value(samples, name, **labels)

    mrr = {
        idx: metric("ragmon_golden_reciprocal_rank_sum", index_version=idx)
        / metric("ragmon_golden_reciprocal_rank_count", index_version=idx)
        for idx in ("chunk-200", "chunk-800")
    }
    hit1 = {
        idx: metric("ragmon_golden_first_hit_rank_bucket", index_version=idx, le="1.0")
        / metric("ragmon_golden_first_hit_rank_count", index_version=idx)
        for idx in ("chunk-200", "chunk-800")
    }
    assert metric("ragmon_golden_matched_total") == 10
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
