"""A replay decides by the traces' own time: the same file gives the same results at any speed.

The judge budget refills by event time in ``replay`` (the daemon keeps wall-clock time), so which traces
are judged depends on the file, not on how fast the machine runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from importlib.resources import files
from pathlib import Path

import pytest
import yaml

from tests.support.daemon import ragmon_executable

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
TRACES = 240
SPACING_S = 1.0
PER_MINUTE = 6


def _traces() -> list[str]:
    start = datetime(2026, 9, 25, 17, 0, tzinfo=UTC)
    chunk = {"chunk_id": "c01", "sections": ["DT-1"], "text": "Khách được đổi trả trong 7 ngày."}
    return [
        json.dumps(
            {
                "trace_id": f"d{n:04d}",
                "timestamp": (start + timedelta(seconds=n * SPACING_S)).isoformat(),
                "question": "Áo trả trong mấy ngày?",
                "answer": f"Bạn có {30 + n % 9} ngày để đổi trả.",  # never in the chunk: numeric_finding
                "retrieved_chunks": [chunk],
                "citations": ["c01"],
            },
            ensure_ascii=False,
        )
        for n in range(TRACES)
    ]


def _rules(tmp_path: Path) -> Path:
    rules = tmp_path / "rules"
    shutil.copytree(Path(str(files("monitor") / "rules")), rules)
    sampling = yaml.safe_load((rules / "sampling.yaml").read_text(encoding="utf-8"))
    # The shared bucket alone (no random floor): the judged count below is the bucket's refill.
    budget = {"traces_per_minute": PER_MINUTE, "tokens_per_hour": None, "reserve": 0.0}
    sampling["budget"] = {**budget, "random_floor_per_hour": 0}
    (rules / "sampling.yaml").write_text(yaml.safe_dump(sampling), encoding="utf-8")
    return rules


def _replay(tmp_path: Path, name: str, rules: Path, env: dict[str, str]) -> list[dict[str, object]]:
    results = tmp_path / f"{name}.jsonl"
    done = subprocess.run(
        [
            ragmon_executable(),
            "replay",
            str(tmp_path / "traces.jsonl"),
            "--rules-dir",
            str(rules),
            "--results",
            str(results),
            "--dlq",
            str(tmp_path / f"{name}-dlq.jsonl"),
            "--store",
            str(tmp_path / f"{name}.db"),
            "--log-level",
            "error",
        ],
        capture_output=True,
        text=True,
        timeout=280,
        cwd=tmp_path,
        check=False,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    records = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    for record in records:
        record.pop("origin", None)  # holds the file path only
    return sorted(records, key=lambda r: str(r["trace_id"]))


def test_two_speeds_give_the_same_results(tmp_path: Path) -> None:
    """One file replayed fast and slowly (one trace in flight at a time): identical result records."""
    (tmp_path / "traces.jsonl").write_text("\n".join(_traces()) + "\n", encoding="utf-8")
    rules = _rules(tmp_path)
    fast = _replay(tmp_path, "fast", rules, {})
    slow = _replay(tmp_path, "slow", rules, {"RAGMON_MAX_INFLIGHT": "1", "RAGMON_JUDGE__CONCURRENCY": "1"})
    assert [json.dumps(r, sort_keys=True) for r in fast] == [json.dumps(r, sort_keys=True) for r in slow]
    judged = sum(1 for r in fast if r["scores"] is not None)
    # A full bucket (6) plus what the traces' 4 minutes refill (6 a minute): event time, not wall time.
    expected = PER_MINUTE + (TRACES - 1) * SPACING_S / 60 * PER_MINUTE
    assert abs(judged - expected) <= 2, judged


def test_replay_starts_its_results_afresh(tmp_path: Path) -> None:
    """``replay --results`` rewrites the file: it is the report of one run."""
    (tmp_path / "traces.jsonl").write_text("\n".join(_traces()[:5]) + "\n", encoding="utf-8")
    rules = _rules(tmp_path)
    _replay(tmp_path, "again", rules, {})
    assert len(_replay(tmp_path, "again", rules, {})) == 5


def test_the_daemon_results_file_is_appended_to_on_restart(tmp_path: Path) -> None:
    """``run --results`` opens the file for appending: a restart keeps what an earlier run wrote."""
    from monitor.sinks import ResultsFile
    from monitor.trace import Trace

    trace = Trace(trace_id="t", question="q", answer="a")
    for _ in range(2):
        sink = ResultsFile(tmp_path / "results.jsonl")
        sink.write(trace, {"trace_id": "t"}, flagged=False, late=False)
        sink.close()
    assert len((tmp_path / "results.jsonl").read_text(encoding="utf-8").splitlines()) == 2
