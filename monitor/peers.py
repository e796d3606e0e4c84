"""Records of the tools users already run, mapped onto ragmon's trace: Ragas, DeepEval, Langfuse.

Each mapping is field by field (README, "Ingesting from ..."):

- Ragas (``SingleTurnSample``, ``EvaluationDataset.to_jsonl``/``to_pandas``/``to_hf_dataset``):
  ``user_input`` -> question, ``response`` -> answer, ``retrieved_contexts`` (+ ``retrieved_context_ids``)
  -> chunks, ``reference`` -> reference answer, ``reference_contexts`` -> reference contexts;
- DeepEval (``LLMTestCase.model_dump()`` snake or camel case, ``EvaluationDataset.save_as``): ``input``,
  ``actual_output``/``actualOutput``, ``retrieval_context``/``retrievalContext`` (a list, or save_as's
  ``|``-joined string with its ``deepeval_source=...,deepeval_context=...`` markers),
  ``expected_output``/``expectedOutput``, ``context`` (the ideal context), token counts -> usage;
- Langfuse: observations (``ObservationV2``/``ObservationsView``, camelCase) grouped by ``traceId``
  (the root SPAN's input/output, the RETRIEVER's documents, the GENERATION's model and usage), and
  ``TraceWithFullDetails`` (a trace with its observations).

A record without an id gets ``peer-`` and the first 16 hex digits of the SHA-256 of its question,
answer, contexts and reference (unit separators between them): the same record always gets the same
id, so a replay of one file twice stores its cases once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

_RAGAS = frozenset({"user_input", "response", "retrieved_contexts", "retrieved_context_ids", "reference"})
_DEEPEVAL = frozenset(
    {
        "actual_output",
        "actualOutput",
        "retrieval_context",
        "retrievalContext",
        "expected_output",
        "expectedOutput",
        "additional_metadata",
        "input_token_count",
        "inputTokenCount",
    }
)
PEER_KEYS = _RAGAS | _DEEPEVAL | {"reference_contexts", "expected_outcome"}
_DEEPEVAL_MARKER = "deepeval_source="
_DEEPEVAL_CONTEXT = ",deepeval_context="
_OBSERVATION_TYPES = frozenset(
    {
        "SPAN",
        "GENERATION",
        "RETRIEVER",
        "EVENT",
        "AGENT",
        "TOOL",
        "CHAIN",
        "EVALUATOR",
        "EMBEDDING",
        "GUARDRAIL",
    }
)


def needs_adapting(data: Mapping[str, Any]) -> bool:
    """Whether a decoded record is a peer tool's shape (or lacks an id): a set test, cheap per trace."""
    return data.get("trace_id") in (None, "") or not PEER_KEYS.isdisjoint(data)


def adapt(data: Mapping[str, Any]) -> dict[str, Any]:
    """A Ragas or DeepEval record as a native trace record (native records pass through unchanged)."""
    out = dict(data)
    _move(out, "question", ("user_input", "input", "query"))
    _move(out, "answer", ("response", "actual_output", "actualOutput"))
    _move(out, "reference_answer", ("reference", "expected_output", "expectedOutput", "ground_truth"))
    contexts = _first_present(out, ("retrieved_contexts", "retrieval_context", "retrievalContext"))
    if contexts is not None and "retrieved_chunks" not in out:
        out["retrieved_chunks"] = _chunks(contexts, out.pop("retrieved_context_ids", None))
    reference_contexts = _first_present(out, ("reference_contexts", "context"))
    if reference_contexts is not None:
        out["reference_contexts"] = _texts(reference_contexts)
    _usage(out)
    meta = out.pop("additional_metadata", None)
    if isinstance(meta, dict):
        out["metadata"] = (
            {**meta, **(out.get("metadata") or {})} if isinstance(out.get("metadata"), dict) else meta
        )
    if out.get("trace_id") in (None, ""):
        out.pop("trace_id", None)
        out["trace_id"] = content_id(out)
    return out


def content_id(record: Mapping[str, Any]) -> str:
    """``peer-`` + 16 hex digits of the SHA-256 of question, answer, contexts and reference."""
    chunks = record.get("retrieved_chunks") or ()
    texts = [str(c.get("text") or "") if isinstance(c, dict) else str(c) for c in chunks]
    parts = [
        str(record.get("question", "")),
        str(record.get("answer", "")),
        *texts,
        str(record.get("reference_answer") or ""),
    ]
    return "peer-" + hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]


def _move(out: dict[str, Any], field: str, names: Sequence[str]) -> None:
    if out.get(field) is not None:
        return
    value = _first_present(out, names)
    if value is not None:
        out[field] = value


def _first_present(out: dict[str, Any], names: Sequence[str]) -> Any:
    """Pop every name; return the first one's value that is not null."""
    found = None
    for name in names:
        value = out.pop(name, None)
        if found is None and value is not None:
            found = value
    return found


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [_deepeval_text(part) for part in value.split("|") if part.strip()]
    if isinstance(value, list):
        return [
            _deepeval_text(v)
            if isinstance(v, str)
            else str(v.get("context", v))
            if isinstance(v, dict)
            else str(v)
            for v in value
        ]
    return []


def _deepeval_text(part: str) -> str:
    """DeepEval's save_as marker ``deepeval_source=S,deepeval_context=C`` -> ``C``."""
    if part.startswith(_DEEPEVAL_MARKER) and _DEEPEVAL_CONTEXT in part:
        return part.split(_DEEPEVAL_CONTEXT, 1)[1]
    return part


