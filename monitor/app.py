"""The composition root: every part of a run built from the settings and entered in one AsyncExitStack.

``running`` is the whole wiring, read top to bottom: rule packs, PII scrubber, metrics, the HTTP
endpoint, embedder, numeric rules, golden check, judge, review store and sinks, sampling, flags, the
pipeline, the source. The stack closes them in reverse order: the source first (its final commit
confirms the dead letters), then the sinks flush, then the judge, the store, the embedder and the
endpoint. ``run_daemon`` (``ragmon run``) and ``replay`` (``ragmon replay``) are its two uses; the loop
itself is ``monitor.loop.Engine``.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager, closing
from dataclasses import dataclass

import structlog
from prometheus_client import CollectorRegistry

from monitor.budget import EventClock
from monitor.conditional import FLAG_REASON as CONDITIONAL
from monitor.conditional import ConditionalRules
from monitor.config import Settings
from monitor.dead_letter import DeadLetterFormat
from monitor.embeddings import Embedder, LocalE5Embedder, OpenAIEmbedder
from monitor.evaluation_export import EvaluationExporter
from monitor.exceptions import ConfigError
from monitor.feedback_window import FeedbackWindow
from monitor.flags import FlagRules, thresholds_by_metric
from monitor.golden import AbstentionDetector, GoldenChecker, GoldenMatcher, GoldenSet
from monitor.golden.text import Vocabulary
from monitor.judge.base import Judge
from monitor.logging import use_scrubber
from monitor.loop import Engine, install_signal_handlers
from monitor.metrics import Metrics
from monitor.numeric import NumericRules
from monitor.pii import Scrubber
from monitor.pipeline import Pipeline, SinkLike
from monitor.progress import Progress
from monitor.review import open_store
from monitor.review.sink import ReviewSink
from monitor.rulepacks import RulePacks
from monitor.sampler import Sampler
from monitor.sampling import SamplingPolicy
from monitor.server import Health, MetricsServer
from monitor.sinks import ResultsFile
from monitor.sources import open_source
from monitor.summary import Summary

log = structlog.get_logger(__name__)
GC_YOUNG_THRESHOLD = 20_000  # allocations between young collections (CPython's default is 700)


@dataclass(frozen=True)
class Run:
    """What ``running`` yields: the engine to drive and the health its endpoint reports."""

    engine: Engine
    health: Health
    port: int | None


@asynccontextmanager
async def running(
    settings: Settings,
    registry: CollectorRegistry | None = None,
    *,
    replay: bool = False,
    serve: bool = True,
    progress: Progress | None = None,
) -> AsyncIterator[Run]:
    """Build every part of a run; on exit, close them in reverse order."""
    async with AsyncExitStack() as stack:
        packs = RulePacks(settings.rules_dir)
        key = settings.pii_key.get_secret_value().encode("utf-8") if settings.pii_key else None
        scrubber = Scrubber.load(packs.path("pii.yaml"), key)
        use_scrubber(scrubber)
        metrics = Metrics(registry or CollectorRegistry(), settings.label_cap, settings.golden_k)
        health = Health()
        server = None
        if serve:
            server = stack.enter_context(
                MetricsServer(metrics.registry, health, settings.metrics_host, settings.metrics_port)
            )
            log.info("metrics_serving", url=f"http://{settings.metrics_host}:{server.port}/metrics")
        embedder = stack.enter_context(closing(_embedder(settings)))
        numeric = NumericRules.load(packs.directory("numeric"))
        golden = _golden(settings, packs, embedder, numeric)
        judge, circuit_open = await _judge(settings, packs, embedder, numeric, stack)
        store = stack.enter_context(open_store(settings.store, scrubber=scrubber))
        flags = FlagRules.load(packs)
        conditional = ConditionalRules.load(numeric, packs, embedder) if flags.enabled(CONDITIONAL) else None
        mutes = conditional.mutes if conditional is not None else None
        review = ReviewSink(store, metrics, thresholds_by_metric(flags), mutes=mutes)
        review.reload_mutes()  # before the first trace, then every MUTES_REFRESH_S
        refresher = asyncio.get_running_loop().create_task(review.keep_mutes_fresh())
        stack.callback(refresher.cancel)
        stack.push_async_callback(review.aclose, settings.shutdown_deadline_s)
        sinks: list[SinkLike] = [*_results(settings, scrubber, stack, replay), review]
        sinks += _exporter(settings, metrics, flags, scrubber, stack)
        clock = EventClock() if replay else None
        policy = SamplingPolicy.load(packs, settings.sample_all, clock or time.monotonic, metrics)
        sampler = Sampler(
            policy, FeedbackWindow(settings.feedback_window, settings.feedback_window_bytes), clock
        )
        pipeline = Pipeline(
            metrics, numeric, sampler, judge, flags, sinks, golden=golden, conditional=conditional,
            judge_concurrency=settings.judge.concurrency, judge_deadline_s=settings.judge.trace_deadline_s,
            circuit_open=circuit_open,
        )  # fmt: skip
        stack.callback(pipeline.close)
        metrics.set_build_info(
            judge.name, judge.prompt_version, golden.matcher.golden.version if golden else "none"
        )
        opened = open_source(settings, DeadLetterFormat(scrubber, settings.dead_letter_raw))
        stack.callback(opened.dead_letter.close)
        engine = Engine(
            settings.max_inflight, settings.shutdown_deadline_s, settings.max_message_bytes,
            metrics, pipeline, opened.source, opened.dead_letter, health, progress,
        )  # fmt: skip
        stack.push_async_callback(engine.close_source)
        settle_heap()
        yield Run(engine, health, server.port if server is not None else None)
        await review.aclose(settings.shutdown_deadline_s)
        engine.record_unwritten()


def settle_heap() -> None:
    """Freeze what start-up built: it lives as long as the process, so no collection needs to walk it;
    and collect the young generation every ``GC_YOUNG_THRESHOLD`` allocations instead of every 700.

    A poll's batch keeps a few thousand objects alive while it is handled: collected every 700
    allocations, they were walked again and again and promoted to the older generations, at about a
    microsecond per trace; what a trace leaves behind is freed by reference counting, not by the
    collector. Call once, after building the parts of a run and before the first message
    (``running`` does; ``tests/bench/core_worker.py`` too, so that the benchmark's heap is the daemon's).
    """
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, older, oldest)


async def run_daemon(settings: Settings, registry: CollectorRegistry | None = None) -> int:
    """Serve metrics and consume until SIGTERM/SIGINT; a finite file is processed, then metrics stay up."""
    stop = asyncio.Event()
    install_signal_handlers(stop)
    async with running(settings, registry) as run:
        summary = await run.engine.run(stop)
        log.info("source_done", traces=summary.traces, invalid=sum(summary.invalid.values()))
        if not stop.is_set():
            run.health.ready = lambda: True
            log.info("idle_serving_metrics", hint="send SIGTERM or press Ctrl-C to stop")
            while not stop.is_set():
                run.health.tick()
                try:
                    await asyncio.wait_for(stop.wait(), timeout=5.0)
                except TimeoutError:
                    continue
    log.info("stopped")
    return 0


async def replay(settings: Settings, registry: CollectorRegistry | None = None) -> Summary:
    """Process a file once, with no HTTP server; stops early (gracefully) on SIGTERM/SIGINT."""
    stop = asyncio.Event()
    install_signal_handlers(stop)
    progress = Progress(sys.stderr) if sys.stderr.isatty() else None
    async with running(settings, registry, replay=True, serve=False, progress=progress) as run:
        summary = await run.engine.run(stop)
    return summary


def _embedder(settings: Settings) -> Embedder:
    """In-process multilingual-e5-small unless an OpenAI-compatible embeddings endpoint is configured."""
    j = settings.judge
    if j.embeddings_url:
        key = j.api_key.get_secret_value() if j.api_key else None
        return OpenAIEmbedder(j.embeddings_url, j.embeddings_model, key, j.timeout_s, j.embeddings_input)
    return LocalE5Embedder()


def _golden(
    settings: Settings, packs: RulePacks, embedder: Embedder, numeric: NumericRules
) -> GoldenChecker | None:
    """The golden checker when golden files are configured; its text packs come from the rule packs."""
    if not settings.golden:
        return None
    golden = GoldenSet.load(settings.golden, settings.golden_sections)
    log.info("golden_loaded", entries=len(golden.entries), version=golden.version)
    # Lexical alone by default: on the dev paraphrases it beat its blend with e5 (docs/golden-matching.md).
    matcher = GoldenMatcher(
        golden,
        embedder if settings.golden_semantic else None,
        settings.golden_threshold,
        settings.golden_k,
        margin=settings.golden_margin,
        vocabulary=Vocabulary.from_packs(packs),
    )
    return GoldenChecker(matcher, numeric, AbstentionDetector.load(packs.directory("abstention")))


async def _judge(
    settings: Settings, packs: RulePacks, embedder: Embedder, numeric: NumericRules, stack: AsyncExitStack
) -> tuple[Judge, Callable[[], bool]]:
    """The local judge by default; an OpenAI-compatible judge (and its circuit state) for ``openai``."""
    j = settings.judge
    if j.kind == "local":
        from monitor.judge.local import LocalJudge

        local = LocalJudge(embedder, packs.root, numeric, packs=packs)
        stack.push_async_callback(local.aclose)
        return local, lambda: False
    from monitor.judge.cache import VerdictCache
    from monitor.judge.client import ChatClient, ChatClientSettings
    from monitor.judge.llm import LLMJudge

    if not j.url or not j.model:
        raise ConfigError("judge.url and judge.model are required when judge.kind is 'openai'")
    client = ChatClient(
        ChatClientSettings(
            base_url=j.url, model=j.model, api_key=j.api_key, timeout_s=j.timeout_s,
            max_concurrency=j.concurrency, max_retries=j.max_retries, circuit_failures=j.circuit_failures,
            circuit_cooldown_s=j.circuit_cooldown_s, extra_headers=j.extra_headers, extra_query=j.extra_query,
            json_schema=j.json_schema, api_key_header=j.api_key_header, temperature=j.temperature,
        )
    )  # fmt: skip
    await stack.enter_async_context(client)
    llm = LLMJudge(
        client, embedder, j.model, VerdictCache(), strict_relevance=j.strict_relevance, rules_dir=packs.root
    )
    stack.push_async_callback(llm.aclose)
    return llm, lambda: client.circuit_open


def _exporter(
    settings: Settings, metrics: Metrics, flags: FlagRules, scrubber: Scrubber, stack: AsyncExitStack
) -> list[SinkLike]:
    """The OTLP exporter of evaluation results when ``otlp.export_url`` is set."""
    o = settings.otlp
    if o.export_url is None:
        return []
    exporter = EvaluationExporter(
        o.export_url, metrics, thresholds_by_metric(flags), signal=o.export_signal, every=o.export_every,
        headers={k: v.get_secret_value() for k, v in o.export_headers.items()},
        timeout_s=o.export_timeout_s, scrubber=scrubber,
    )  # fmt: skip
    stack.callback(exporter.close, settings.shutdown_deadline_s)
    log.info("evaluation_export", url=exporter.url, signal=o.export_signal, every=o.export_every)
    return [exporter]


def _results(settings: Settings, scrubber: Scrubber, stack: AsyncExitStack, replay: bool) -> list[SinkLike]:
    """The results file when asked for: appended to by the daemon, rewritten by a replay."""
    if settings.results is None:
        return []
    results = ResultsFile(settings.results, scrubber, append=not replay)
    stack.callback(results.close)
    return [results]
