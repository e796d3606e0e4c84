"""Pipelines and engines for tests, built like the composition root builds them, with a few parts swapped.

The real numeric rules, sampling policy, flag rules and feedback window; the judge and the sinks are
the test's (a crashing judge, a counting sink). Use ``make_pipeline`` and ``make_engine`` instead of
repeating the wiring in every test.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from functools import cache
from typing import Any

from prometheus_client import CollectorRegistry

from monitor.config import Settings
from monitor.feedback_window import FeedbackWindow
from monitor.flags import FlagRules
from monitor.golden import GoldenChecker
from monitor.judge.base import Judge, JudgeInput, JudgeResult, Scores, Usage, Verdicts
from monitor.loop import Engine
from monitor.metrics import Metrics
from monitor.numeric import NumericRules
from monitor.pipeline import Pipeline, SinkLike
from monitor.sampler import Sampler
from monitor.sampling import SamplingPolicy
from monitor.server import Health
from monitor.sources.base import DeadLetterSink, Source
from monitor.summary import Summary


class NullJudge:
    """A judge that finds nothing to say: no claims, no chunk verdicts (scores undefined)."""

    name = "null"
    prompt_version = "v0"

    async def judge(self, item: JudgeInput) -> JudgeResult:
        verdicts = Verdicts(claims=(), chunk_useful=(), reverse_questions=(), noncommittal=())
        return JudgeResult(self.name, self.prompt_version, verdicts, Scores(), Usage())

    async def aclose(self) -> None:
        return None


@cache
def numeric_rules() -> NumericRules:
    """The packaged numeric rules, loaded once per test session (they are read-only)."""
    return NumericRules.load()


def make_pipeline(
    metrics: Metrics | None = None,
    *,
    judge: Judge | None = None,
    sample_all: bool = False,
    sinks: Sequence[SinkLike] = (),
    golden: GoldenChecker | None = None,
    judge_concurrency: int = 16,
    policy: SamplingPolicy | None = None,
    numeric: Any = None,
    judge_deadline_s: float = 120.0,
) -> Pipeline:
    """A pipeline of the real stages; ``sample_all`` sends every trace to ``judge``."""
    metrics = metrics or Metrics(CollectorRegistry())
    policy = policy or SamplingPolicy.load(sample_all=sample_all, metrics=metrics)
    return Pipeline(
        metrics,
        numeric or numeric_rules(),
        Sampler(policy, FeedbackWindow()),
        judge or NullJudge(),
        FlagRules.load(),
        sinks,
        golden=golden,
        judge_concurrency=judge_concurrency,
        judge_deadline_s=judge_deadline_s,
    )


def make_engine(
    settings: Settings,
    pipeline: Pipeline,
    source: Source,
    dead_letter: DeadLetterSink,
    health: Health | None = None,
) -> Engine:
    """An engine with the settings' loop bounds."""
    return Engine(
        settings.max_inflight,
        settings.shutdown_deadline_s,
        settings.max_message_bytes,
        pipeline.metrics,
        pipeline,
        source,
        dead_letter,
        health or Health(),
    )


async def run_to_end(engine: Engine, stop: asyncio.Event | None = None) -> Summary:
    """Run the engine until its source ends (or ``stop``), then close the source and its dead letters."""
    try:
        return await engine.run(stop or asyncio.Event())
    finally:
        await engine.close_source()
        engine.dead_letter.close()