def _chunks(contexts: Any, ids: Any) -> list[Any]:
    """Contexts as chunks: strings become ``{"text": ...}``, chunk objects stay as they are."""
    items: list[Any] = contexts if isinstance(contexts, list) else _texts(contexts)
    chunk_ids = ids if isinstance(ids, list) and len(ids) == len(items) else [None] * len(items)
    out: list[Any] = []
    for item, chunk_id in zip(items, chunk_ids, strict=True):
        if not isinstance(item, str):
            out.append(item)  # a chunk object (or a wrong type the trace model names)
            continue
        chunk: dict[str, Any] = {"text": _deepeval_text(item)}
        if chunk_id is not None:
            chunk["chunk_id"] = str(chunk_id)
        out.append(chunk)
    return out


def _usage(out: dict[str, Any]) -> None:
    prompt = _first_present(out, ("input_token_count", "inputTokenCount"))
    completion = _first_present(out, ("output_token_count", "outputTokenCount"))
    if "usage" not in out and (isinstance(prompt, int) or isinstance(completion, int)):
        out["usage"] = {
            k: v
            for k, v in (("prompt_tokens", prompt), ("completion_tokens", completion))
            if isinstance(v, int)
        }


# --- Langfuse ----------------------------------------------------------------------------------------


def is_observation(data: Mapping[str, Any]) -> bool:
    """A Langfuse observation: a ``traceId``, an ``id`` and one of Langfuse's observation types."""
    return (
        isinstance(data.get("traceId"), str)
        and "id" in data
        and str(data.get("type", "")).upper() in _OBSERVATION_TYPES
    )


def is_langfuse_trace(data: Mapping[str, Any]) -> bool:
    """A Langfuse trace with its observations (``TraceWithFullDetails``)."""
    return isinstance(data.get("observations"), list) and "id" in data and "trace_id" not in data


def trace_from_observations(
    observations: Sequence[Mapping[str, Any]], trace: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """One native trace record from the observations of one Langfuse trace."""
    ordered = sorted(
        observations, key=lambda o: (o.get("parentObservationId") is not None, str(o.get("startTime") or ""))
    )
    root = ordered[0] if ordered else {}
    trace = trace or {}
    generation = next((o for o in ordered if str(o.get("type", "")).upper() == "GENERATION"), {})
    question = _io_text(trace.get("input"), ("question", "input", "query")) or _io_text(
        root.get("input"), ("question", "input", "query")
    )
    question = question or _io_text(generation.get("input"), ("question",))
    answer = _io_text(trace.get("output"), ("answer", "output", "content")) or _io_text(
        root.get("output"), ("answer", "output", "content")
    )
    answer = answer or _io_text(generation.get("output"), ("content", "answer"))
    record: dict[str, Any] = {
        "trace_id": str(trace.get("id") or root.get("traceId") or ""),
        "question": question,
        "answer": answer,
        "retrieved_chunks": [
            c for o in ordered if str(o.get("type", "")).upper() == "RETRIEVER" for c in _documents(o)
        ],
        "timestamp": trace.get("timestamp") or root.get("startTime"),
        "conversation_id": trace.get("sessionId") or root.get("sessionId"),
        "model_id": generation.get("model"),
        "usage": _generation_usage(generation),
        "metadata": {
            "langfuse": {
                "observation_id": root.get("id"),
                "release": root.get("release") or trace.get("release"),
            }
        },
    }
    return {k: v for k, v in record.items() if v not in (None, "", [])}


def _json_or_text(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def _io_text(value: Any, keys: Sequence[str]) -> str | None:
    """A Langfuse input/output: a string (raw, or JSON text), an object with the text, or chat messages."""
    value = _json_or_text(value)
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, dict):
        return next((value[k] for k in keys if isinstance(value.get(k), str) and value[k].strip()), None)
    if isinstance(value, list):
        users = [m.get("content") for m in value if isinstance(m, dict) and m.get("role") == "user"]
        return users[-1] if users and isinstance(users[-1], str) else None
    return None


def _documents(observation: Mapping[str, Any]) -> list[dict[str, Any]]:
    output = _json_or_text(observation.get("output"))
    docs = output.get("documents") if isinstance(output, dict) else output
    chunks = []
    for doc in docs if isinstance(docs, list) else ():
        if not isinstance(doc, dict):
            continue
        raw_meta = doc.get("metadata")
        meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
        chunk: dict[str, Any] = {
            "text": str(doc.get("page_content") or doc.get("content") or doc.get("text") or "")
        }
        chunk_id = doc.get("id") or meta.get("doc_id")
        if chunk_id:
            chunk["chunk_id"] = str(chunk_id)
        if isinstance(meta.get("score"), int | float):
            chunk["retrieval_score"] = float(meta["score"])
        if isinstance(meta.get("sections"), list):
            chunk["sections"] = [str(s) for s in meta["sections"]]
        if isinstance(meta.get("source"), str):
            chunk["document_id"] = meta["source"]
        chunks.append(chunk)
    return chunks


def _generation_usage(generation: Mapping[str, Any]) -> dict[str, int] | None:
    details = generation.get("usageDetails") or generation.get("usage") or {}
    if not isinstance(details, dict):
        return None
    usage = {
        k: int(details[v])
        for k, v in (("prompt_tokens", "input"), ("completion_tokens", "output"))
        if isinstance(details.get(v), int)
    }
    return usage or None
