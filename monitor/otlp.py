"""OpenTelemetry traces in: OTLP requests (protobuf, JSON, gzip) decoded into spans, spans into one trace.

``decode_request`` reads an ``ExportTraceServiceRequest`` in any of its encodings (the official
``opentelemetry-proto`` messages for protobuf; OTLP/JSON with hex ids and camelCase as the spec and
the Collector write it) into ``Span``s. ``trace_from_spans`` maps the spans of one trace id onto one
ragmon trace, reading the conventions producers use:

- OpenInference: the root's ``input.value``/``output.value``; RETRIEVER spans'
  ``retrieval.documents.N.document.{id,score,content,metadata}``; LLM spans' ``llm.model_name``,
  ``llm.input_messages.N.message.*``, ``llm.output_messages.N.message.*``, ``llm.token_count.*``;
- OTel GenAI, current: ``gen_ai.input.messages``/``gen_ai.output.messages`` (JSON, parts),
  ``gen_ai.response.model``, ``gen_ai.usage.input_tokens``/``output_tokens``, retrieval spans'
  ``gen_ai.retrieval.documents``; older: indexed ``gen_ai.prompt.N.*``/``gen_ai.completion.N.*`` and the
  ``gen_ai.content.prompt``/``gen_ai.content.completion`` span events;
- the Langfuse SDK: ``langfuse.observation.{type,input,output,model.name,usage_details}``.

The root span's id is kept (``metadata.otel.span_id``) so evaluation results can be parented to it.
"""

from __future__ import annotations

import base64
import binascii
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from monitor.exceptions import TraceError

GZIP_MAGIC = b"\x1f\x8b"
MAX_INFLATED_BYTES = 64 * 1024 * 1024  # a gzip body may not inflate past this (a zip bomb is one line)


@dataclass(frozen=True, slots=True)
class Span:
    """One span, as much of it as mapping needs; ids are lowercase hex."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start_ns: int
    attributes: Mapping[str, Any]
    events: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    resource: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_root(self) -> bool:
        return not self.parent_id


def decode_request(raw: bytes, content_type: str = "") -> list[Span]:
    """The spans of one OTLP request: protobuf or JSON (told by the content type, else by the bytes)."""
    if raw.startswith(GZIP_MAGIC):
        raw = gunzip(raw)
    if content_type:
        return spans_from_json(raw) if "json" in content_type else spans_from_protobuf(raw)
    if raw.lstrip()[:1] != b"{":
        return spans_from_protobuf(raw)
    try:
        return spans_from_json(raw)
    except TraceError:
        if raw[:1] != b"\n":
            raise
        return spans_from_protobuf(raw)  # a protobuf request can open with b"\n{" (a 123-byte resource)


def gunzip(raw: bytes, limit: int = MAX_INFLATED_BYTES) -> bytes:
    """A gzip body inflated, refused (``otlp_invalid``) when it is not gzip or inflates past ``limit``."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(raw, limit)
    except zlib.error as exc:
        raise TraceError("otlp_invalid", f"not gzip: {exc}") from exc
    if inflater.unconsumed_tail:
        raise TraceError("otlp_invalid", f"gzip body inflates past {limit} bytes")
    if not inflater.eof:
        raise TraceError("otlp_invalid", "gzip body is truncated")
    return out


