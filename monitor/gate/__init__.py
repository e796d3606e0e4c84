"""``ragmon gate``: a candidate's run of the golden questions scored against floors and a baseline.

Seed 000 section 6: before a change to chunking, embeddings, top-k, the prompt, the answer model or the
policy documents reaches production, CI asks the candidate every golden question and the gate checks
hit@k / MRR@k floors, the numeric rule without tolerance, abstention on unanswerable entries, and
drops from the baseline. ``model`` holds the settings and results, ``runs`` reads and pairs traces,
``evaluate`` scores, ``report`` renders (console, Markdown, JUnit), ``cli`` registers the command.
"""

from monitor.gate.evaluate import Scorer, check_baseline, check_floors, run_gate
from monitor.gate.model import (
    DEFAULT_FLOORS,
    Check,
    EntryResult,
    GateConfig,
    GateInputError,
    GateResult,
    Metric,
    RunScore,
    load_config,
)

__all__ = [
    "DEFAULT_FLOORS",
    "Check",
    "EntryResult",
    "GateConfig",
    "GateInputError",
    "GateResult",
    "Metric",
    "RunScore",
    "Scorer",
    "check_baseline",
    "check_floors",
    "load_config",
    "run_gate",
]
