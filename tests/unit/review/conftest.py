"""Fixtures: a SQLite review store on a fake clock, and case builders."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from review_builders import FakeClock, ResultFactory, TraceFactory, build_result, build_trace

from monitor.review import ReviewStore, open_store


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    return str(tmp_path / "review.db")


@pytest.fixture
def store(store_url: str, clock: FakeClock) -> Iterator[ReviewStore]:
    with open_store(store_url, clock=clock) as opened:
        yield opened


@pytest.fixture
def add_case(store: ReviewStore) -> Callable[..., str]:
    """Upsert a case built from the builders; returns its trace id."""

    def add(
        trace_id: str,
        reasons: tuple[str, ...] = ("numeric_unsupported",),
        faithfulness: float | None = 0.5,
        question: str | None = None,
        **trace_extra: Any,
    ) -> str:
        trace = build_trace(trace_id, **({"question": question} if question else {}), **trace_extra)
        result = build_result(trace_id, faithfulness, reasons)
        result["versions"] = {k: trace[k] for k in ("model_id", "prompt_version", "index_version")}
        store.upsert_case(trace, result, reasons)
        return trace_id

    return add


@pytest.fixture
def make_trace() -> TraceFactory:
    return build_trace


@pytest.fixture
def make_result() -> ResultFactory:
    return build_result
