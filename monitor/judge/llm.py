"""The LLM judge: narrow verdicts from any OpenAI-compatible model, scores from ``monitor.triad``.

Per judged trace it makes two concurrent calls (``prompts.grounding_messages`` and
``prompts.relevance_messages``), plus at most one repair call each on invalid output, and one
embedding batch for answer relevance (question and reverse questions, both as ``kind="query"``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import structlog

from monitor import triad
from monitor.embeddings import Embedder, EmbeddingError, cosine
from monitor.exceptions import JudgeTimeout, JudgeUnavailable
from monitor.judge.base import ClaimVerdict, JudgeChunk, JudgeInput, JudgeResult, Usage, Verdicts
from monitor.judge.cache import CachedVerdicts, VerdictCache
from monitor.judge.client import ChatClient
from monitor.judge.prompts import (
    PROMPT_VERSION,
    GroundingOut,
    RelevanceOut,
    grounding_messages,
    new_boundary,
    relevance_messages,
)

log = structlog.get_logger(__name__)


class LLMJudge:
    """Judge sampled traces with a remote model; share one instance (and its client) per process."""

    def __init__(
        self,
        client: ChatClient,
        embedder: Embedder,
        model: str,
        cache: VerdictCache | None = None,
        strict_relevance: bool = False,
        deadline_s: float | None = None,
        rules_dir: Path | None = None,
    ) -> None:
        """``rules_dir``: the rule packs whose abstention and contact phrases are never claims."""
        from monitor.judge.local import LocalJudgeRules

        self._rules = LocalJudgeRules.load(rules_dir)
        self._client = client
        self._embedder = embedder
        self._name = f"openai:{model}"
        self._cache = cache
        self._strict = strict_relevance
        self._deadline_s = deadline_s
        self._inflight: dict[str, asyncio.Future[CachedVerdicts]] = {}

    @property
    def name(self) -> str:
        return self._name

    @property
    def prompt_version(self) -> str:
        return PROMPT_VERSION

    async def judge(self, item: JudgeInput) -> JudgeResult:
        """Verdicts and scores for one trace; a cached or concurrently judged duplicate costs nothing."""
        key = VerdictCache.key(self._name, PROMPT_VERSION, item)
        cached = self._cache.get(key) if self._cache is not None else None
        if cached is not None:
            return self._result(cached, Usage(), cached=True)
        pending = self._inflight.get(key)
        if pending is not None:
            return self._result(await asyncio.shield(pending), Usage(), cached=True)
        future: asyncio.Future[CachedVerdicts] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            fresh, usage = await self._within_deadline(item)
        except asyncio.CancelledError:
            # Duplicates awaiting this judgement were not cancelled themselves: they get a judge error.
            future.set_exception(JudgeTimeout("the judgement this duplicate waited for was cancelled"))
            future.exception()
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # mark it retrieved, so a future no duplicate awaited does not warn
            raise
        else:
            future.set_result(fresh)
        finally:
            del self._inflight[key]
        if self._cache is not None:
            self._cache.put(key, fresh)
        return self._result(fresh, usage, cached=False)

    async def aclose(self) -> None:
        """Nothing of its own to release: the lead owns the client and the embedder."""

    async def _within_deadline(self, item: JudgeInput) -> tuple[CachedVerdicts, Usage]:
        if self._deadline_s is None:
            return await self._judge_fresh(item)
        try:
            async with asyncio.timeout(self._deadline_s):
                return await self._judge_fresh(item)
        except TimeoutError as exc:
            raise JudgeTimeout(f"trace {item.trace_id} not judged within {self._deadline_s}s") from exc

    async def _judge_fresh(self, item: JudgeInput) -> tuple[CachedVerdicts, Usage]:
        usage = Usage()
        if not item.answer.strip():
            empty = Verdicts(
                claims=(), chunk_useful=(False,) * len(item.chunks), reverse_questions=(), noncommittal=()
            )
            return CachedVerdicts(empty, ()), usage
        grounding, relevance = await self._ask(item, usage)
        verdicts = to_verdicts(grounding, relevance, item.chunks)
        # An honest abstention's sentences ("the documents do not say", "contact support") are no claims.
        verdicts = replace(verdicts, claims=self._rules.without_abstention(verdicts.claims, item.answer))
        similarities = await self._similarities(item.question, verdicts.reverse_questions)
        log.debug("judge_done", trace_id=item.trace_id, calls=usage.calls, prompt_tokens=usage.prompt_tokens)
        return CachedVerdicts(verdicts, similarities), usage

    async def _ask(self, item: JudgeInput, usage: Usage) -> tuple[GroundingOut, RelevanceOut]:
        """Both calls at once; if one fails, the other is cancelled and awaited before raising."""
        boundary = new_boundary([item.question, item.answer, *(c.text for c in item.chunks)])
        first = asyncio.ensure_future(
            self._client.complete(grounding_messages(item, boundary), GroundingOut, usage)
        )
        second = asyncio.ensure_future(
            self._client.complete(relevance_messages(item.answer, boundary), RelevanceOut, usage)
        )
        try:
            (grounding, _), (relevance, _) = await asyncio.gather(first, second)
        finally:
            for task in (first, second):
                task.cancel()
            await asyncio.gather(first, second, return_exceptions=True)
        return grounding, relevance

    async def _similarities(self, question: str, reverse: Sequence[str]) -> tuple[float, ...]:
        if not reverse:
            return ()
        try:
            rows = await asyncio.to_thread(self._embedder.embed, [question, *reverse], "query")
        except EmbeddingError as exc:
            raise JudgeUnavailable(f"embedding for answer relevance failed: {exc}") from exc
        return tuple(float(x) for x in cosine(rows[:1], rows[1:])[0])

    def _result(self, fresh: CachedVerdicts, usage: Usage, cached: bool) -> JudgeResult:
        scores = triad.score(fresh.verdicts, fresh.similarities, strict=self._strict)
        return JudgeResult(self._name, PROMPT_VERSION, fresh.verdicts, scores, usage, cached)


def to_verdicts(grounding: GroundingOut, relevance: RelevanceOut, chunks: Sequence[JudgeChunk]) -> Verdicts:
    """Map the model's numbered output onto the trace's chunk ids; unknown numbers are dropped.

    A claim counts as supported only when the model names at least one real chunk that states it,
    so every supported verdict is checkable by a reviewer.
    """
    n = len(chunks)

    def ids(numbers: Sequence[int]) -> tuple[str, ...]:
        return tuple(chunks[k - 1].chunk_id for k in dict.fromkeys(numbers) if 1 <= k <= n)

    claims = tuple(
        ClaimVerdict(
            text=c.text.strip(), supported=c.supported and bool(ids(c.chunks)), chunk_ids=ids(c.chunks)
        )
        for c in grounding.claims
        if c.text.strip()
    )
    useful = set(grounding.useful)
    questions = [q for q in relevance.questions if q.question.strip()]
    return Verdicts(
        claims=claims,
        chunk_useful=tuple(i in useful for i in range(1, n + 1)),
        reverse_questions=tuple(q.question.strip() for q in questions),
        noncommittal=tuple(q.noncommittal for q in questions),
        abstained=grounding.abstained,
    )
