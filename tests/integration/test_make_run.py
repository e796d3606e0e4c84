"""`make run` (the README's first command) processes the bundled sample and serves /metrics until SIGTERM."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from monitor.exceptions import TraceError
from monitor.sources import sample_path
from monitor.trace import Trace, parse_message
from tests.support.daemon import Daemon, wait_until
from tests.support.kafka import free_port

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


def valid_sample_traces() -> int:
    """How many lines of the bundled sample are valid traces (not bad lines, not feedback events)."""
    count = 0
    for line in sample_path().read_bytes().splitlines():
        if not line.strip():
            continue
        try:
            count += isinstance(parse_message(line), Trace)
        except TraceError:
            continue
    return count


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux /proc), nearest first."""
    found: list[int] = []
    frontier = [pid]
    while frontier:
        parent = frontier.pop(0)
        for task in Path(f"/proc/{parent}/task").glob("*"):
            children = (task / "children").read_text().split()
            found.extend(int(c) for c in children)
            frontier.extend(int(c) for c in children)
    return found


def ragmon_pid(make_pid: int) -> int:
    """The ragmon process make started (make may run it directly or through /bin/sh)."""
    for pid in descendants(make_pid):
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if any(part.endswith(b"ragmon") for part in cmdline):
            return pid
    raise AssertionError(f"make (pid {make_pid}) started no ragmon process")


@pytest.mark.timeout(120)
def test_make_run_processes_the_sample_and_serves_metrics(tmp_path: Path) -> None:
    """make run: every valid sample trace counted, /healthz and /readyz 200, SIGTERM exits 0."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("GNU make is not installed")
    venv = Path(sys.executable).parent.parent
    port = free_port()
    # -o: never rebuild the venv here; run from a temp dir so the dead-letter file lands there.
    argv = [
        make,
        "-s",
        "-f",
        str(ROOT / "Makefile"),
        "-o",
        str(venv / "bin" / "ragmon"),
        "run",
        f"PORT={port}",
        f"VENV={venv}",
    ]
    log_path = tmp_path / "make-run.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(argv, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    daemon = Daemon(proc, port, log_path)
    try:
        expected = valid_sample_traces()
        assert expected > 0
        daemon.wait_metric("ragmon_traces_total", expected, 90, outcome="ok")
        time.sleep(0.5)  # nothing more may arrive: the sample is finite
        assert daemon.metric("ragmon_traces_total", outcome="ok") == expected
        assert daemon.metric("ragmon_traces_total", outcome="invalid") > 0  # the sample's bad lines
        wait_until(lambda: daemon.status("/readyz") == 200, 10, "/readyz 200")
        assert daemon.status("/healthz") == 200
        os.kill(ragmon_pid(proc.pid), signal.SIGTERM)  # what Ctrl-C or an orchestrator does
        assert proc.wait(timeout=30) == 0, daemon.log_tail()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
