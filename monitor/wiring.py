"""Builds the pipeline's stages from settings: numeric rules, golden set, sampling, judge, flags, store."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack

from monitor.config import Settings
from monitor.metrics import Metrics
from monitor.pipeline import Pipeline, SinkLike
from monitor.trace import FeedbackEvent, Trace

LateFeedback = Callable[[FeedbackEvent], Trace | None]


async def build_pipeline(
    settings: Settings, metrics: Metrics, stack: AsyncExitStack, sinks: Sequence[SinkLike]
) -> tuple[Pipeline, LateFeedback | None]:
    """Every stage the settings ask for; resources are registered on ``stack`` for an orderly close."""
    metrics.set_build_info("none", "none", "none")
    pipeline = Pipeline(
        metrics,
        judge_concurrency=settings.judge.concurrency,
        judge_deadline_s=settings.judge.trace_deadline_s,
        sinks=sinks,
    )
    return pipeline, None
