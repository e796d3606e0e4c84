"""A run: the traces a CI job wrote by asking the candidate system every golden question.

The file is read as ``ragmon replay`` reads one (the same line and document sources and
``RecordReader``), so JSONL, a JSON array, Ragas/DeepEval/Langfuse records and saved OTLP requests all
work. Each trace is paired with its golden entry by ``golden_id`` (top level or ``metadata.golden_id``),
else by its question: the same words (accents, case and punctuation ignored), else the golden matcher.
A line that is not a valid trace is an input error: a gate must not pass on what it could not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from monitor.assembly import RecordReader
from monitor.exceptions import RagmonError, TraceError
from monitor.gate.model import GOLDEN_ID_FIELD, GOLDEN_VERSION_FIELD, GateInputError, RunVersions
from monitor.golden import GoldenEntry, GoldenSet, fold
from monitor.message import Message
from monitor.sources.assembled import AssembledSource
from monitor.sources.base import Source
from monitor.sources.document import DocumentSource, is_document
from monitor.sources.lines import LineSource
from monitor.trace import Trace, parse_message

_WORD = re.compile(r"\w+")
_POLL = 500
_WAIT_S = 1.0  # a pipe may be slow to fill; a file never waits

Matcher = Callable[[str], GoldenEntry | None]


@dataclass(frozen=True)
class Pairing:
    """The run's traces by golden entry id (the last trace of an entry wins), and what did not pair."""

    traces: dict[str, Trace]
    notes: tuple[str, ...]


STDIN = Path("-")  # ``ragmon gate -``: the run is piped in (JSONL), e.g. straight from the harness


def read_run(path: Path) -> list[Trace]:
    """Every trace in the file (``-``: stdin), in order; GateInputError for a missing file or an
    invalid record."""
    source = AssembledSource(_lines(path), RecordReader())
    path = Path("stdin") if path == STDIN else path  # how errors name it
    traces: list[Trace] = []
    try:
        source.open()
        for message in _messages(source):
            traces.append(_trace(path, message))
    except GateInputError:
        raise
    except RagmonError as exc:
        raise GateInputError(f"{path}: {exc}") from exc
    finally:
        source.close()
    if not traces:
        raise GateInputError(f"{path}: holds no traces")
    return traces


def _lines(path: Path) -> Source:
    if path == STDIN:
        return LineSource(None)
    if not path.is_file():
        raise GateInputError(f"{path}: run file not found")
    return DocumentSource(path) if is_document(path) else LineSource(path)


def _messages(source: AssembledSource) -> Iterator[Message]:
    while not source.exhausted:
        yield from source.poll(_POLL, _WAIT_S)


def _trace(path: Path, message: Message) -> Trace:
    where = f"{path}: line {message.origin.line}" if message.origin.line else str(path)
    if message.rejected is not None:
        raise GateInputError(f"{where}: {message.rejected[0]}: {message.rejected[1]}")
    try:
        parsed = parse_message(message.value)
    except TraceError as exc:
        raise GateInputError(f"{where}: {exc}") from exc
    if not isinstance(parsed, Trace):
        raise GateInputError(f"{where}: a feedback event, not a trace")
    return parsed


def golden_id(trace: Trace) -> str | None:
    """The golden entry a trace names (``golden_id`` at the top level lands in ``metadata``)."""
    value = trace.metadata.get(GOLDEN_ID_FIELD)
    return None if value is None or isinstance(value, bool) else str(value)


def question_key(text: str) -> str:
    """The question's words, accents, case and punctuation ignored: the harness asks them verbatim."""
    return " ".join(_WORD.findall(fold(text)))


def pair(traces: list[Trace], golden: GoldenSet, matcher: Callable[[], Matcher]) -> Pairing:
    """Pair each trace with a golden entry; ``matcher`` is built only if some question needs it."""
    by_question = {question_key(e.question): e for e in golden}
    out: dict[str, Trace] = {}
    notes: list[str] = []
    match: Matcher | None = None
    for trace in traces:
        entry_id = golden_id(trace)
        if entry_id is not None:
            if golden.get(entry_id) is None:
                notes.append(f"trace {trace.trace_id}: golden_id {entry_id!r} is not in the golden set")
                continue
        else:
            entry = by_question.get(question_key(trace.question))
            if entry is None:
                match = match or matcher()
                entry = match(trace.question)
            if entry is None:
                notes.append(f"trace {trace.trace_id}: its question matches no golden entry")
                continue
            entry_id = entry.id
        if entry_id in out:
            notes.append(f"{entry_id}: several traces; the last one ({trace.trace_id}) is scored")
        out[entry_id] = trace
    return Pairing(out, tuple(notes))


def versions(traces: list[Trace]) -> RunVersions:
    """The distinct model, prompt, index and golden-set versions the run's traces carry."""

    def distinct(values: Iterator[object]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(str(v) for v in values if v not in (None, "")))

    return RunVersions(
        model_id=distinct(t.model_id for t in traces),
        prompt_version=distinct(t.prompt_version for t in traces),
        index_version=distinct(t.index_version for t in traces),
        golden_version=distinct(t.metadata.get(GOLDEN_VERSION_FIELD) for t in traces),
    )
