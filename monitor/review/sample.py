"""The weekly human sample of seed 000: N random cases plus every case with chosen reasons.

Reproducible: the candidates are sorted by trace id and drawn with a seeded generator, so the same
seed over the same stored cases always picks the same ones. The store holds only flagged or sampled
traces, so "random" means random among stored cases.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from monitor.review.models import Case, CaseFilter

DEFAULT_RANDOM = 30
DEFAULT_INCLUDE = ("negative_feedback",)
RANDOM_PICK = "random"


@dataclass(frozen=True, slots=True)
class Sample:
    """A marked batch: its name, the seed used, and each pick with why it was picked."""

    batch: str
    seed: str
    picks: dict[str, str]


def default_batch(now: datetime) -> str:
    """One batch name per ISO week, e.g. ``sample-2026-W40``."""
    year, week, _ = now.isocalendar()
    return f"sample-{year}-W{week:02d}"


def pick(cases: Iterable[Case], random_n: int, include: Sequence[str], seed: str) -> dict[str, str]:
    """Map trace id -> pick reason: every case with an ``include`` reason, then ``random_n`` others."""
    picks: dict[str, str] = {}
    rest = []
    for case in sorted(cases, key=lambda c: c.trace_id):
        matched = next((reason for reason in include if reason in case.reasons), None)
        if matched is not None:
            picks[case.trace_id] = matched
        else:
            rest.append(case.trace_id)
    # Reviewer sampling, not security: a seeded generator is what makes the pick reproducible.
    rng = random.Random(seed)  # noqa: S311
    for trace_id in rng.sample(rest, min(max(random_n, 0), len(rest))):
        picks[trace_id] = RANDOM_PICK
    return picks


class _SampleStore(Protocol):
    def list_cases(self, where: CaseFilter | None = None, **filters: Any) -> list[Case]: ...

    def mark_sample(self, batch: str, trace_ids: Iterable[str], pick: str = RANDOM_PICK) -> int: ...


def sample(
    store: _SampleStore,
    batch: str,
    random_n: int = DEFAULT_RANDOM,
    include: Sequence[str] = DEFAULT_INCLUDE,
    since: datetime | None = None,
    seed: str | None = None,
) -> Sample:
    """Pick a batch among cases stored since ``since`` and tag them; the seed defaults to the batch name."""
    seed = batch if seed is None else seed
    picks = pick(store.list_cases(since=since), random_n, include, seed)
    for reason in dict.fromkeys(picks.values()):
        store.mark_sample(batch, [tid for tid, why in picks.items() if why == reason], pick=reason)
    return Sample(batch=batch, seed=seed, picks=picks)
