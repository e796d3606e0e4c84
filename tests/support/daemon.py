"""Runs ``ragmon run`` as a real subprocess and reads what it serves: /metrics, /healthz, /readyz.

Used by the integration tests (Kafka daemon, ``make run``): the daemon is started the way a user or an
orchestrator starts it, stopped with real signals, and observed only through its HTTP endpoints and
its results file.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

# Short consumer-group timings (a join takes ~3 s) and frequent commits, so tests stay quick.
FAST_KAFKA_ENV = {
    "RAGMON_KAFKA__SESSION_TIMEOUT_MS": "6000",
    "RAGMON_KAFKA__HEARTBEAT_INTERVAL_MS": "1000",
    "RAGMON_KAFKA__MAX_POLL_INTERVAL_MS": "10000",
    "RAGMON_KAFKA__COMMIT_INTERVAL_S": "0.2",
}
HTTP_TIMEOUT_S = 2.0


def ragmon_executable() -> str:
    """The ``ragmon`` console script of the interpreter running the tests."""
    return str(Path(sys.executable).with_name("ragmon"))


Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse_metrics(text: str) -> Samples:
    """Prometheus text exposition -> {(sample name, labels): value}."""
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return out


def value(samples: Samples, name: str, **labels: str) -> float:
    """One sample's value; 0 when the series does not exist (yet)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def http_status(url: str) -> int:
    """The status of a GET, or 0 when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=HTTP_TIMEOUT_S) as response:  # noqa: S310 - loopback test URL
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:
        return 0


def wait_until(check: Callable[[], bool], timeout_s: float, what: str, interval_s: float = 0.2) -> None:
    """Poll ``check`` until it holds; fail with ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:g}s waiting for {what}")
        time.sleep(interval_s)


@dataclass
class Daemon:
    """One ``ragmon`` subprocess, its metrics port, results file and log."""

    proc: subprocess.Popen[bytes]
    port: int
    log_path: Path
    results: Path | None = None
    _closed: bool = field(default=False, repr=False)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def metrics(self) -> Samples:
        """The current scrape; empty while the server is not up yet."""
        try:
            with urllib.request.urlopen(self.base + "/metrics", timeout=HTTP_TIMEOUT_S) as response:  # noqa: S310
                return parse_metrics(response.read().decode("utf-8"))
        except OSError:
            return {}

    def metric(self, name: str, **labels: str) -> float:
        return value(self.metrics(), name, **labels)

    def status(self, path: str) -> int:
        return http_status(self.base + path)

    def wait_metric(self, name: str, target: float, timeout_s: float, **labels: str) -> None:
        """Wait until the series reaches ``target`` (and fail fast if the daemon died)."""

        def reached() -> bool:
            self.assert_running()
            return self.metric(name, **labels) >= target

        wait_until(reached, timeout_s, f"{name}{labels} >= {target} on :{self.port}")

    def assert_running(self) -> None:
        if self.proc.poll() is not None:
            raise AssertionError(f"ragmon exited with {self.proc.returncode}:\n{self.log_tail()}")

    def trace_ids(self) -> list[str]:
        """Trace ids in the results file, duplicates included (at-least-once)."""
        if self.results is None or not self.results.exists():
            return []
        ids = []
        for line in self.results.read_text(encoding="utf-8").splitlines():
            if line.endswith("}"):  # a SIGKILL may cut the last line short
                ids.append(json.loads(line)["trace_id"])
        return ids

    def records(self) -> list[dict[str, object]]:
        if self.results is None or not self.results.exists():
            return []
        lines = self.results.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.endswith("}")]

    def stop(self, sig: signal.Signals = signal.SIGTERM, timeout_s: float = 30.0) -> int:
        """Send ``sig`` and wait for the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired as exc:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(
                f"ragmon did not exit {timeout_s:g}s after {sig.name}:\n{self.log_tail()}"
            ) from exc
        self._closed = True
        return code

    def kill(self) -> None:
        """SIGKILL: no drain, no commit, no flush."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._closed = True

    def log_tail(self, lines: int = 30) -> str:
        if not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])


def start_daemon(
    args: Sequence[str],
    port: int,
    log_path: Path,
    results: Path | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    command: Sequence[str] | None = None,
) -> Daemon:
    """Start ``ragmon run ARGS --metrics-port PORT [--results FILE]`` (or ``command``) with JSON logs."""
    argv = (
        list(command)
        if command is not None
        else [ragmon_executable(), "run", *args, "--metrics-port", str(port)]
    )
    if results is not None and command is None:
        argv += ["--results", str(results)]
    full_env = {**os.environ, "RAGMON_LOG_FORMAT": "json", **(env or {})}
    log = log_path.open("wb")
    try:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=full_env, cwd=cwd)
    finally:
        log.close()
    return Daemon(proc, port, log_path, results)


def interrupt_all(daemons: Sequence[Daemon]) -> None:
    """Teardown: kill whatever a failed test left running."""
    for daemon in daemons:
        if daemon.proc.poll() is None:
            daemon.proc.send_signal(signal.SIGKILL)
            daemon.proc.wait()
