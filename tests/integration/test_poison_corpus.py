"""The hostile corpus (tests/support/corpus.py) through ``replay`` and through Kafka: nothing stops the loop.

Every message ends in exactly one of the results file or the dead letters; on Kafka the group commits to
the end of the topic and the daemon stays alive.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.conftest import DaemonFactory
from tests.support.corpus import build_corpus
from tests.support.daemon import ragmon_executable, wait_until
from tests.support.kafka import Broker

pytestmark = pytest.mark.integration
KAFKA_MAX_MESSAGE = 900 * 1024  # a broker's default message.max.bytes refuses bigger records at produce


def _at(origin: object) -> tuple[int, int]:
    """A Kafka origin's (partition, offset)."""
    assert isinstance(origin, dict)
    return int(origin["partition"]), int(origin["offset"])


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.timeout(300)
def test_replay_of_the_corpus_accounts_for_every_line(tmp_path: Path) -> None:
    """At least 300 hostile lines: exit 0, and each line is in exactly one of results or dead letters."""
    corpus = build_corpus()
    assert len(corpus) >= 300
    source = tmp_path / "corpus.jsonl"
    source.write_bytes(b"\n".join(corpus) + b"\n")
    done = subprocess.run(
        [
            ragmon_executable(),
            "replay",
            str(source),
            "--results",
            "results.jsonl",
            "--dlq",
            "dlq.jsonl",
            "--store",
            "review.db",
            "--format",
            "json",
            "--log-level",
            "error",
        ],
        capture_output=True,
        text=True,
        timeout=280,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results, dead = _lines(tmp_path / "results.jsonl"), _lines(tmp_path / "dlq.jsonl")
    result_lines = [r["origin"]["line"] for r in results]  # type: ignore[index]
    dead_lines = [d["origin"]["line"] for d in dead]  # type: ignore[index]
    assert sorted(result_lines + dead_lines) == list(range(1, len(corpus) + 1))
    summary = json.loads(done.stdout)
    assert summary["traces"] == len(results) and sum(summary["invalid"].values()) == len(dead)
    assert summary["messages"] == len(corpus)


@pytest.mark.timeout(300)
def test_kafka_commits_the_whole_corpus_and_stays_alive(
    broker: Broker, topic_factory: Callable[[int], str], group: str, daemon_factory: DaemonFactory
) -> None:
    """The corpus on Kafka: the group commits to the end, the daemon lives, and every message is a result
    or a dead letter, never both. Counted by origin (partition, offset), not by lines: delivery is
    at-least-once, and a rebalance on a loaded machine redelivers what was not yet committed."""
    corpus = [m for m in build_corpus() if len(m) < KAFKA_MAX_MESSAGE]
    topic = topic_factory(2)
    broker.produce(topic, corpus, keys=[f"k{i}".encode() for i in range(len(corpus))])
    ends = broker.end_offsets(topic)
    daemon = daemon_factory(broker.url(topic, group))

    def committed_to_end() -> bool:
        committed = broker.committed_offsets(topic, group)
        return all((committed.get(p) or 0) >= end for p, end in ends.items())

    wait_until(committed_to_end, 240, "the group to commit the whole corpus")
    daemon.assert_running()
    assert daemon.status("/healthz") == 200
    dead = [json.loads(value) for _, value in broker.read_all(f"{topic}.dlq")]
    results = daemon.records()
    handled = {_at(record["origin"]) for record in results}
    rejected = {_at(letter["origin"]) for letter in dead}
    assert not handled & rejected  # a message is a result or a dead letter, never both
    assert len(handled | rejected) == len(corpus)  # and none is lost
    assert all(offset < ends[partition] for partition, offset in handled | rejected)
    assert daemon.stop() == 0
