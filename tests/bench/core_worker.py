"""One benchmark run in a fresh process: the engine's cheap path, or a bare loop, over Kafka or a file.

``python -m tests.bench.core_worker MODE SOURCE COUNT`` prints one JSON line: traces handled, wall
seconds from the first message to the last, process CPU seconds over the same span, and peak RSS.
A fresh process per run keeps peak RSS honest and the runs independent.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monitor.app import settle_heap
from monitor.config import KafkaSettings, Settings
from monitor.dead_letter import DeadLetterFormat
from monitor.logging import configure_logging
from monitor.loop import Engine
from monitor.numeric import NumericReport
from monitor.sources import open_source
from tests.support.kafka import FAST_GROUP
from tests.support.pipeline import make_engine, make_pipeline, run_to_end
from tests.support.quiet_kafka import KafkaConsumer


@dataclass
class Clock:
    """Wall and CPU time from the first handled message to the last."""

    count: int = 0
    wall0: float = 0.0
    cpu0: float = 0.0
    wall: float = 0.0
    cpu: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def tick(self) -> None:
        if self.count == 0:
            self.wall0, self.cpu0 = time.perf_counter(), time.process_time()
        self.count += 1

    def stop(self) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall0, time.process_time() - self.cpu0


def peak_rss_mb() -> float:
    """VmHWM of this process, in MiB (ru_maxrss as a fallback)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bare_file(path: str, count: int) -> Clock:
    """The baseline from a file: read lines, ``json.loads`` each, nothing else."""
    clock = Clock()
    with open(path, "rb") as handle:
        for line in handle:
            if line.strip():
                json.loads(line)
                clock.tick()
    clock.stop()
    return clock


def bare_kafka(url: str, count: int) -> Clock:
    """The baseline from Kafka: a plain consumer-group loop that only ``json.loads`` each value."""
    bootstrap, rest = url.removeprefix("kafka://").split("/", 1)
    topic = rest.split("?", 1)[0]
    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=f"bench-bare-{uuid.uuid4().hex[:8]}",
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        max_poll_records=500,
        **FAST_GROUP,
    )
    clock = Clock()
    try:
        while clock.count < count:
            for records in consumer.poll(timeout_ms=200).values():
                for record in records:
                    json.loads(record.value)
                    clock.tick()
        clock.stop()
        consumer.commit()
    finally:
        consumer.close()
    return clock


def engine(source_spec: str, count: int, full: bool = False) -> Clock:
    """The daemon's cheap path: decode, validate, signals, sampling, flags, metrics, ack and commit.

    ``full`` adds the numeric rules (the default pipeline; their own cost is in test_bench_numeric.py).
    No result record is built for unflagged traces, as in a daemon without ``--results``. Sampled
    traces go to a judge that answers at once, so the judge's own cost is left out.
    """
    settings = Settings(source=source_spec, kafka=KafkaSettings(**FAST_GROUP), dlq=source_spec + ".dlq")
    pipeline = make_pipeline(numeric=None if full else NoNumbers())
    opened = open_source(settings, DeadLetterFormat())
    run = make_engine(settings, pipeline, opened.source, opened.dead_letter)
    settle_heap()  # as the composition root does before the first message
    clock = Clock()
    asyncio.run(_until(run, clock, count))
    return clock


def engine_full(source_spec: str, count: int) -> Clock:
    return engine(source_spec, count, full=True)


class NoNumbers:
    """Numeric rules that find nothing: the cheap path without the numeric check."""

    def check(self, answer: str, contexts: list[str]) -> NumericReport:
        return NumericReport()


async def _until(run: Engine, clock: Clock, count: int) -> None:
    """Run the engine until ``count`` traces are handled (a file ends by itself; Kafka never does)."""
    stop = asyncio.Event()
    task = asyncio.create_task(run_to_end(run, stop))
    while run.summary.traces < count and not task.done():
        if run.summary.messages and not clock.count:
            clock.tick()  # the clock starts with the first message
        await asyncio.sleep(0.005)
    clock.stop()
    clock.count = run.summary.traces
    stop.set()
    await task


MODES = {"bare-file": bare_file, "bare-kafka": bare_kafka, "engine": engine, "engine-full": engine_full}


def main(argv: list[str]) -> None:
    mode, source, count = argv[0], argv[1], int(argv[2])
    configure_logging("warning", "json")
    clock = MODES[mode](source, count)
    print(
        json.dumps(
            {
                "mode": mode,
                "count": clock.count,
                "wall_s": clock.wall,
                "cpu_s": clock.cpu,
                "peak_rss_mb": peak_rss_mb(),
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
