"""Log lines about a trace carry its trace id and origin; JSON when not a terminal."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

from prometheus_client import CollectorRegistry

from monitor.app import replay
from monitor.config import load_settings
from monitor.logging import configure_logging


def test_lines_about_a_message_carry_trace_id_and_origin(tmp_path: Path) -> None:
    """A rejected line names its file line; a flagged trace (a debug line) names its trace id and line."""
    src = tmp_path / "in.jsonl"
    flagged = {"trace_id": "t-neg", "question": "q", "answer": "a", "feedback": {"rating": "negative"}}
    src.write_text("{broken\n" + json.dumps(flagged) + "\n", encoding="utf-8")
    stream = io.StringIO()
    configure_logging("debug", "auto", stream=stream)
    settings = load_settings(
        overrides={"source": str(src), "dlq": str(tmp_path / "d.jsonl"), "store": str(tmp_path / "r.db")},
        environ={},
    )
    asyncio.run(replay(settings, CollectorRegistry()))
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    events = {line["event"]: line for line in lines}
    assert events["message_rejected"]["line"] == 1 and events["message_rejected"]["path"] == str(src)
    assert "trace_id" not in events["message_rejected"]
    assert events["trace_flagged"]["trace_id"] == "t-neg" and events["trace_flagged"]["line"] == 2


def test_throttle_lets_a_burst_through_then_counts_what_it_held_back() -> None:
    """Five lines of one event per window; the first line of the next window says how many were held."""
    from monitor.logging import Throttle

    now = [0.0]
    throttle = Throttle(burst=5, window_s=10.0, clock=lambda: now[0])
    allowed = [throttle.allow("sampling_skipped") for _ in range(8)]
    assert [ok for ok, _ in allowed] == [True] * 5 + [False] * 3
    assert throttle.allow("other") == (True, 0)  # events are counted apart
    now[0] = 11.0
    assert throttle.allow("sampling_skipped") == (True, 3)
