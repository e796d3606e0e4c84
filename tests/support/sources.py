"""Read a ``--source`` to its end through the real source catalog: what the loop would be handed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from monitor.config import load_settings
from monitor.message import Message
from monitor.sources import open_source
from monitor.trace import Trace, parse_message


def read_messages(source: str | Path, overrides: Mapping[str, Any] | None = None) -> list[Message]:
    """Every message the source yields until it is exhausted, each acknowledged as the loop would."""
    settings = load_settings(overrides={"source": str(source), **(overrides or {})}, environ={})
    opened = open_source(settings)
    src = opened.source
    src.open()
    out: list[Message] = []
    try:
        while not src.exhausted:
            batch = src.poll(500, 0.05)
            out.extend(batch)
            for message in batch:
                src.ack(message)
    finally:
        src.close()
    return out


def read_traces(source: str | Path, overrides: Mapping[str, Any] | None = None) -> list[Trace]:
    """The traces a source yields; fails on any message the loop would dead-letter."""
    traces = []
    for message in read_messages(source, overrides):
        assert message.rejected is None, (message.origin, message.rejected)
        trace = parse_message(message.value)
        assert isinstance(trace, Trace), trace
        traces.append(trace)
    return traces
