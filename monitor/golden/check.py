"""Reference checks for a trace whose question matched a golden entry (seed 000 sections 4 and 5).

Retrieval: first-hit rank, RR, hit@k, recall@k and nDCG@k of the expected sections, read from the
chunks' ``sections``. Generation: numbers in both directions against the expected answer and the
expected sections' text (``NumericRules.check_reference``), and abstention for unanswerable entries.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from monitor.golden.abstain import AbstentionDetector
from monitor.golden.match import GoldenMatcher
from monitor.golden.model import GoldenEntry
from monitor.golden.text import fold, is_cjk
from monitor.numeric import Quantity, ReferenceReport
from monitor.numeric.model import json_number
from monitor.numeric.text import nfc
from monitor.retrieval import RetrievalScores, score_ranking
from monitor.trace import Trace


class ReferenceRules(Protocol):
    """The numeric rules' reference check (``monitor.numeric.NumericRules``)."""

    def check_reference(
        self, answer: str, expected_answer: str, expected_sources: Sequence[str], *, omissions: bool = True
    ) -> ReferenceReport: ...

    def locate(self, text: str) -> list[tuple[int, int, Quantity]]: ...

    def extract(self, text: str) -> list[Quantity]: ...

    def kind(self, unit: str | None) -> str | None: ...


# a period between digits is a decimal or thousands mark ("1.200.000 đồng", "2.5 GB"), no sentence end
_SENTENCE = re.compile(r"(?:[^.!?;\n。！？；؟]|(?<=\d)\.(?=\d))+")
_WORD = re.compile(r"[\u3400-\u9fff]|[^\W\d_]+")


@dataclass(frozen=True)
class GoldenCheck:
    """The reference checks of one trace against its golden entry; ``as_dict`` is the result's ``golden``."""

    entry_id: str
    similarity: float
    k: int
    retrieval: RetrievalScores | None
    numeric: ReferenceReport | None
    should_abstain: bool
    sources_known: bool = True

    @property
    def first_hit_rank(self) -> int | None:
        """Rank of the first chunk holding an expected section (None: missed, or not measurable)."""
        return self.retrieval.first_hit_rank if self.retrieval else None

    @property
    def reciprocal_rank(self) -> float | None:
        """1 / first-hit rank, 0 on a miss, None when the trace carries no section labels."""
        return self.retrieval.reciprocal_rank if self.retrieval else None

    @property
    def hit_at_1(self) -> bool | None:
        """Whether the top chunk holds an expected section."""
        return self.retrieval.hit_at[1] if self.retrieval else None

    @property
    def hit_at_k(self) -> bool | None:
        """Whether the top k holds an expected section."""
        return self.retrieval.hit_at_k if self.retrieval else None

    @property
    def recall_at_k(self) -> float | None:
        """Share of the expected sections found in the top k."""
        return self.retrieval.recall_at_k if self.retrieval else None

    @property
    def numeric_missing(self) -> list[str]:
        """Numbers of the expected answer the answer leaves out."""
        return _texts(self.numeric.missing) if self.numeric else []

    @property
    def out_of_source_quantities(self) -> tuple[Quantity, ...]:
        """The answer's quantities outside the expected sections (empty when their text is unknown)."""
        if not self.numeric or not self.sources_known:
            return ()
        return self.numeric.out_of_source

    @property
    def numeric_out_of_source(self) -> list[str]:
        """Numbers of the answer that are not in the expected sections (empty when their text is unknown)."""
        if not self.numeric or not self.sources_known:
            return []
        return _texts(self.numeric.out_of_source)

    def flags(self) -> list[tuple[str, str]]:
        """``(reason, detail)`` for each failed check, reasons from DESIGN.md's flag list."""
        out: list[tuple[str, str]] = []
        if self.retrieval is not None and self.retrieval.first_hit_rank is None:
            out.append(("golden_retrieval_miss", f"{self.entry_id}: no expected section in the top {self.k}"))
        if missing := self.numeric_missing:
            out.append(("numeric_missing", f"{self.entry_id}: answer lacks {', '.join(missing)}"))
        if outside := self.numeric_out_of_source:
            out.append(
                ("numeric_out_of_source", f"{self.entry_id}: {', '.join(outside)} not in expected sections")
            )
        if self.should_abstain:
            out.append(("should_abstain", f"{self.entry_id}: unanswerable, but the answer does not abstain"))
        return out

    def as_dict(self) -> dict[str, Any]:
        """The result record's ``golden`` block (stable keys, see DESIGN.md)."""
        r = self.retrieval
        return {
            "id": self.entry_id,
            "similarity": round(self.similarity, 4),
            "k": self.k,
            "first_hit_rank": self.first_hit_rank,
            "reciprocal_rank": self.reciprocal_rank,
            "recall_at_k": self.recall_at_k,
            "hit_at_1": self.hit_at_1,
            "hit_at_k": self.hit_at_k,
            "ndcg_at_k": r.ndcg_at_k if r else None,
            "numeric": {"missing": self.numeric_missing, "out_of_source": self.numeric_out_of_source},
            "should_abstain": self.should_abstain,
        }


def _texts(quantities: Iterable[Quantity]) -> list[str]:
    return sorted(q.text or f"{json_number(q.value)} {q.unit}" for q in quantities)


