"""The trace contract: one chat turn of a RAG assistant, and the late feedback event.

Seed 001's trace format is native; the aliases peer tools use (Ragas, DeepEval, LangSmith exports)
are accepted too. Unknown fields are kept in ``metadata``, never rejected. Every way a message can be
bad maps to one bounded ``reason`` so the dead-letter sink and ``ragmon_invalid_messages_total`` can
say precisely what went wrong.

A trace is a frozen ``msgspec.Struct`` (``Trace``, ``Chunk``, ``Feedback``): what every stage reads.
Messages reach it by one of two lanes that give the same trace for the same bytes:

- **canonical**: msgspec decodes the bytes straight into ``Trace``, validating as it goes (about five
  times cheaper than JSON decoding plus pydantic, most of the cheap path's cost). It takes only a
  message already in the native shape with nothing to normalize, and hands anything else on;
- **lenient**: ``monitor.decode`` decodes, ``monitor.peers`` adapts a peer tool's shape, and the
  pydantic ``TraceInput`` resolves aliases, rating synonyms, bare-text chunks and unknown fields, and
  names what is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from pydantic import (
    AliasChoices,
    AliasPath,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)

from monitor.decode import MAX_DEPTH, decode_json
from monitor.exceptions import TraceError
from monitor.peers import adapt, needs_adapting

DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024

# Bounded label values for ragmon_invalid_messages_total{reason}.
INVALID_REASONS = (
    "too_large",
    "not_utf8",
    "invalid_json",
    "number_too_large",
    "nested_too_deep",
    "undecodable",
    "not_object",
    "missing_trace_id",
    "missing_question",
    "missing_answer",
    "wrong_type",
    "non_finite_score",
    "otlp_invalid",
)

_ANSWER_ALIASES = ("generated_answer", "actual_output", "output", "response")
_QUESTION_ALIASES = ("input", "query", "user_input")
_CHUNK_ALIASES = ("contexts", "retrieval_context", "final_contexts")
_RATING_SYNONYMS = {
    "positive": "positive",
    "up": "positive",
    "thumbs_up": "positive",
    "good": "positive",
    "helpful": "positive",
    "like": "positive",
    "1": "positive",
    "+1": "positive",
    "negative": "negative",
    "down": "negative",
    "thumbs_down": "negative",
    "bad": "negative",
    "not_helpful": "negative",
    "unhelpful": "negative",
    "dislike": "negative",
    "-1": "negative",
    "neutral": "neutral",
    "0": "neutral",
}


class Chunk(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One retrieved chunk; ``sections`` names the policy sections it contains (seed 000); fields
    of a chunk that the contract does not name are kept in its ``metadata``."""

    chunk_id: str | None = None
    document_id: str | None = None
    sections: tuple[str, ...] = ()
    retrieval_score: float | None = None
    rerank_score: float | None = None
    text: str = ""
    metadata: dict[str, Any] = {}


Rating = Literal["positive", "negative", "neutral"]


