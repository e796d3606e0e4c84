"""The golden set: load reference questions, match live questions to them, run reference checks.

``GoldenSet.load`` reads the files, ``GoldenMatcher`` finds the entry a live question asks (lexical
prefilter, e5 confirmation), ``GoldenChecker`` scores a matched trace's retrieval and answer.
"""

from monitor.golden.abstain import AbstentionDetector
from monitor.golden.check import GoldenCheck, GoldenChecker, ReferenceRules
from monitor.golden.match import DEFAULT_MATCH_THRESHOLD, Candidate, GoldenMatch, GoldenMatcher
from monitor.golden.model import GoldenEntry, GoldenSet, load_sections
from monitor.golden.text import Vocabulary, fold

__all__ = [
    "DEFAULT_MATCH_THRESHOLD",
    "AbstentionDetector",
    "Candidate",
    "GoldenCheck",
    "GoldenChecker",
    "GoldenEntry",
    "GoldenMatch",
    "GoldenMatcher",
    "GoldenSet",
    "ReferenceRules",
    "Vocabulary",
    "fold",
    "load_sections",
]