def spans_from_protobuf(raw: bytes) -> list[Span]:
    """An ``ExportTraceServiceRequest`` in protobuf."""
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(raw)
    except DecodeError as exc:
        raise TraceError("otlp_invalid", f"not an OTLP protobuf request: {exc}") from exc
    spans: list[Span] = []
    for resource_spans in request.resource_spans:
        resource = {kv.key: _pb_value(kv.value) for kv in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for s in scope_spans.spans:
                spans.append(
                    Span(
                        s.trace_id.hex(),
                        s.span_id.hex(),
                        s.parent_span_id.hex(),
                        s.name,
                        int(s.start_time_unix_nano),
                        {kv.key: _pb_value(kv.value) for kv in s.attributes},
                        tuple(
                            (e.name, {kv.key: _pb_value(kv.value) for kv in e.attributes}) for e in s.events
                        ),
                        resource,
                    )
                )
    return spans


def _pb_value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [_pb_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: _pb_value(kv.value) for kv in value.kvlist_value.values}
    if kind == "bytes_value":
        return value.bytes_value.hex()
    return getattr(value, kind)


def spans_from_json(raw: bytes | Mapping[str, Any]) -> list[Span]:
    """An ``ExportTraceServiceRequest`` in OTLP/JSON (hex ids, camelCase names)."""
    try:
        data = orjson.loads(raw) if isinstance(raw, bytes) else raw
    except orjson.JSONDecodeError as exc:
        raise TraceError("otlp_invalid", f"not OTLP/JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("resourceSpans"), list):
        raise TraceError("otlp_invalid", "an OTLP/JSON request holds a 'resourceSpans' list")
    spans: list[Span] = []
    for resource_spans in data["resourceSpans"]:
        resource = _json_attributes((resource_spans.get("resource") or {}).get("attributes"))
        for scope_spans in resource_spans.get("scopeSpans") or ():
            for s in scope_spans.get("spans") or ():
                events = tuple(
                    (str(e.get("name", "")), _json_attributes(e.get("attributes")))
                    for e in s.get("events") or ()
                )
                spans.append(
                    Span(
                        _hex_id(s.get("traceId")),
                        _hex_id(s.get("spanId")),
                        _hex_id(s.get("parentSpanId")),
                        str(s.get("name", "")),
                        int(s.get("startTimeUnixNano") or 0),
                        _json_attributes(s.get("attributes")),
                        events,
                        resource,
                    )
                )
    return spans


def _hex_id(value: Any) -> str:
    """An id as lowercase hex: OTLP/JSON writes hex; protobuf's own JSON mapping (``MessageToJson``)
    writes base64, which some bridges pass on: 16- and 8-byte ids are 24 and 12 base64 characters."""
    text = str(value or "")
    if len(text) in (12, 24) and text.endswith("="):
        try:
            return base64.b64decode(text, validate=True).hex()
        except (binascii.Error, ValueError):
            pass
    return text.lower()


def _json_attributes(items: Any) -> dict[str, Any]:
    return {
        str(kv.get("key")): _json_value(kv.get("value") or {}) for kv in items or () if isinstance(kv, dict)
    }


def _json_value(value: Mapping[str, Any]) -> Any:
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [_json_value(v) for v in (value["arrayValue"] or {}).get("values") or ()]
    if "kvlistValue" in value:
        return _json_attributes((value["kvlistValue"] or {}).get("values"))
    return None


def group_by_trace(spans: Iterable[Span]) -> dict[str, list[Span]]:
    """Spans per trace id, in the order they came."""
    groups: dict[str, list[Span]] = {}
    for span in spans:
        groups.setdefault(span.trace_id, []).append(span)
    return groups


# --- spans -> one ragmon trace --------------------------------------------------------------------


def trace_from_spans(spans: Sequence[Span]) -> dict[str, Any]:
    """One native trace record from the spans of one trace id (raises TraceError when no answer)."""
    ordered = sorted(spans, key=lambda s: (not s.is_root, s.start_ns))
    root = next((s for s in ordered if s.is_root), ordered[0])
    question = _first(_question(s) for s in ordered)
    answer = _first(_answer(s) for s in ordered)
    if question is None or answer is None:
        missing = "question" if question is None else "answer"
        raise TraceError(f"missing_{missing}", f"no span of trace {root.trace_id} carries the {missing}")
    record: dict[str, Any] = {
        "trace_id": root.trace_id,
        "question": question,
        "answer": answer,
        "retrieved_chunks": [chunk for s in ordered for chunk in _documents(s)],
        "timestamp": datetime.fromtimestamp(root.start_ns / 1e9, UTC).isoformat() if root.start_ns else None,
        "model_id": _first(_model(s) for s in ordered),
        "prompt_version": _first(_version(s, PROMPT_VERSION_KEYS, "prompt_version") for s in ordered),
        "index_version": _first(_version(s, INDEX_VERSION_KEYS, "index_version") for s in ordered),
        "usage": _first(_usage(s) for s in ordered) or {},
        "conversation_id": _first(_text(s.attributes.get("session.id")) for s in ordered),
        "metadata": {"otel": {"span_id": root.span_id, "service": root.resource.get("service.name")}},
    }
    return {k: v for k, v in record.items() if v is not None}


def _first(values: Iterable[Any]) -> Any:
    return next((v for v in values if v not in (None, "", [], {})), None)


def _first_text(values: Iterable[str | None]) -> str | None:
    return next((v for v in values if v), None)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _json(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return value


def _kind(span: Span) -> str:
    attrs = span.attributes
    kind = attrs.get("openinference.span.kind") or attrs.get("langfuse.observation.type") or ""
    operation = attrs.get("gen_ai.operation.name") or ""
    return str(kind or operation).lower()


def _io_text(span: Span, side: str, keys: tuple[str, ...]) -> str | None:
    """A root or chain span's ``input``/``output`` text: OpenInference's ``<side>.value`` (per its mime
    type) or Langfuse's observation ``<side>`` (a string, or the first of ``keys`` in a mapping)."""
    if not (span.is_root or _kind(span) in ("chain", "agent", "span")):
        return None
    a = span.attributes
    return _plain(a.get(f"{side}.value"), a.get(f"{side}.mime_type")) or _langfuse_text(
        a.get(f"langfuse.observation.{side}"), keys
    )


def _question(span: Span) -> str | None:
    if value := _io_text(span, "input", ("question", "input", "query")):
        return value
    return _last_user(_messages(span))


def _answer(span: Span) -> str | None:
    if value := _io_text(span, "output", ("answer", "output", "content")):
        return value
    a = span.attributes
    if _kind(span) == "generation":
        return _langfuse_text(a.get("langfuse.observation.output"), ("content", "answer", "output"))
    return _assistant(span)


def _plain(value: Any, mime: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    if mime == "application/json":
        parsed = _json(value)
        return (
            _langfuse_text(parsed, ("question", "answer", "input", "output", "content")) if parsed else None
        )
    return value


def _langfuse_text(value: Any, keys: tuple[str, ...]) -> str | None:
    """A Langfuse input/output: a string (JSON or not), or an object holding the text under a key."""
    value = _json(value)
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, dict):
        return _first_text(_text(value.get(k)) for k in keys)
    if isinstance(value, list):
        return _last_user([m for m in value if isinstance(m, dict)])
    return None


def _messages(span: Span) -> list[dict[str, Any]]:
    """Chat input messages in any convention: OpenInference, GenAI JSON parts, indexed or event prompts."""
    a = span.attributes
    indexed = _indexed(a, "llm.input_messages.", ".message.") or _indexed(a, "gen_ai.prompt.", ".")
    if indexed:
        return indexed
    parsed = _json(a.get("gen_ai.input.messages"))
    if isinstance(parsed, list):
        return [_flatten_parts(m) for m in parsed if isinstance(m, dict)]
    for name, attrs in span.events:
        if name == "gen_ai.content.prompt":
            events = _json(attrs.get("gen_ai.prompt"))
            if isinstance(events, list):
                return [m for m in events if isinstance(m, dict)]
    return []


def _assistant(span: Span) -> str | None:
    a = span.attributes
    outputs = _indexed(a, "llm.output_messages.", ".message.") or _indexed(a, "gen_ai.completion.", ".")
    if not outputs:
        parsed = _json(a.get("gen_ai.output.messages"))
        outputs = (
            [_flatten_parts(m) for m in parsed if isinstance(m, dict)] if isinstance(parsed, list) else []
        )
    if not outputs:
        for name, attrs in span.events:
            if name == "gen_ai.content.completion":
                events = _json(attrs.get("gen_ai.completion"))
                outputs = [m for m in events if isinstance(m, dict)] if isinstance(events, list) else []
    return _first_text(_text(m.get("content")) for m in outputs if m.get("role") in (None, "assistant"))


def _indexed(attrs: Mapping[str, Any], prefix: str, infix: str) -> list[dict[str, Any]]:
    """``prefix N infix key`` attributes as a list of dicts, in index order."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if not key.startswith(prefix):
            continue
        index, sep, rest = key[len(prefix) :].partition(infix)
        if sep and index.isdigit():
            found.setdefault(int(index), {})[rest] = value
    return [found[i] for i in sorted(found)]


def _flatten_parts(message: Mapping[str, Any]) -> dict[str, Any]:
    parts = message.get("parts")
    if isinstance(parts, list):
        texts = [
            str(p.get("content", ""))
            for p in parts
            if isinstance(p, dict) and p.get("type", "text") == "text"
        ]
        return {"role": message.get("role"), "content": "\n".join(t for t in texts if t)}
    return dict(message)


def _last_user(messages: Sequence[Mapping[str, Any]]) -> str | None:
    users = [m for m in messages if m.get("role") == "user"]
    return _text(users[-1].get("content")) if users else None


def _documents(span: Span) -> Iterator[dict[str, Any]]:
    """The retrieved documents a span carries, as chunk objects."""
    a = span.attributes
    kind = _kind(span)
    indexed = _indexed(a, "retrieval.documents.", ".document.")
    if indexed:
        yield from (_chunk(d.get("id"), d.get("content"), d.get("score"), d.get("metadata")) for d in indexed)
        return
    if kind == "retrieval" or "gen_ai.retrieval.documents" in a:
        docs = _json(a.get("gen_ai.retrieval.documents"))
        for d in docs if isinstance(docs, list) else ():
            if isinstance(d, dict):
                yield _chunk(d.get("id"), d.get("content"), d.get("score"), d.get("metadata"))
        return
    if kind == "retriever":
        docs = _json(a.get("langfuse.observation.output"))
        for d in docs if isinstance(docs, list) else ():
            if isinstance(d, dict):
                raw_meta = d.get("metadata")
                meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
                yield _chunk(
                    d.get("id") or meta.get("doc_id"), d.get("page_content"), meta.get("score"), meta
                )


def _chunk(chunk_id: Any, text: Any, score: Any, metadata: Any) -> dict[str, Any]:
    meta = _json(metadata)
    chunk: dict[str, Any] = {"text": str(text or "")}
    if chunk_id not in (None, ""):
        chunk["chunk_id"] = str(chunk_id)
    if isinstance(score, int | float) and not isinstance(score, bool):
        chunk["retrieval_score"] = float(score)
    if isinstance(meta, dict):
        sections = meta.get("sections")
        if isinstance(sections, list) and all(isinstance(s, str) for s in sections):
            chunk["sections"] = sections
        document = meta.get("document_id") or meta.get("source")
        if isinstance(document, str):
            chunk["document_id"] = document
    return chunk


def _model(span: Span) -> str | None:
    a = span.attributes
    return _first_text(
        _text(a.get(k))
        for k in (
            "gen_ai.response.model",
            "llm.model_name",
            "gen_ai.request.model",
            "langfuse.observation.model.name",
        )
    )


PROMPT_VERSION_KEYS = ("ragmon.prompt_version", "llm.prompt_template.version", "gen_ai.prompt.version")
INDEX_VERSION_KEYS = ("ragmon.index_version",)


def _version(span: Span, keys: Sequence[str], field: str) -> str | None:
    """A version label from its span attribute, else from OpenInference's ``metadata`` JSON object."""
    a = span.attributes
    found = _first_text(_text(a.get(k)) for k in keys)
    if found is None:
        meta = _json(a.get("metadata"))
        if isinstance(meta, dict) and isinstance(meta.get(field), str | int):
            found = str(meta[field])
    return found


def _usage(span: Span) -> dict[str, int] | None:
    a = span.attributes
    prompt = _first(
        a.get(k)
        for k in ("llm.token_count.prompt", "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
    )
    completion = _first(
        a.get(k)
        for k in (
            "llm.token_count.completion",
            "gen_ai.usage.output_tokens",
            "gen_ai.usage.completion_tokens",
        )
    )
    if prompt is None and completion is None:
        details = _json(a.get("langfuse.observation.usage_details"))
        if isinstance(details, dict):
            prompt, completion = details.get("input"), details.get("output")
    usage = {
        k: int(v)
        for k, v in (("prompt_tokens", prompt), ("completion_tokens", completion))
        if isinstance(v, int)
    }
    return usage or None