class GoldenChecker:
    """Runs the reference checks on every trace whose question matches a golden entry."""

    def __init__(
        self, matcher: GoldenMatcher, numeric: ReferenceRules, abstention: AbstentionDetector | None = None
    ) -> None:
        self.matcher = matcher
        self.numeric = numeric
        self.abstention = abstention or AbstentionDetector.load()

    def check(self, trace: Trace) -> GoldenCheck | None:
        """The trace's reference checks, or None when its question matches no golden entry."""
        match = self.matcher.match(trace.question)
        if match is None:
            return None
        return self.evaluate(match.entry, trace, match.similarity)

    def evaluate(self, entry: GoldenEntry, trace: Trace, similarity: float = 1.0) -> GoldenCheck:
        """Check ``trace`` against a known entry (replays where the golden id is given, and ``check``)."""
        abstains = self.abstention.abstains(trace.answer)
        numeric = None
        if entry.answerable and entry.expected_answer is not None:
            numeric = self.numeric.check_reference(
                trace.answer, entry.expected_answer, entry.expected_sources_text, omissions=False
            )
            if not numeric.passed:
                numeric = self._answered_elsewhere(numeric, entry, trace)
        return GoldenCheck(
            entry_id=entry.id,
            similarity=similarity,
            k=self.matcher.k,
            retrieval=self._retrieval(entry, trace),
            numeric=numeric,
            should_abstain=not entry.answerable and not abstains,
            sources_known=bool(entry.expected_sources_text),
        )

    def _answered_elsewhere(
        self, report: ReferenceReport, entry: GoldenEntry, trace: Trace
    ) -> ReferenceReport:
        """The report without what a retrieved sentence of another section answers, when the customer
        asked about that sentence rather than the entry: a near miss of the matcher, not a wrong number.

        An answer value counts as answered elsewhere when a retrieved sentence outside the expected
        sections states it, the answer's sentence shares more words with that sentence than with any
        sentence of the expected answer, and the question shares more words with it than with the
        entry's questions, expected answer and sources ("nhịn ăn 8 tiếng" asked and answered, matched to
        the entry on blood test results). The question decides: an answer that copies a neighbouring
        chunk's wording for the entry's own question is the wrong number the check exists for, and
        stays: seed 000's "30 ngày" from the Plus members' sentence, asked about the return window;
        "Với gói VIP ... nhịn ăn 2 giờ" asked about fasting; a tie keeps the contradiction (a
        ratio of shared words let the seed's incident through). A value answered elsewhere is no
        contradiction of its kind, and not out of source.
        """
        # sentences, not chunks: a coarse chunk may hold an expected section beside the one answered
        sources = [" ".join(fold(text).split()) for text in entry.expected_sources_text]
        others = [
            (_words(sentence), {(q.value, q.unit) for q in self.numeric.extract(sentence)})
            for chunk in trace.retrieved_chunks
            for sentence in _SENTENCE.findall(nfc(chunk.text))
            if sentence.strip() and not any(" ".join(fold(sentence).split()) in s for s in sources)
        ]
        if not others or not sources:
            return report
        reference = [_words(s) for s in _SENTENCE.findall(entry.expected_answer or "")]
        asked = _words(trace.question)
        entry_texts = [*entry.questions, entry.expected_answer or "", *entry.expected_sources_text]
        asked_entry = max(
            (len(asked & _words(s)) for text in entry_texts for s in _SENTENCE.findall(text)), default=0
        )
        answer = nfc(trace.answer)  # the offsets of ``locate``
        located = self.numeric.locate(answer)
        elsewhere = set()
        for start, end, quantity in located:
            key = (quantity.value, quantity.unit)
            sentence = _words(_around(answer, start, end))
            own = max((len(sentence & words) for words in reference), default=0)
            holders = [words for words, values in others if key in values]
            best = max((len(sentence & words) for words in holders), default=-1)
            asked_other = max((len(asked & words) for words in holders), default=-1)
            if best > own and asked_other > asked_entry:
                elsewhere.add(key)
        if not elsewhere:
            return report
        kinds = {self.numeric.kind(unit) for _, unit in elsewhere}
        said = {(q.value, q.unit) for _, _, q in located}
        # a kind stays contradicted while the answer says another value of it that no other section holds
        kept = {self.numeric.kind(unit) for value, unit in said - elsewhere} & kinds
        return replace(
            report,
            missing=tuple(q for q in report.missing if self.numeric.kind(q.unit) not in kinds - kept),
            out_of_source=tuple(q for q in report.out_of_source if (q.value, q.unit) not in elsewhere),
        )

    def _retrieval(self, entry: GoldenEntry, trace: Trace) -> RetrievalScores | None:
        """Section metrics, or None when nothing is expected or no retrieved chunk carries section labels."""
        chunks = trace.retrieved_chunks
        if not entry.expected_sections or not any(c.sections for c in chunks):
            return None
        ranking = [c.sections for c in chunks]
        return score_ranking(ranking, entry.expected_sections, self.matcher.k)


def _around(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` that holds ``text[start:end]``."""
    for match in _SENTENCE.finditer(text):
        if match.start() <= start < match.end():
            return match.group()
    return text[start:end]


def _words(text: str) -> frozenset[str]:
    """Folded content words and Chinese characters, without numbers: what a sentence is about."""
    return frozenset(w for w in _WORD.findall(fold(text)) if is_cjk(w) or len(w) > 2)
