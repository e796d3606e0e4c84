"""``ragmon replay`` on artifacts the peer tools wrote: every record handled, the incident flagged.

The trace's own reference (Ragas ``reference``, DeepEval ``expected_output``) is checked with the
golden-style numeric rules and no golden file: the seed's "30 ngày" answer, whose reference says
"7 ngày", gets ``numeric_missing``; the correct answers do not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from monitor.cli import main

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

PEERS = Path(__file__).resolve().parents[1] / "data" / "peers"
EXPECTED = json.loads((PEERS / "expected.json").read_text(encoding="utf-8"))
WITH_REFERENCE = sorted(
    name for name, records in EXPECTED.items() if not name.endswith(".csv") and records[0]["reference"]
)
SHAPES = sorted(name for name in EXPECTED if not name.endswith(".csv") and "+" not in name)


def _replay(tmp_path: Path, name: str) -> tuple[int, list[dict[str, Any]]]:
    out = tmp_path / f"{name}.results.jsonl"
    code = main(
        [
            "replay",
            str(PEERS / name),
            "--results",
            str(out),
            "--store",
            str(tmp_path / "review.db"),
            "--dlq",
            str(tmp_path / f"{name}.dlq.jsonl"),
        ]
    )
    return code, [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("name", SHAPES)
def test_replay_handles_every_shape_and_flags_the_incident_by_its_reference(
    tmp_path: Path, name: str
) -> None:
    """Exit 0, one result per expected record with its chunks, nothing dead-lettered; where the shape
    carries a reference, numeric_missing on each "30 ngày" answer (reference: 7 ngày) and no other."""
    code, records = _replay(tmp_path, name)
    assert code == 0
    expected = EXPECTED[name]
    assert sorted(r["signals"]["chunk_count"] for r in records) == sorted(
        len(e["contexts"]) for e in expected
    )
    dlq = tmp_path / f"{name}.dlq.jsonl"
    assert not dlq.exists() or not dlq.read_text(encoding="utf-8")
    if name not in WITH_REFERENCE:
        assert all(r["reference"] is None for r in records)
        return
    incidents = sum("30 ngày" in e["answer"] for e in expected)
    flagged = [r for r in records if any(f["reason"] == "numeric_missing" for f in r["flags"])]
    assert len(flagged) == incidents >= 1
    assert all(r["reference"]["numeric"]["missing"] == ["7 ngày"] for r in flagged)
    assert all(r["reference"] is not None for r in records)
