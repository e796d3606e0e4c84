"""The replay progress line: counts, rate, share and time left on a terminal; nothing in a pipe."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from monitor.progress import Progress


def test_progress_line_shows_counts_share_and_time_left() -> None:
    """One redraw shows messages, rate, the share of bytes done and an estimate; close erases it."""
    out = io.StringIO()
    progress = Progress(out)
    progress.update(1200, 250_000, 1_000_000)
    line = out.getvalue()
    assert "1,200 messages" in line and "/s" in line and "25% of 1.0 MB" in line and "left" in line
    progress.close()
    assert out.getvalue().endswith("\r")


def _traces(path: Path, count: int) -> None:
    rows = ({"trace_id": f"p{i}", "question": "q", "answer": "a"} for i in range(count))
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")


def test_replay_on_a_terminal_draws_progress_and_in_a_pipe_does_not(tmp_path: Path) -> None:
    """``ragmon replay`` redraws a progress line when stderr is a terminal, and stays quiet otherwise."""
    traces = tmp_path / "t.jsonl"
    _traces(traces, 50)
    ragmon = str(Path(sys.executable).with_name("ragmon"))
    argv = [
        ragmon,
        "replay",
        str(traces),
        "--dlq",
        str(tmp_path / "d.jsonl"),
        "--store",
        str(tmp_path / "r.db"),
    ]
    piped = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path)
    assert piped.returncode == 0 and "messages," not in piped.stderr
    leader, follower = pty.openpty()
    done = subprocess.run(
        argv, stdout=subprocess.PIPE, stderr=follower, timeout=120, check=False, cwd=tmp_path
    )
    os.close(follower)
    shown = b""
    try:
        while chunk := os.read(leader, 65536):
            shown += chunk
    except OSError:
        pass
    os.close(leader)
    assert done.returncode == 0
    assert b"replay: 50 messages" in shown
