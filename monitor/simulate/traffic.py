"""Generated chat traffic for a simulated domain, with an optional bad deploy (seed 000).

From trace ``bad_deploy_at`` on, the index switches from 200-token chunks to merged 800-token chunks
with the domain's bad rankings, and most answers near a conditional value turn wrong the way seed
000's did (a value bound to a condition stated as general, a dropped "working days"). Before the
deploy, and after a rollback, a small share of answers is wrong in other ways (a model's everyday
slips). Every trace carries its ground truth under ``simulation`` (kept in the trace's metadata by
ragmon), so detectors can be measured on the traffic. Deterministic for a given ``seed``.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from monitor.exceptions import ConfigError
from monitor.simulate.domain import BAD, GOOD, Answer, Domain, Intent, load_domain

BANHANG_MIX: Mapping[str, float] = {"vi": 0.6, "en": 0.2, "zh": 0.1, "fa": 0.1}
DEFAULT_START = datetime(2026, 9, 25, 15, 0, tzinfo=UTC)
DEFAULT_SPACING_S = 5.0
MODEL_ID = "gpt-4o-mini-2024-07-18"
PROMPT_VERSION = "rag-answer-v4"
NEGATIVE_REASONS = ("wrong_info", "not_helpful", "incomplete")
LATE_DELAY_TRACES = (3, 40)  # a late complaint arrives this many traces after its trace


@dataclass(frozen=True)
class SimConfig:
    """What traffic to generate; ``bad_deploy_at``/``rollback_at`` are trace indexes (0-based)."""

    count: int = 1000
    seed: int = 0
    domain: str | Path = "banhang"
    variants: str | Path | None = None
    mix: Mapping[str, float] | None = None  # None: the domain's default mix
    bad_deploy_at: int | None = None
    rollback_at: int | None = None
    deploy_wrong_share: float = 0.85  # answers of an intent with wrong wordings, on the bad index
    error_rate: float = 0.02  # everyday wrong answers on the healthy index
    negative_feedback: float = 0.05
    positive_feedback: float = 0.10
    late_feedback: float = 0.02
    wrong_answer_negative: float = 0.6  # wrong answers whose customer complains: half inline, half later
    invalid: float = 0.0
    start: datetime = DEFAULT_START
    spacing_s: float = DEFAULT_SPACING_S
    _domain: Domain | None = field(default=None, compare=False, repr=False)

    def loaded(self) -> Domain:
        """The domain (with its variant wordings), loaded once per config."""
        if self._domain is None:
            object.__setattr__(self, "_domain", load_domain(self.domain, self.variants))
        assert self._domain is not None  # noqa: S101 - set just above
        return self._domain


def default_mix(domain: Domain) -> dict[str, float]:
    """BanHang's historical mix; elsewhere the domain's language first (70%), the others sharing the rest."""
    if domain.name == "banhang" and set(BANHANG_MIX) <= domain.languages:
        return dict(BANHANG_MIX)
    others = sorted(domain.languages - {domain.language})
    if domain.language not in domain.languages:
        return {lang: 1 / len(others) for lang in others}
    if not others:
        return {domain.language: 1.0}
    return {domain.language: 0.7, **{lang: 0.3 / len(others) for lang in others}}


def parse_mix(text: str, domain: Domain) -> dict[str, float]:
    """Parse ``vi=0.6,en=0.2`` into normalised language weights; raise ConfigError when invalid."""
    weights: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        lang, sep, value = part.partition("=")
        try:
            weights[lang.strip()] = float(value) if sep else float("nan")
        except ValueError as exc:
            raise ConfigError(f"--mix: {part!r} is not LANG=WEIGHT") from exc
    return normalised(weights, domain)


def normalised(weights: Mapping[str, float], domain: Domain) -> dict[str, float]:
    """Weights over the domain's languages, summing to one."""
    unknown = sorted(set(weights) - domain.languages)
    if unknown:
        known = ", ".join(sorted(domain.languages))
        raise ConfigError(f"--mix: unknown language(s) {', '.join(unknown)}; {domain.name} has {known}")
    if not weights or any(not w >= 0 for w in weights.values()) or sum(weights.values()) <= 0:
        raise ConfigError("--mix needs non-negative weights with a positive sum, e.g. vi=0.6,en=0.4")
    total = sum(weights.values())
    return {lang: w / total for lang, w in weights.items()}


def generate(config: SimConfig) -> Iterator[dict[str, Any]]:
    """Yield traces, late feedback events and (optionally) malformed messages, in emission order."""
    domain = config.loaded()
    mix = normalised(config.mix if config.mix is not None else default_mix(domain), domain)
    rng = random.Random(config.seed)  # noqa: S311  # simulation data, not security
    late: list[tuple[int, int, dict[str, Any]]] = []
    for i in range(config.count):
        while late and late[0][0] <= i:
            yield heapq.heappop(late)[2]
        if config.invalid and rng.random() < config.invalid:
            yield _malformed(rng, config, i)
        trace, wrong = _trace(domain, rng, config, mix, i)
        yield trace
        event = _late_feedback(rng, config, trace, wrong)
        if event is not None:
            heapq.heappush(late, (i + rng.randint(*LATE_DELAY_TRACES), i, event))
    while late:
        yield heapq.heappop(late)[2]


