"""The review queue: flagged cases stored without PII, labelled by people, promoted into the golden set.

Seed 000's loop: every production failure becomes a golden case, and a weekly human sample measures
how far the judge can be trusted (``agreement``).
"""

from monitor.review.models import Case, CaseFilter, CaseNotFound, Flag, Label, Promotion, ReviewError, Status
from monitor.review.store import DEFAULT_STORE_PATH, ReviewStore, open_store

__all__ = [
    "DEFAULT_STORE_PATH",
    "Case",
    "CaseFilter",
    "CaseNotFound",
    "Flag",
    "Label",
    "Promotion",
    "ReviewError",
    "ReviewStore",
    "Status",
    "open_store",
]
