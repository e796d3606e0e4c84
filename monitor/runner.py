"""Wires settings into a running engine: the daemon (``ragmon run``) and the one-shot ``ragmon replay``."""

from __future__ import annotations

import asyncio
import sys
from contextlib import AsyncExitStack

import structlog
from prometheus_client import CollectorRegistry

from monitor.app import Engine, Summary, install_signal_handlers
from monitor.config import Settings
from monitor.dead_letter import DeadLetterFormat
from monitor.logging import use_scrubber
from monitor.metrics import Metrics
from monitor.progress import Progress
from monitor.server import Health, MetricsServer
from monitor.sources import open_source
from monitor.wiring import build_pipeline, build_scrubber

log = structlog.get_logger(__name__)


async def run_daemon(settings: Settings, registry: CollectorRegistry | None = None) -> int:
    """Serve metrics and consume until SIGTERM/SIGINT; a finite file is processed, then metrics stay up."""
    registry = registry or CollectorRegistry()
    metrics = Metrics(registry, settings.label_cap, settings.golden_k)
    health = Health()
    stop = asyncio.Event()
    install_signal_handlers(stop)
    with MetricsServer(registry, health, settings.metrics_host, settings.metrics_port) as server:
        log.info("metrics_serving", url=f"http://{settings.metrics_host}:{server.port}/metrics")
        summary = await _run(settings, metrics, health, stop)
        log.info("source_done", traces=summary.traces, invalid=sum(summary.invalid.values()))
        if not stop.is_set():
            health.ready = lambda: True
            log.info("idle_serving_metrics", hint="send SIGTERM or press Ctrl-C to stop")
            while not stop.is_set():
                health.tick()
                try:
                    await asyncio.wait_for(stop.wait(), timeout=5.0)
                except TimeoutError:
                    continue
    log.info("stopped")
    return 0


async def replay(settings: Settings, registry: CollectorRegistry | None = None) -> Summary:
    """Process a file once, with no HTTP server; stops early (gracefully) on SIGTERM/SIGINT."""
    metrics = Metrics(registry or CollectorRegistry(), settings.label_cap, settings.golden_k)
    stop = asyncio.Event()
    install_signal_handlers(stop)
    progress = Progress(sys.stderr) if sys.stderr.isatty() else None
    return await _run(settings, metrics, Health(), stop, replay=True, progress=progress)


async def _run(
    settings: Settings,
    metrics: Metrics,
    health: Health,
    stop: asyncio.Event,
    replay: bool = False,
    progress: Progress | None = None,
) -> Summary:
    scrubber = build_scrubber(settings)
    use_scrubber(scrubber)
    source, dead_letter = open_source(settings, DeadLetterFormat(scrubber, settings.dead_letter_raw))
    async with AsyncExitStack() as stack:
        pipeline, late_feedback = await build_pipeline(settings, metrics, stack, scrubber, replay)
        engine = Engine(settings, metrics, pipeline, source, dead_letter, health, late_feedback, progress)
        return await engine.run(stop)
    raise AssertionError("unreachable")  # pragma: no cover - AsyncExitStack does not swallow exceptions
