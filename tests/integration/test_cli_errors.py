"""A user's mistake gets one line naming the setting and exit code 2, never a traceback.

Each case is run as a user runs it: the ``ragmon`` console script in a subprocess.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry

from monitor.app import replay
from monitor.config import load_settings
from monitor.sources import sample_path
from tests.support.daemon import ragmon_executable

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


def _ragmon(*args: str, cwd: Path, input_text: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ragmon_executable(), *args],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=cwd,
        check=False,
        input=input_text,
    )


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in done.stderr.splitlines() if line.startswith("ragmon")]
    assert "Traceback" not in done.stderr, done.stderr
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_port_in_use(tmp_path: Path) -> None:
    """A metrics port that is taken names metrics_port."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        done = _ragmon("run", "--metrics-port", str(taken.getsockname()[1]), cwd=tmp_path)
    finally:
        taken.close()
    assert done.returncode == 2 and _one_line(done).startswith("ragmon: metrics_port: cannot listen on")


def test_unresolvable_metrics_host(tmp_path: Path) -> None:
    """A host that does not resolve names metrics_host."""
    done = _ragmon("run", "--metrics-host", "no-such-host.invalid", cwd=tmp_path)
    assert done.returncode == 2 and "metrics_host: cannot resolve" in _one_line(done)


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ("kafka://127.0.0.1:notaport/topic", "broker port 'notaport'"),
        ("kafka://127.0.0.1:9092/topic?grp=g", "unknown option 'grp'"),
        ("kafka://127.0.0.1/topic", "needs a port"),
    ],
)
def test_bad_kafka_urls(tmp_path: Path, source: str, says: str) -> None:
    """A mistyped Kafka URL is one line naming source."""
    done = _ragmon("run", "--source", source, "--metrics-port", "0", cwd=tmp_path)
    line = _one_line(done)
    assert done.returncode == 2 and line.startswith("ragmon: source:") and says in line


def test_golden_sections_without_golden(tmp_path: Path) -> None:
    """--golden-sections alone is refused, naming what is missing."""
    done = _ragmon("replay", "x.jsonl", "--golden-sections", "s.json", cwd=tmp_path)
    assert done.returncode == 2 and "golden_sections: given without golden" in _one_line(done)


def test_review_of_a_store_that_does_not_exist(tmp_path: Path) -> None:
    """`review list --store typo.db` is an error and creates no empty database."""
    done = _ragmon("review", "list", "--store", "typo.db", cwd=tmp_path)
    assert done.returncode != 0 and "no review store at typo.db" in _one_line(done)
    assert not (tmp_path / "typo.db").exists()


def test_review_list_into_a_closed_pipe(tmp_path: Path) -> None:
    """`ragmon review list | head -1` ends quietly, without a BrokenPipeError traceback."""
    _ragmon("replay", str(sample_path()), "--store", "r.db", "--dlq", "d.jsonl", cwd=tmp_path)
    done = subprocess.run(  # noqa: S602 - the shell's pipe is the point of the test
        f"'{ragmon_executable()}' review list --store r.db | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=90,
        cwd=tmp_path,
        check=False,
    )
    assert done.stdout.startswith("TRACE") and "Traceback" not in done.stderr and "Broken" not in done.stderr


def test_replay_that_accepts_nothing_fails(tmp_path: Path) -> None:
    """A file in which no line is a valid trace says so and exits 1."""
    (tmp_path / "bad.jsonl").write_text("{oops\n[1]\n", encoding="utf-8")
    done = _ragmon(
        "replay", "bad.jsonl", "--dlq", "d.jsonl", "--store", "r.db", "--log-level", "error", cwd=tmp_path
    )
    assert done.returncode == 1 and "none of its 2 lines was accepted" in _one_line(done)


def test_summary_and_metrics_count_flags_alike(tmp_path: Path) -> None:
    """The replay summary's flag counts are the ragmon_flagged_total counters (late re-runs included)."""
    registry = CollectorRegistry()
    settings = load_settings(
        overrides={
            "source": str(sample_path()),
            "dlq": str(tmp_path / "d.jsonl"),
            "store": str(tmp_path / "r.db"),
        },
        environ={},
    )
    summary = asyncio.run(replay(settings, registry))
    assert summary.flagged
    for reason, count in summary.flagged.items():
        assert registry.get_sample_value("ragmon_flagged_total", {"reason": reason}) == count, reason
    assert json.dumps(dict(summary.flagged))  # plain data for --format json
