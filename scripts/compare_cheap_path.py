"""Compare this checkout's cheap path with another commit's, side by side on one broker.

``python scripts/compare_cheap_path.py REV [--traces N] [--rounds R]`` checks REV out into a temporary
git worktree, starts one Tansu broker, produces N realistic traces once, then alternates the bare
kafka-python loop, REV's engine and this checkout's engine (each in a fresh process, a fresh consumer
group on the same topic: ``tests/bench/core_worker.py``), R rounds, the two engines swapping places
every round. It prints each one's best rate per
CPU-second and per wall-second and their ratios to the bare loop. Alternating in one run is what makes
the figures comparable on a shared, noisy machine; the best of R rounds is the least disturbed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.kafka import realistic_traces, running_broker  # noqa: E402


def run_worker(checkout: Path, mode: str, url: str, count: int) -> tuple[float, float]:
    """(traces per CPU-second, traces per second) of one run of ``mode`` from ``checkout``'s code."""
    done = subprocess.run(  # noqa: S603 - our own interpreter and worker module
        [sys.executable, "-W", "ignore", "-m", "tests.bench.core_worker", mode, url, str(count)],
        cwd=checkout,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(checkout)},
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{mode} at {checkout} failed:\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["count"] / result["cpu_s"], result["count"] / result["wall_s"]


def git(args: list[str], check: bool) -> None:
    """Run git on this checkout (the revision comes from the developer running the script)."""
    executable = shutil.which("git") or "git"
    subprocess.run([executable, "-C", str(ROOT), *args], check=check)  # noqa: S603


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the commit to compare with (e.g. HEAD~5, a tag)")
    parser.add_argument("--traces", type=int, default=30_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ragmon-compare-") as tmp:
        other = Path(tmp) / "other"
        git(["worktree", "add", "-q", "--detach", str(other), args.rev], check=True)
        try:
            best = compare(other, args.rev, args.traces, args.rounds)
        finally:
            git(["worktree", "remove", "--force", str(other)], check=False)
    bare_cpu, bare_wall = best["bare"]
    for label, (cpu, wall) in best.items():
        print(
            f"{label:>12}  {cpu:8.0f} traces/CPU-s  {wall:8.0f} traces/s  "
            f"cpu ratio {cpu / bare_cpu:.3f}  wall ratio {wall / bare_wall:.3f}"
        )


def compare(other: Path, rev: str, count: int, rounds: int) -> dict[str, tuple[float, float]]:
    engines = [(rev, other, "engine"), ("this", ROOT, "engine")]
    best: dict[str, tuple[float, float]] = {}
    with running_broker() as broker:
        topic = broker.create_topic(3, prefix="compare")
        broker.produce_traces(topic, realistic_traces(count))
        for round_ in range(rounds):
            # The engines swap places every round: the run after another engine's reads slower (the
            # broker's state, the page cache), so a fixed order favours whichever runs first.
            order = engines if round_ % 2 == 0 else engines[::-1]
            for label, checkout, mode in [("bare", ROOT, "bare-kafka"), *order]:
                url = broker.url(topic, f"cmp-{uuid.uuid4().hex[:8]}")
                cpu, wall = run_worker(checkout, mode, url, count)
                old_cpu, old_wall = best.get(label, (0.0, 0.0))
                best[label] = (max(cpu, old_cpu), max(wall, old_wall))
    return best


if __name__ == "__main__":
    main()
