"""``ragmon simulate``: realistic BanHang-like chat traffic, with an optional bad deploy (seed 000).

The traffic mixes Vietnamese (accented, unaccented, abbreviated), English, Chinese and Persian
questions about a small returns policy, inline and late feedback, and optionally a few malformed
messages. From trace ``bad_deploy_at`` on, the index switches from 200-token chunks to merged
800-token chunks with seed 000's rankings, and the assistant answers "30 ngày" where the policy says
"7 ngày" and "5 ngày" where it says "5 ngày làm việc". Output goes to a JSONL file, stdout or a Kafka
topic (key = trace id, so a trace and its late feedback share a partition). Everything is
deterministic for a given ``--seed``.
"""

from __future__ import annotations

import argparse
import heapq
import json
import random
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, TextIO
from urllib.parse import urlsplit

from monitor.exceptions import ConfigError, SourceError

DEFAULT_MIX: Mapping[str, float] = {"vi": 0.6, "en": 0.2, "zh": 0.1, "fa": 0.1}
DEFAULT_START = datetime(2026, 9, 25, 15, 0, tzinfo=UTC)
DEFAULT_SPACING_S = 5.0
MODEL_ID = "gpt-4o-mini-2024-07-18"
PROMPT_VERSION = "rag-answer-v4"
NEGATIVE_REASONS = ("wrong_info", "not_helpful", "incomplete")
# A late complaint arrives this many traces after its trace (the customer finds out later).
LATE_DELAY_TRACES = (3, 40)
GOOD, BAD = "good", "bad"


@dataclass(frozen=True)
class SimConfig:
    """What traffic to generate; ``bad_deploy_at``/``rollback_at`` are trace indexes (0-based)."""

    count: int = 1000
    seed: int = 0
    mix: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_MIX))
    bad_deploy_at: int | None = None
    rollback_at: int | None = None
    negative_feedback: float = 0.05
    positive_feedback: float = 0.10
    late_feedback: float = 0.02
    # Share of wrong-number answers whose customer complains: half inline, half later.
    wrong_answer_negative: float = 0.6
    invalid: float = 0.0
    start: datetime = DEFAULT_START
    spacing_s: float = DEFAULT_SPACING_S


@dataclass(frozen=True)
class Intent:
    """One kind of customer question with its rankings and answers per index ("good"/"bad")."""

    id: str
    category: str
    weight: float
    sections: tuple[str, ...]
    rankings: Mapping[str, Sequence[str]]
    cites: Mapping[str, Sequence[str]]
    questions: Mapping[str, Sequence[str]]
    answers: Mapping[str, Mapping[str, str]]
    golden: str | None = None
    abstain: bool = False

    def answer(self, index: str, language: str) -> tuple[str, bool]:
        """The answer for this index and language, and whether it is the bad deploy's wrong one."""
        bad = self.answers.get(BAD, {})
        if index == BAD and language in bad:
            return bad[language], True
        return self.answers[GOOD][language], False


@dataclass(frozen=True)
class Policy:
    """The simulated shop: section texts, the two indexes, the golden set and the intents."""

    sections: Mapping[str, str]
    documents: Mapping[str, str]
    indexes: Mapping[str, Mapping[str, Any]]
    golden: Sequence[Mapping[str, Any]]
    intents: Sequence[Intent]

    def chunk(self, index: str, chunk_id: str) -> dict[str, Any]:
        """A retrieved chunk (without score) as the trace contract spells it."""
        sections = list(self.indexes[index]["chunks"][chunk_id])
        return {
            "chunk_id": chunk_id,
            "document_id": self.documents[sections[0].split("-")[0]],
            "sections": sections,
            "text": " ".join(f"{s}. {self.sections[s]}" for s in sections),
        }


@cache
def load_policy() -> Policy:
    """Read the bundled policy (monitor/data/simulate/banhang.json)."""
    raw = (resources.files("monitor") / "data" / "simulate" / "banhang.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    intents = [
        Intent(
            id=i["id"],
            category=i["category"],
            weight=float(i["weight"]),
            sections=tuple(i["sections"]),
            rankings=i["rankings"],
            cites=i["cites"],
            questions=i["questions"],
            answers=i["answers"],
            golden=i.get("golden"),
            abstain=bool(i.get("abstain", False)),
        )
        for i in data["intents"]
    ]
    return Policy(data["sections"], data["documents"], data["indexes"], data["golden"], intents)