def index_at(config: SimConfig, i: int) -> str:
    """Which index ("good" or "bad") serves trace ``i``."""
    deployed = config.bad_deploy_at is not None and i >= config.bad_deploy_at
    rolled_back = config.rollback_at is not None and i >= config.rollback_at
    return BAD if deployed and not rolled_back else GOOD


def _answer(rng: random.Random, config: SimConfig, intent: Intent, index: str, language: str) -> Answer:
    deploy = index == BAD
    wrong = intent.wrong(language, deploy)
    share = config.deploy_wrong_share if deploy else config.error_rate
    if wrong and rng.random() < share:
        return rng.choice(wrong)
    return rng.choice(intent.good[language])


def _trace(
    domain: Domain, rng: random.Random, config: SimConfig, mix: Mapping[str, float], i: int
) -> tuple[dict[str, Any], bool]:
    language = _pick(rng, mix)
    intent = _pick_intent(rng, domain.intents, language)
    index = index_at(config, i)
    answer = _answer(rng, config, intent, index, language)
    chunks = _retrieved(domain, rng, intent, index)
    prompt_tokens = 350 + sum(len(c["text"]) for c in chunks) // 3
    trace: dict[str, Any] = {
        "trace_id": f"sim-{domain.name}-{config.seed}-{i:06d}",
        "timestamp": _timestamp(config, i),
        "conversation_id": f"conv-{config.seed}-{rng.randrange(10**6):06d}",
        "question": rng.choice(intent.questions[language]),
        "retrieved_chunks": chunks,
        "answer": answer.text,
        "citations": _citations(rng, intent, index),
        "model_id": MODEL_ID,
        "prompt_version": PROMPT_VERSION,
        "index_version": domain.indexes[index]["index_version"],
        "embedding_model": domain.indexes[index].get("embedding_model"),
        "latency_ms": round(rng.lognormvariate(7.6, 0.35) + prompt_tokens * 0.4),
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 20 + len(answer.text) // 3},
        "language": language,
        "category": intent.category,
        "simulation": {
            "domain": domain.name,
            "intent": intent.id,
            "golden": intent.golden,
            "condition": intent.condition,
            "correct": answer.kind is None,
            "kind": answer.kind,
            "index": index,
        },
    }
    feedback = _inline_feedback(rng, config, answer.kind is not None)
    if feedback is not None:
        trace["feedback"] = feedback
    return trace, answer.kind is not None


def _pick(rng: random.Random, weights: Mapping[str, float]) -> str:
    keys = sorted(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def _pick_intent(rng: random.Random, intents: Sequence[Intent], language: str) -> Intent:
    fits = [intent for intent in intents if language in intent.questions]
    return rng.choices(fits, weights=[intent.weight for intent in fits])[0]


def _retrieved(domain: Domain, rng: random.Random, intent: Intent, index: str) -> list[dict[str, Any]]:
    """The top-5 chunks with descending scores: the 800-token index scores lower and flatter."""
    top, step = (0.82, 0.05) if index == GOOD else (0.74, 0.02)
    if intent.abstain:
        top = 0.38
    score = top + rng.uniform(-0.04, 0.06)
    chunks = []
    for chunk_id in intent.rankings[index]:
        chunks.append({**domain.chunk(index, chunk_id), "retrieval_score": round(score, 4)})
        score -= step * rng.uniform(0.5, 1.5)
    return chunks


def _citations(rng: random.Random, intent: Intent, index: str) -> list[str]:
    """Usually the chunks the answer drew from; now and then none, or a chunk that was not retrieved."""
    roll = rng.random()
    if roll < 0.03:
        return []
    if roll < 0.04 and not intent.abstain:
        return ["c99" if index == GOOD else "L9"]
    return list(intent.cites.get(index, ()))


def _inline_feedback(rng: random.Random, config: SimConfig, wrong: bool) -> dict[str, str] | None:
    p_negative = config.wrong_answer_negative / 2 if wrong else config.negative_feedback
    roll = rng.random()
    if roll < p_negative:
        return {"rating": "negative", "reason": "wrong_info" if wrong else rng.choice(NEGATIVE_REASONS)}
    if roll < p_negative + config.positive_feedback and not wrong:
        return {"rating": "positive"}
    return None


def _late_feedback(
    rng: random.Random, config: SimConfig, trace: Mapping[str, Any], wrong: bool
) -> dict[str, Any] | None:
    if "feedback" in trace:
        return None
    p_late = config.wrong_answer_negative / 2 if wrong else config.late_feedback
    if rng.random() >= p_late:
        return None
    return {
        "type": "feedback",
        "trace_id": trace["trace_id"],
        "rating": "negative",
        "reason": "wrong_info" if wrong else rng.choice(NEGATIVE_REASONS),
    }


def _malformed(rng: random.Random, config: SimConfig, i: int) -> dict[str, Any]:
    """A producer bug: a message missing its answer or carrying a non-numeric score."""
    base: dict[str, Any] = {"trace_id": f"sim-{config.seed}-{i:06d}-bad", "question": "?"}
    if rng.random() < 0.5:
        return base
    return {**base, "answer": "", "retrieved_chunks": [{"text": "x", "retrieval_score": "high"}]}


def _timestamp(config: SimConfig, i: int) -> str:
    moment = config.start + timedelta(seconds=i * config.spacing_s)
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