class Feedback(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The user's feedback on an answer, inline in the trace or from a late event."""

    rating: Rating
    reason: str | None = None
    metadata: dict[str, Any] = {}


class Trace(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One question, what was retrieved for it, and what the assistant answered."""

    trace_id: Annotated[str, msgspec.Meta(min_length=1)]
    question: str
    answer: str
    timestamp: datetime | None = None
    conversation_id: str | None = None
    normalized_query: str | None = None
    retrieval_query: str | None = None
    retrieved_chunks: tuple[Chunk, ...] = ()
    citations: tuple[str, ...] = ()
    model_id: str | None = None
    prompt_version: str | None = None
    index_version: str | None = None
    latency_ms: Annotated[float, msgspec.Meta(ge=0)] | None = None
    usage: dict[str, Any] = {}
    feedback: Feedback | None = None
    language: str | None = None
    category: str | None = None
    reference_answer: str | None = (
        None  # the answer a reviewer expects (Ragas reference, DeepEval expected_output)
    )
    reference_contexts: tuple[str, ...] = ()  # the passages the reference answer comes from
    metadata: dict[str, Any] = {}

    @property
    def chunk_ids(self) -> frozenset[str]:
        """Ids of the retrieved chunks that have one."""
        return frozenset(c.chunk_id for c in self.retrieved_chunks if c.chunk_id is not None)


def normalize_rating(value: Any) -> Rating:
    """Map the many spellings of a thumbs-up/down to positive, negative or neutral."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"rating must be a string or a number, not {type(value).__name__}")
    if isinstance(value, str):
        key = value.strip().lower().replace(" ", "_")
        key = key if key.lstrip("+-").isdigit() else key.replace("-", "_")
    else:
        key = "1" if value > 0 else "-1" if value < 0 else "0"
    rating = _RATING_SYNONYMS.get(key)
    if rating is None:
        raise ValueError(f"unknown rating {value!r}")
    return rating  # type: ignore[return-value]  # the synonym table holds only Rating values


# --- the lenient lane: what is accepted beyond the canonical shape ---------------------------------


def _extras_metadata(model: BaseModel) -> dict[str, Any]:
    """A nested object's unknown fields as its ``metadata``, an explicit ``metadata`` object merged in
    (it wins on a clash); the trace itself declares ``metadata``, so ``to_trace`` merges its own."""
    extra = dict(model.__pydantic_extra__ or {})
    explicit = extra.pop("metadata", None) if isinstance(extra.get("metadata"), dict) else None
    return {**extra, **explicit} if explicit else extra


class ChunkInput(BaseModel):
    """A chunk as accepted: ``sections`` may come as ``metadata.sections``; aliases are resolved by
    pydantic-core (no Python per chunk)."""

    model_config = ConfigDict(extra="allow", frozen=True, allow_inf_nan=False)

    chunk_id: str | None = None
    document_id: str | None = None
    sections: tuple[str, ...] = Field(
        default=(), validation_alias=AliasChoices("sections", AliasPath("metadata", "sections"))
    )
    retrieval_score: float | None = None
    rerank_score: float | None = None
    text: str = ""

    def to_chunk(self) -> Chunk:
        """The chunk; unknown fields land in its ``metadata`` (an explicit ``metadata`` wins on a clash)."""
        return Chunk(
            self.chunk_id, self.document_id, self.sections, self.retrieval_score, self.rerank_score,
            self.text, _extras_metadata(self),
        )  # fmt: skip


class FeedbackInput(BaseModel):
    """Feedback as accepted: any spelling of a rating (``normalize_rating``)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    rating: Rating
    reason: str | None = None

    @field_validator("rating", mode="before")
    @classmethod
    def _normalize(cls, value: Any) -> Rating:
        return normalize_rating(value)

    def to_feedback(self) -> Feedback:
        """The feedback; unknown fields land in its ``metadata``, as a chunk's do."""
        return Feedback(self.rating, self.reason, _extras_metadata(self))


class TraceInput(BaseModel):
    """A trace as accepted, with every alias and leniency of the contract; ``to_trace`` makes it one."""

    model_config = ConfigDict(extra="allow", frozen=True, allow_inf_nan=False)

    trace_id: str = Field(min_length=1, coerce_numbers_to_str=True)
    question: str = Field(validation_alias=AliasChoices("question", *_QUESTION_ALIASES))
    answer: str = Field(validation_alias=AliasChoices("answer", *_ANSWER_ALIASES))
    timestamp: datetime | None = None
    conversation_id: str | None = None
    normalized_query: str | None = None
    retrieval_query: str | None = Field(
        default=None, validation_alias=AliasChoices("retrieval_query", "rewritten_query")
    )
    retrieved_chunks: tuple[ChunkInput, ...] = Field(
        default=(), validation_alias=AliasChoices("retrieved_chunks", *_CHUNK_ALIASES)
    )
    citations: tuple[str, ...] = ()
    model_id: str | None = None
    prompt_version: str | None = None
    index_version: str | None = None
    latency_ms: float | None = Field(default=None, ge=0)
    usage: dict[str, Any] = Field(default_factory=dict)
    feedback: FeedbackInput | None = None
    language: str | None = None
    category: str | None = None
    reference_answer: str | None = None
    reference_contexts: tuple[str, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("retrieved_chunks", mode="before")
    @classmethod
    def _text_chunks(cls, value: Any) -> Any:
        """A chunk may be given as its bare text (Ragas, DeepEval)."""
        if isinstance(value, list) and any(type(chunk) is str for chunk in value):
            return [{"text": chunk} if type(chunk) is str else chunk for chunk in value]
        return value

    def to_trace(self) -> Trace:
        """The trace; unknown fields land in ``metadata`` (an explicit ``metadata`` wins on a clash)."""
        values = {name: getattr(self, name) for name in Trace.__struct_fields__}  # the same field names
        extra = self.__pydantic_extra__
        values.update(
            retrieved_chunks=tuple(chunk.to_chunk() for chunk in self.retrieved_chunks),
            feedback=self.feedback.to_feedback() if self.feedback is not None else None,
            metadata={**extra, **self.metadata} if extra else self.metadata,
        )
        return Trace(**values)


class FeedbackEvent(BaseModel):
    """Feedback that arrives after its trace: ``{"type": "feedback", "trace_id": ..., "rating": ...}``."""

    model_config = ConfigDict(extra="allow", frozen=True)

    type: Literal["feedback"]
    trace_id: str = Field(min_length=1)
    rating: Rating
    reason: str | None = None
    timestamp: datetime | None = None

    @field_validator("rating", mode="before")
    @classmethod
    def _normalize(cls, value: Any) -> Rating:
        return normalize_rating(value)

    @property
    def feedback(self) -> Feedback:
        return Feedback(rating=self.rating, reason=self.reason)


Message = Trace | FeedbackEvent


def parse_message(raw: bytes, max_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> Message:
    """Decode and validate one message; raise ``TraceError`` with a precise reason when it is bad.

    Every failure becomes a ``TraceError`` (the loop dead-letters it and goes on): an exception that
    escaped here would stop a replay at that line and, on Kafka, crash every replica on the same offset.
    """
    if len(raw) > max_bytes:
        raise TraceError("too_large", f"{len(raw)} bytes is over the {max_bytes}-byte cap")
    try:
        return canonical_trace(raw) or validate_message(decode_json(raw))
    except TraceError:
        raise
    except RecursionError as exc:
        raise TraceError("nested_too_deep", "nested too deeply to validate") from exc
    except Exception as exc:  # noqa: BLE001 - any other failure on one message is that message's fault
        raise TraceError("undecodable", f"{type(exc).__name__}: {exc}"[:200]) from exc


_CANONICAL = msgspec.json.Decoder(Trace)
_ORJSON_INT = (-(2**63), 2**64)  # what orjson (and so the lenient lane and every writer) holds exactly


def canonical_trace(raw: bytes) -> Trace | None:
    """The trace of a message already in the canonical shape, or None to take the lenient lane.

    None whenever the lenient lane could read the bytes differently: a field the contract does not
    name (it goes to ``metadata`` there), an alias, a rating synonym, a bare-text chunk, a peer
    tool's ``reference_contexts``, a chunk's ``metadata`` (it may carry ``sections``), nesting deeper
    than ``MAX_DEPTH``, an integer beyond 64 bits, anything that is not valid JSON or UTF-8 (lone
    surrogates, a byte order mark, ``NaN``, ``1e400``): msgspec refuses all of those itself.

    The schema bounds the nesting of everything but ``usage`` and ``metadata`` (a chunk's and the
    feedback's metadata must be empty here): their walk checks the depth, and nesting deeper than
    msgspec recurses is its ``RecursionError``. So the bytes are not scanned for brackets first.
    """
    try:
        trace = _CANONICAL.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None  # the lenient lane names what is wrong (a deep message may be bad in other ways)
    if trace.reference_contexts or any(chunk.metadata for chunk in trace.retrieved_chunks):
        return None
    if trace.timestamp is not None and not _plain_timestamp(raw):
        return None
    if not (_plain_free_form(trace.usage) and _plain_free_form(trace.metadata)):
        return None
    if trace.feedback is not None and trace.feedback.metadata:
        return None
    return trace


_TIMESTAMP_KEY = b'"timestamp"'
# A fraction of more than six digits: msgspec rounds it to the microsecond, pydantic truncates it.
_LONG_FRACTION = re.compile(rb'"timestamp"\s*:\s*"[^"]*?[.,]\d{7}')


def _plain_timestamp(raw: bytes) -> bool:
    """Whether the message's timestamp is written so that both lanes read the same instant: its key
    found as written (not escaped), with at most microseconds."""
    at = raw.find(_TIMESTAMP_KEY)
    if at < 0:
        return False  # the key was escaped ("timest\u0061mp"): let the lenient lane read it
    while at >= 0:
        if _LONG_FRACTION.match(raw, at):
            return False
        at = raw.find(_TIMESTAMP_KEY, at + len(_TIMESTAMP_KEY))
    return True


_FREE_FORM_DEPTH = 2  # the depth of a trace's usage and metadata objects (the trace itself is 1)


def _plain_free_form(value: dict[str, Any]) -> bool:
    """Whether a free-form object of the trace reads the same through both lanes: every integer one
    orjson holds exactly, no container deeper than ``MAX_DEPTH`` in the message; iterative."""
    if not value:
        return True
    low, high = _ORJSON_INT
    stack: list[tuple[Any, int]] = [(value, _FREE_FORM_DEPTH)]
    while stack:
        node, depth = stack.pop()
        children: Iterable[Any] = node.values() if type(node) is dict else node
        for child in children:
            kind = type(child)
            if kind is int:
                if not low <= child < high:
                    return False
            elif kind is dict or kind is list:
                if depth >= MAX_DEPTH:
                    return False  # the child would be deeper than the lenient lane accepts
                stack.append((child, depth + 1))
    return True


def validate_message(data: Any) -> Message:
    """Validate an already-decoded JSON value as a trace or a feedback event (the lenient lane)."""
    if not isinstance(data, dict):
        raise TraceError("not_object", f"expected a JSON object, got {_json_type(data)}")
    try:
        if data.get("type") == "feedback":
            return FeedbackEvent.model_validate(data)
        if needs_adapting(data):
            data = adapt(data)
        return TraceInput.model_validate(data).to_trace()
    except ValidationError as exc:
        raise _trace_error(exc) from exc


def validate_trace(data: Any) -> Trace:
    """Validate a decoded JSON object as a trace, never a feedback event (tools and tests)."""
    message = validate_message(data)
    if not isinstance(message, Trace):
        raise TraceError("wrong_type", "a feedback event, not a trace")
    return message


def _trace_error(exc: ValidationError) -> TraceError:
    errors = exc.errors(include_url=False)
    for err in errors:
        loc = err["loc"]
        if err["type"] == "missing" and len(loc) == 1 and loc[0] in ("trace_id", "question", "answer"):
            return TraceError(f"missing_{loc[0]}", f"field '{loc[0]}' is required")
    for err in errors:
        if err["type"] == "finite_number":
            return TraceError("non_finite_score", f"{_loc(err['loc'])} must be a finite number")
    first = errors[0]
    return TraceError("wrong_type", f"{_loc(first['loc'])}: {first['msg']}")


def _loc(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "message"


def _json_type(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)