def golden_entries() -> list[dict[str, Any]]:
    """The simulated policy's golden set in seed 000's format (id, cau_hoi, muc_ky_vong, ...)."""
    return [dict(entry) for entry in load_policy().golden]


def parse_mix(text: str) -> dict[str, float]:
    """Parse ``vi=0.6,en=0.2`` into normalised language weights; raise ConfigError when invalid."""
    weights: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        lang, sep, value = part.partition("=")
        try:
            weights[lang.strip()] = float(value) if sep else float("nan")
        except ValueError as exc:
            raise ConfigError(f"--mix: {part!r} is not LANG=WEIGHT") from exc
    return _normalised(weights)


def _normalised(weights: Mapping[str, float]) -> dict[str, float]:
    known = {lang for intent in load_policy().intents for lang in intent.questions}
    unknown = sorted(set(weights) - known)
    if unknown:
        raise ConfigError(
            f"--mix: unknown language(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    if not weights or any(not w >= 0 for w in weights.values()) or sum(weights.values()) <= 0:
        raise ConfigError("--mix needs non-negative weights with a positive sum, e.g. vi=0.6,en=0.4")
    total = sum(weights.values())
    return {lang: w / total for lang, w in weights.items()}


def generate(config: SimConfig) -> Iterator[dict[str, Any]]:
    """Yield traces, late feedback events and (optionally) malformed messages, in emission order."""
    policy = load_policy()
    mix = _normalised(config.mix)
    rng = random.Random(config.seed)  # noqa: S311  # simulation data, not security
    late: list[tuple[int, int, dict[str, Any]]] = []
    for i in range(config.count):
        while late and late[0][0] <= i:
            yield heapq.heappop(late)[2]
        if config.invalid and rng.random() < config.invalid:
            yield _malformed(rng, config, i)
        trace, wrong = _trace(policy, rng, config, mix, i)
        yield trace
        event = _late_feedback(rng, config, trace, wrong)
        if event is not None:
            delay = rng.randint(*LATE_DELAY_TRACES)
            heapq.heappush(late, (i + delay, i, event))
    while late:
        yield heapq.heappop(late)[2]


def index_at(config: SimConfig, i: int) -> str:
    """Which index ("good" or "bad") serves trace ``i``."""
    deployed = config.bad_deploy_at is not None and i >= config.bad_deploy_at
    rolled_back = config.rollback_at is not None and i >= config.rollback_at
    return BAD if deployed and not rolled_back else GOOD


def _trace(
    policy: Policy, rng: random.Random, config: SimConfig, mix: Mapping[str, float], i: int
) -> tuple[dict[str, Any], bool]:
    language = _pick(rng, mix)
    intent = _pick_intent(rng, policy.intents, language)
    index = index_at(config, i)
    answer, wrong = intent.answer(index, language)
    chunks = _retrieved(policy, rng, intent, index)
    prompt_tokens = 350 + sum(len(c["text"]) for c in chunks) // 3
    trace: dict[str, Any] = {
        "trace_id": f"sim-{config.seed}-{i:06d}",
        "timestamp": _timestamp(config, i),
        "conversation_id": f"conv-{config.seed}-{rng.randrange(10**6):06d}",
        "question": rng.choice(intent.questions[language]),
        "retrieved_chunks": chunks,
        "answer": answer,
        "citations": _citations(rng, intent, index),
        "model_id": MODEL_ID,
        "prompt_version": PROMPT_VERSION,
        "index_version": policy.indexes[index]["index_version"],
        "embedding_model": policy.indexes[index]["embedding_model"],
        "latency_ms": round(rng.lognormvariate(7.6, 0.35) + prompt_tokens * 0.4),
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 20 + len(answer) // 3},
        "language": language,
        "category": intent.category,
    }
    feedback = _inline_feedback(rng, config, wrong)
    if feedback is not None:
        trace["feedback"] = feedback
    return trace, wrong


def _pick(rng: random.Random, weights: Mapping[str, float]) -> str:
    keys = sorted(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def _pick_intent(rng: random.Random, intents: Sequence[Intent], language: str) -> Intent:
    fits = [intent for intent in intents if language in intent.questions]
    return rng.choices(fits, weights=[intent.weight for intent in fits])[0]


def _retrieved(policy: Policy, rng: random.Random, intent: Intent, index: str) -> list[dict[str, Any]]:
    """The top-5 chunks with descending scores: the 800-token index scores lower and flatter."""
    top, step = (0.82, 0.05) if index == GOOD else (0.74, 0.02)
    if intent.abstain:
        top = 0.38
    score = top + rng.uniform(-0.04, 0.06)
    chunks = []
    for chunk_id in intent.rankings[index]:
        chunks.append({**policy.chunk(index, chunk_id), "retrieval_score": round(score, 4)})
        score -= step * rng.uniform(0.5, 1.5)
    return chunks


def _citations(rng: random.Random, intent: Intent, index: str) -> list[str]:
    """Usually the chunks the answer drew from; now and then none, or a chunk that was not retrieved."""
    roll = rng.random()
    if roll < 0.03:
        return []
    if roll < 0.04 and not intent.abstain:
        return ["c99" if index == GOOD else "L9"]
    return list(intent.cites[index])


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


# --- sinks -------------------------------------------------------------------------------------


class Sink(Protocol):
    """Where generated messages go."""

    def send(self, message: Mapping[str, Any]) -> None: ...

    def close(self) -> None: ...


class JsonlSink:
    """One JSON object per line to a file or stdout."""

    def __init__(self, stream: TextIO, owned: bool) -> None:
        self._stream = stream
        self._owned = owned

    @classmethod
    def open(cls, target: str) -> JsonlSink:
        """``-`` is stdout; anything else is a file path (created or truncated)."""
        if target == "-":
            return cls(sys.stdout, owned=False)
        try:
            return cls(Path(target).open("w", encoding="utf-8"), owned=True)
        except OSError as exc:
            raise ConfigError(f"cannot write {target}: {exc.strerror}") from exc

    def send(self, message: Mapping[str, Any]) -> None:
        self._stream.write(json.dumps(message, ensure_ascii=False) + "\n")

    def close(self) -> None:
        self._stream.flush()
        if self._owned:
            self._stream.close()


class KafkaSink:
    """Produces each message to a topic keyed by trace id, so feedback follows its trace."""

    def __init__(self, url: str) -> None:
        self.bootstrap, self.topic = parse_kafka_url(url)
        from kafka import KafkaProducer
        from kafka.errors import KafkaError

        self._error: type[Exception] = KafkaError
        try:
            self._producer = KafkaProducer(bootstrap_servers=self.bootstrap, acks="all", linger_ms=5)
        except KafkaError as exc:
            raise SourceError(f"cannot connect to Kafka at {','.join(self.bootstrap)}: {exc}") from exc

    def send(self, message: Mapping[str, Any]) -> None:
        key = str(message.get("trace_id", "")).encode()
        value = json.dumps(message, ensure_ascii=False).encode()
        try:
            self._producer.send(self.topic, key=key, value=value)
        except self._error as exc:
            raise SourceError(f"cannot produce to Kafka topic {self.topic}: {exc}") from exc

    def close(self) -> None:
        try:
            self._producer.flush()
        except self._error as exc:
            raise SourceError(f"cannot flush to Kafka topic {self.topic}: {exc}") from exc
        finally:
            self._producer.close()


def parse_kafka_url(url: str) -> tuple[list[str], str]:
    """``kafka://host:port[,host:port]/topic`` -> (bootstrap servers, topic)."""
    parts = urlsplit(url)
    topic = parts.path.strip("/")
    if parts.scheme != "kafka" or not parts.netloc or not topic:
        raise ConfigError(f"--kafka must look like kafka://host:port/topic, not {url!r}")
    return parts.netloc.split(","), topic


def emit(messages: Iterable[Mapping[str, Any]], sink: Sink, rate: float = 0.0) -> int:
    """Send every message, pacing traces at ``rate`` per second (0 = as fast as possible)."""
    started = time.monotonic()
    sent = traces = 0
    for message in messages:
        if rate > 0 and message.get("type") != "feedback":
            time.sleep(max(0.0, started + traces / rate - time.monotonic()))
            traces += 1
        sink.send(message)
        sent += 1
    return sent


def write_golden(path: Path) -> None:
    """Write the simulated policy's golden set (seed 000 format) for ``ragmon run --golden``."""
    _write_json(path, golden_entries(), "golden file")


def write_sections(path: Path) -> None:
    """Write section id -> text for ``ragmon run --golden-sections`` (the golden reference checks)."""
    _write_json(path, dict(load_policy().sections), "sections file")


def _write_json(path: Path, data: Any, what: str) -> None:
    try:
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write {what} {path}: {exc.strerror}") from exc


# --- command line ------------------------------------------------------------------------------


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``simulate`` on an argparse subparsers object; the handler is in ``func``."""
    p = subparsers.add_parser("simulate", help="generate BanHang-like traffic, optionally with a bad deploy")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--out", default=None, help="JSONL file, or - for stdout (the default)")
    out.add_argument("--kafka", default=None, metavar="URL", help="kafka://host:port/topic")
    p.add_argument("--count", type=_non_negative_int, default=1000, help="traces to generate")
    p.add_argument("--rate", type=_non_negative_float, default=0.0, help="traces per second; 0 = no pacing")
    p.add_argument(
        "--bad-deploy-at",
        type=_non_negative_int,
        default=None,
        metavar="N",
        help="trace index at which the chunk-800 index goes live (seed 000)",
    )
    p.add_argument(
        "--rollback-at",
        type=_non_negative_int,
        default=None,
        metavar="N",
        help="trace index at which the old index comes back",
    )
    p.add_argument("--mix", type=_mix_arg, default=dict(DEFAULT_MIX), help="language mix, e.g. vi=0.6,en=0.4")
    p.add_argument("--negative-feedback", type=_share, default=0.05, help="inline negative feedback share")
    p.add_argument("--late-feedback", type=_share, default=0.02, help="late negative feedback share")
    p.add_argument("--invalid", type=_share, default=0.0, help="share of malformed messages (dead-letter)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--start", type=_start_arg, default=DEFAULT_START, help="first timestamp (ISO 8601) or now"
    )
    p.add_argument(
        "--spacing",
        type=_non_negative_float,
        default=None,
        metavar="SECONDS",
        help="seconds between trace timestamps (default 1/rate, or 5)",
    )
    p.add_argument(
        "--golden-out", type=Path, default=None, help="also write the golden set (seed 000 format)"
    )
    p.add_argument(
        "--sections-out", type=Path, default=None, help="also write section id -> text (--golden-sections)"
    )
    p.set_defaults(func=run)
    return p  # type: ignore[no-any-return]  # argparse's private _SubParsersAction is untyped here


def run(args: argparse.Namespace) -> int:
    """Handle ``ragmon simulate``: generate, send, report on stderr."""
    if args.golden_out is not None:
        write_golden(args.golden_out)
    if args.sections_out is not None:
        write_sections(args.sections_out)
    spacing = (
        args.spacing if args.spacing is not None else (1 / args.rate if args.rate else DEFAULT_SPACING_S)
    )
    config = SimConfig(
        count=args.count,
        seed=args.seed,
        mix=args.mix,
        bad_deploy_at=args.bad_deploy_at,
        rollback_at=args.rollback_at,
        negative_feedback=args.negative_feedback,
        late_feedback=args.late_feedback,
        invalid=args.invalid,
        start=args.start,
        spacing_s=spacing,
    )
    sink: Sink = KafkaSink(args.kafka) if args.kafka else JsonlSink.open(args.out or "-")
    try:
        sent = emit(generate(config), sink, args.rate)
    finally:
        sink.close()
    print(f"simulate: sent {sent} messages ({config.count} traces)", file=sys.stderr)
    return 0


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {value}")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {text}")
    return value


def _share(text: str) -> float:
    value = _non_negative_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, not {text}")
    return value


def _mix_arg(text: str) -> dict[str, float]:
    try:
        return parse_mix(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _start_arg(text: str) -> datetime:
    if text == "now":
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
