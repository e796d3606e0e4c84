"""Traces that arrive in parts: OTLP spans and Langfuse observations, gathered by trace id.

A source hands each raw message to a ``RecordReader``, which turns it into messages of one native
JSON record each (what the loop reads):

- a native record passes through untouched (a few byte searches tell it apart: no parse here);
- a JSON array, or a document such as Langfuse's ``{"data": [...]}``, becomes one message per record;
- an OTLP request (protobuf, JSON, gzip) and Langfuse observations are parts of traces: the
  ``Assembler`` holds them by trace id and hands a trace on when it is whole. For spans that is when the
  root span arrives (children end, and are exported, first); for observations, or a trace whose root
  never comes, when no part has come for ``settle_s``; and at the end of a finite input.

An assembled trace's message remembers every raw message it was built from (``parts``), so a source
acknowledges a raw message only once every trace that drew on it is handled (at-least-once on Kafka).
Spans that cannot be read become a message with ``rejected`` set, dead-lettered with their reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec
import orjson

from monitor.exceptions import TraceError
from monitor.message import Message, Origin
from monitor.otlp import Span, decode_request, group_by_trace, spans_from_json, trace_from_spans
from monitor.peers import is_langfuse_trace, is_observation, trace_from_observations
from monitor.trace import DEFAULT_MAX_MESSAGE_BYTES, canonical_trace

Format = Literal["auto", "json", "otlp_proto", "otlp_json"]
FORMATS: tuple[Format, ...] = ("auto", "json", "otlp_proto", "otlp_json")
DEFAULT_SETTLE_S = 5.0
MAX_PENDING_TRACES = 10_000  # past it the oldest pending trace is handed on as it is


@dataclass(slots=True)
class _Pending:
    kind: Literal["spans", "observations"]
    parts: list[Any] = field(default_factory=list)
    origins: list[Origin] = field(default_factory=list)
    raws: list[Message] = field(default_factory=list)
    updated: float = 0.0


class Assembled(msgspec.Struct, frozen=True):
    """A message built from parts, and the raw messages it was built from; ``pending`` when it was
    counted against its parts while they waited (a trace gathered by the assembler)."""

    message: Message
    parts: tuple[Message, ...]
    pending: bool = False


class RecordReader:
    """Turns raw messages into native records, holding the parts of traces until they are whole."""

    def __init__(
        self,
        fmt: Format = "auto",
        settle_s: float = DEFAULT_SETTLE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.fmt, self.settle_s, self._clock = fmt, settle_s, clock
        self._pending: dict[str, _Pending] = {}
        self._refs: dict[int, int] = {}  # id(raw message) -> messages built from it not yet released

    @property
    def pending(self) -> int:
        """Traces waiting for more parts."""
        return len(self._pending)

    def read(self, message: Message) -> list[Assembled]:
        """What one raw message yields now (possibly nothing: parts wait for their trace)."""
        handed = self.native(message)
        if handed is not None:
            return [Assembled(handed, (handed,))]  # most messages: one native record, as it came
        return self.read_other(message)

    def read_other(self, message: Message) -> list[Assembled]:
        """``read`` for a message ``native`` did not hand on."""
        out = list(self._read(message))
        for built in out:
            if not built.pending and built.parts != (built.message,):
                for raw in built.parts:
                    self._refs[id(raw)] = self._refs.get(id(raw), 0) + 1
        return out

    def release(self, parts: tuple[Message, ...]) -> list[Message]:
        """A built message was handled: the raw messages no other built message still needs."""
        done = []
        for raw in parts:
            left = self._refs.get(id(raw), 1) - 1
            if left > 0:
                self._refs[id(raw)] = left
            else:
                self._refs.pop(id(raw), None)
                done.append(raw)
        return done

    def native(self, message: Message) -> Message | None:
        """The message to hand on when it can only be one native record, else None.

        A record the canonical lane reads is one: a trace has none of a container's keys (the lane
        refuses any field the contract does not name), so it is handed on with its trace ``decoded``
        and the loop does not read it again; the byte searches for those keys (``_maybe_container``)
        are left for the other messages.
        """
        if message.encoding is not None or self.fmt not in ("auto", "json"):
            return None
        value = message.value
        if message.rejected is None and message.decoded is None and len(value) <= DEFAULT_MAX_MESSAGE_BYTES:
            trace = canonical_trace(value)
            if trace is not None:
                return msgspec.structs.replace(message, decoded=trace)
        if self.fmt == "json" or not (_maybe_binary_otlp(value) or _maybe_container(value)):
            return message
        return None

    def _read(self, message: Message) -> Iterator[Assembled]:
        value = message.value
        fmt = message.encoding or self.fmt
        if fmt in ("otlp_proto", "otlp_json"):
            yield from self._otlp(message, "json" if fmt == "otlp_json" else "protobuf")
            return
        if fmt == "auto" and _maybe_binary_otlp(value):
            yield from self._otlp(message, "")
            return
        if fmt == "json" or not _maybe_container(value):
            yield Assembled(message, (message,))
            return
        try:
            data = orjson.loads(value.lstrip(b"\xef\xbb\xbf"))
        except orjson.JSONDecodeError:
            yield Assembled(message, (message,))  # the loop's decoder names what is wrong
            return
        yield from self._document(message, data)

    def _document(self, message: Message, data: Any) -> Iterator[Assembled]:
        if isinstance(data, dict) and isinstance(data.get("resourceSpans"), list):
            yield from self._spans(message, _spans_or_error(data))
        elif isinstance(data, dict) and is_observation(data):
            yield from self._observations(message, [data])
        elif isinstance(data, dict) and is_langfuse_trace(data):
            yield self._built(
                message, (message,), lambda: trace_from_observations(data["observations"], data)
            )
        elif (
            isinstance(data, dict)
            and isinstance(data.get("data"), list)
            and all(isinstance(d, dict) for d in data["data"])
        ):
            yield from self._records(message, data["data"])
        elif isinstance(data, list) and not any(isinstance(d, dict) for d in data):
            detail = f"a JSON array of {len(data)} elements, none of them an object"
            yield Assembled(_rejected(message, TraceError("not_object", detail)), (message,))
        elif isinstance(data, list):
            yield from self._records(message, data)
        else:
            yield Assembled(message, (message,))

    def _records(self, message: Message, records: list[Any]) -> Iterator[Assembled]:
        """One message per element of an array; observations among them are gathered by trace."""
        observations = [r for r in records if isinstance(r, dict) and is_observation(r)]
        for index, record in enumerate(records, 1):
            if isinstance(record, dict) and is_observation(record):
                continue
            origin = _element(message.origin, index)
            yield Assembled(Message(orjson.dumps(record), origin, message.key), (message,))
        if observations:
            yield from self._observations(message, observations)

    def _otlp(self, message: Message, content_type: str) -> Iterator[Assembled]:
        try:
            spans = decode_request(message.value, content_type)
        except TraceError as exc:
            yield Assembled(_rejected(message, exc), (message,))
            return
        yield from self._spans(message, spans)

    def _spans(self, message: Message, spans: list[Span] | TraceError) -> Iterator[Assembled]:
        if isinstance(spans, TraceError):
            yield Assembled(_rejected(message, spans), (message,))
            return
        if not spans:
            yield Assembled(
                _rejected(message, TraceError("otlp_invalid", "an OTLP request without spans")), (message,)
            )
            return
        for trace_id, group in group_by_trace(spans).items():
            entry = self._entry(trace_id, "spans", message)
            entry.parts.extend(group)
            if any(span.is_root for span in group):
                yield self._complete(trace_id)
        yield from self._overflow()

    def _observations(self, message: Message, observations: list[dict[str, Any]]) -> Iterator[Assembled]:
        for observation in observations:
            self._entry(str(observation["traceId"]), "observations", message).parts.append(observation)
        yield from self._overflow()

    def _entry(self, trace_id: str, kind: Literal["spans", "observations"], message: Message) -> _Pending:
        entry = self._pending.get(trace_id)
        if entry is None:
            entry = self._pending[trace_id] = _Pending(kind)
        if not entry.raws or entry.raws[-1] is not message:
            entry.raws.append(message)
            entry.origins.append(message.origin)
            self._refs[id(message)] = self._refs.get(id(message), 0) + 1  # one future trace needs it
        entry.updated = self._clock()
        return entry

    def _complete(self, trace_id: str) -> Assembled:
        entry = self._pending.pop(trace_id)
        first = entry.raws[0]
        build = (
            (lambda: trace_from_spans(entry.parts))
            if entry.kind == "spans"
            else (lambda: trace_from_observations(entry.parts))
        )
        return self._built(Message(b"", entry.origins[-1], first.key), tuple(entry.raws), build, pending=True)

    def _built(
        self,
        carrier: Message,
        parts: tuple[Message, ...],
        build: Callable[[], dict[str, Any]],
        pending: bool = False,
    ) -> Assembled:
        try:
            record = build()
        except TraceError as exc:
            raw = b"\n".join(part.value for part in parts)
            return Assembled(
                Message(raw, carrier.origin, carrier.key, (exc.reason, exc.detail)), parts, pending
            )
        return Assembled(Message(orjson.dumps(record), carrier.origin, carrier.key), parts, pending)

    def _overflow(self) -> Iterator[Assembled]:
        while len(self._pending) > MAX_PENDING_TRACES:
            yield self._complete(next(iter(self._pending)))

    def due(self) -> list[Assembled]:
        """Traces no part has come for in ``settle_s``: handed on as they are."""
        deadline = self._clock() - self.settle_s
        return [self._complete(t) for t in [t for t, e in self._pending.items() if e.updated <= deadline]]

    def flush(self) -> list[Assembled]:
        """Every trace still waiting (the input has ended)."""
        return [self._complete(trace_id) for trace_id in list(self._pending)]


def _maybe_binary_otlp(value: bytes) -> bool:
    """Gzip, or protobuf (an ``ExportTraceServiceRequest`` opens with field 1's tag, ``0x0a``)."""
    return value.startswith(b"\x1f\x8b") or (value[:1] == b"\n" and value.lstrip()[:1] not in (b"{", b"["))


def _maybe_container(value: bytes) -> bool:
    """Whether a message could be anything but one native record (searches, no parse)."""
    head = value.lstrip(b" \t\r\n\xef\xbb\xbf")[:1]
    return head == b"[" or b'"resourceSpans"' in value or b'"traceId"' in value or b'"data"' in value[:64]


def _spans_or_error(data: dict[str, Any]) -> list[Span] | TraceError:
    try:
        return spans_from_json(data)
    except TraceError as exc:
        return exc


def _rejected(message: Message, exc: TraceError) -> Message:
    return Message(message.value, message.origin, message.key, (exc.reason, exc.detail))


def _element(origin: Origin, index: int) -> Origin:
    """Where an element of an array came from: the line of a JSONL file stays, a document gets the index."""
    if origin.path is not None and origin.line in (None, 1) and origin.offset is None:
        return Origin(path=origin.path, line=index)
    return origin
