"""Flag rules: score bands at their edges, finding details, overrides and config errors."""

from __future__ import annotations

import importlib.resources
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from monitor.assessment import Assessment, Judgement
from monitor.exceptions import ConfigError
from monitor.flags import FLAG_REASONS, LATE_REASONS, Flag, FlagRules
from monitor.golden import GoldenCheck
from monitor.judge.base import JudgeResult, Scores, Verdicts
from monitor.message import Origin
from monitor.metrics import Versions
from monitor.numeric import NumericReport, Quantity, ReferenceReport
from monitor.numeric.model import Conflict
from monitor.retrieval import score_ranking
from monitor.rulepacks import RulePacks
from monitor.sampling import NOT_SAMPLED
from monitor.signals import compute_signals
from monitor.trace import validate_trace
from monitor.verdicts import ClaimVerdict

DESIGN_REASONS = {
    "numeric_unsupported",
    "numeric_missing",
    "numeric_out_of_source",
    "golden_retrieval_miss",
    "should_abstain",
    "low_faithfulness",
    "low_answer_relevance",
    "low_context_relevance",
    "low_context_precision",
    "invalid_citation",
    "negative_feedback",
    "judge_error",
    "conflicting_context",
    "unqualified_condition",
    "ungrounded_answer",  # beyond DESIGN: an answer given with nothing retrieved
}


def assess(
    *,
    unsupported: list[Quantity] | None = None,
    conflicts: int = 0,
    golden: GoldenCheck | None = None,
    **trace: Any,
) -> Assessment:
    """An assessment with the given findings, on a trace with the given fields."""
    t = validate_trace({"trace_id": "t", "question": "q", "answer": "a", **trace})
    numeric = NumericReport(
        tuple(unsupported or ()), tuple(Conflict("day", (Decimal(7), Decimal(30))) for _ in range(conflicts))
    )
    versions = Versions("m", "p", "i")
    return Assessment(t, Origin(path="x"), compute_signals(t), versions, numeric, golden, NOT_SAMPLED)


def judged(
    scores: Scores | None = None,
    *,
    abstained: bool = False,
    error: str | None = None,
    claims: tuple[ClaimVerdict, ...] = (),
) -> Judgement:
    if scores is None:
        return Judgement(None, error, "error" if error else "ok", 0.1)
    verdicts = Verdicts(
        claims=claims, chunk_useful=(), reverse_questions=(), noncommittal=(), abstained=abstained
    )
    return Judgement(JudgeResult("local", "v1", verdicts, scores), error, "ok", 0.1)


def golden_check(
    missing: list[Quantity] | None = None,
    outside: list[Quantity] | None = None,
    missed: bool = False,
    unanswerable: bool = False,
) -> GoldenCheck:
    ranking = [("DT-3",), ("DT-4",)] if missed else [("DT-1",)]
    return GoldenCheck(
        entry_id="q01",
        similarity=0.9,
        k=5,
        retrieval=score_ranking(ranking, ("DT-1",), 5),
        numeric=ReferenceReport(tuple(missing or ()), tuple(outside or ())),
        should_abstain=unanswerable,
    )


@pytest.fixture(scope="module")
def rules() -> FlagRules:
    return FlagRules.load()


def packaged() -> dict[str, Any]:
    data = yaml.safe_load((importlib.resources.files("monitor") / "rules" / "flags.yaml").read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def load_with(tmp_path: Path, data: dict[str, Any]) -> FlagRules:
    (tmp_path / "flags.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    return FlagRules.load(RulePacks(tmp_path))


def scores(
    faithfulness: float | None = None, answer: float | None = None, context: float | None = None
) -> Scores:
    return Scores(faithfulness, answer, context, None)


def only(flags: tuple[Flag, ...], reason: str) -> Flag | None:
    matching = [flag for flag in flags if flag.reason == reason]
    assert len(matching) <= 1
    return matching[0] if matching else None


def test_catalog_matches_design_and_the_packaged_pack(rules: FlagRules) -> None:
    """Every DESIGN flag reason is known; the packaged pack sets only bands; two reasons are off."""
    assert set(FLAG_REASONS) == DESIGN_REASONS
    assert set(packaged()["flags"]) == {"low_faithfulness", "low_answer_relevance", "low_context_relevance"}
    assert [r for r in FLAG_REASONS if not rules.enabled(r)] == [
        "low_context_precision",
        "conflicting_context",
    ]
    assert LATE_REASONS == {
        "negative_feedback", "judge_error", "low_faithfulness", "low_answer_relevance",
        "low_context_relevance", "low_context_precision",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (1.0, None),
        (0.85, None),
        (0.80, None),
        (0.7999, ("warning", "faithfulness 0.7999 < 0.80")),
        (0.75, ("warning", "faithfulness 0.75 < 0.80")),
        (0.70, ("warning", "faithfulness 0.70 < 0.80")),
        (0.69, ("critical", "faithfulness 0.69 < 0.70")),
        (0.62, ("critical", "faithfulness 0.62 < 0.70")),
        (0.0, ("critical", "faithfulness 0.00 < 0.70")),
    ],
)
def test_faithfulness_bands_follow_seed_002(
    rules: FlagRules, score: float, expected: tuple[str, str] | None
) -> None:
    """0.80 is the production target (no flag); 0.70-0.80 is a warning; below 0.70 is critical."""
    flag = only(rules.evaluate(assess(), judged(scores(faithfulness=score))), "low_faithfulness")
    assert (None if flag is None else (flag.severity, flag.detail)) == expected


def test_detail_never_rounds_onto_the_threshold(rules: FlagRules) -> None:
    """A score a hair under the bound prints enough digits to read as below it."""
    flag = only(rules.evaluate(assess(), judged(scores(faithfulness=0.79999999))), "low_faithfulness")
    assert flag is not None and not flag.detail.startswith("faithfulness 0.80 ")


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        (0.9, 0.6, set()),
        (0.79, 0.6, {("low_answer_relevance", "warning")}),
        (0.59, 0.6, {("low_answer_relevance", "critical")}),
        (0.9, 0.2, set()),
        (0.9, 0.19, {("low_context_relevance", "warning")}),
        (0.5, 0.0, {("low_answer_relevance", "critical"), ("low_context_relevance", "warning")}),
    ],
)
def test_relevance_defaults(
    rules: FlagRules, answer: float, context: float, expected: set[tuple[str, str]]
) -> None:
    """Answer relevance warns below 0.80 and is critical below 0.60; context relevance warns below 0.20."""
    flags = rules.evaluate(assess(), judged(scores(faithfulness=1.0, answer=answer, context=context)))
    assert {(f.reason, f.severity) for f in flags} == expected


@pytest.mark.parametrize(
    "given", [None, Scores(None, None, None, None), Scores(float("nan"), float("nan"), float("nan"), None)]
)
def test_undefined_scores_never_flag(rules: FlagRules, given: Scores | None) -> None:
    """No scores, None scores and non-finite scores raise no low_* flag."""
    assert rules.evaluate(assess(), judged(given)) == ()


def test_honest_abstention_is_not_low_relevance(rules: FlagRules) -> None:
    """An abstaining answer is not flagged for answer or context relevance; faithfulness still counts."""
    flags = rules.evaluate(
        assess(), judged(scores(faithfulness=0.5, answer=0.0, context=0.0), abstained=True)
    )
    assert [f.reason for f in flags] == ["low_faithfulness"]


def test_numeric_details_name_the_numbers(rules: FlagRules) -> None:
    """Seed 000's failure reads as the numbers the answer and the golden entry disagree on."""
    thirty = Quantity(Decimal(30), "ngày", "30 ngày")
    golden = golden_check(missing=[Quantity(Decimal(7), "ngày", "7 ngày")], outside=[thirty])
    details = {
        f.reason: (f.detail, f.severity)
        for f in rules.evaluate(assess(unsupported=[thirty], golden=golden), None)
    }
    assert details == {
        "numeric_unsupported": ("answer says 30 ngày; no retrieved chunk does", "critical"),
        "numeric_missing": ("golden q01 expects 7 ngày; the answer does not say it", "critical"),
        "numeric_out_of_source": ("answer says 30 ngày; the sections golden q01 expects do not", "critical"),
    }


def test_findings_as_strings_or_bare_quantities_and_long_lists(rules: FlagRules) -> None:
    """Strings work, a quantity without text reads as value and unit, and lists stop at three."""
    items = [
        Quantity(Decimal(5), "day", "5 ngày"),
        Quantity(Decimal(2), "week"),
        Quantity(Decimal(10), "percent", "10%"),
        Quantity(Decimal(3), "hour", "3 giờ"),
        Quantity(Decimal(1), "day", "x" * 500),
    ]
    flag = only(rules.evaluate(assess(unsupported=items), None), "numeric_unsupported")
    assert flag is not None
    assert flag.detail == "answer says 5 ngày, 2 week, 10% and 2 more; no retrieved chunk does"


def test_other_findings_and_their_details(rules: FlagRules) -> None:
    """Citations, feedback, golden checks and judge errors each raise their flag with a readable detail."""
    a = assess(
        citations=["c09", "c11"],
        retrieved_chunks=[{"chunk_id": "c01", "sections": ["DT-3"]}],
        feedback={"rating": "negative", "reason": "wrong_info"},
        golden=golden_check(missed=True, unanswerable=True),
    )
    details = {f.reason: f.detail for f in rules.evaluate(a, judged(error="JudgeTimeout: no answer in 10 s"))}
    assert details == {
        "invalid_citation": "cites c09, c11; not among the retrieved chunks",
        "negative_feedback": "user rated the answer negative: wrong_info",
        "golden_retrieval_miss": "no expected section in the top 5",
        "should_abstain": "golden q01 is unanswerable; the answer does not abstain",
        "judge_error": "judge failed: JudgeTimeout: no answer in 10 s",
    }


def test_flags_are_listed_most_severe_first(rules: FlagRules) -> None:
    """Critical flags come before warnings, warnings before info."""
    a = assess(feedback={"rating": "negative"}, unsupported=[Quantity(Decimal(30), "day", "30 ngày")])
    assert [(f.severity, f.reason) for f in rules.evaluate(a, judged(error="boom"))] == [
        ("critical", "numeric_unsupported"),
        ("warning", "negative_feedback"),
        ("info", "judge_error"),
    ]


def test_conflicting_context_only_when_enabled(rules: FlagRules, tmp_path: Path) -> None:
    """Conflicting context is a risk signal by default and a flag once the YAML enables it."""
    a = assess(conflicts=2)
    assert rules.evaluate(a, None) == ()
    flags = load_with(tmp_path, {"flags": {"conflicting_context": {"enabled": True}}}).evaluate(a, None)
    assert [f.as_dict() for f in flags] == [
        {
            "reason": "conflicting_context",
            "detail": "retrieved chunks disagree on 2 numbers",
            "severity": "warning",
        }
    ]


def test_disabled_reasons_stay_silent(tmp_path: Path) -> None:
    """A reason switched off in YAML is never raised; the others still are."""
    data = packaged()
    data["flags"]["low_faithfulness"]["enabled"] = False
    data["flags"]["numeric_unsupported"] = {"enabled": False}
    custom = load_with(tmp_path, data)
    a = assess(unsupported=[Quantity(Decimal(30), "day", "30 ngày")])
    assert [f.reason for f in custom.evaluate(a, judged(scores(faithfulness=0.1, answer=0.1)))] == [
        "low_answer_relevance"
    ]


def test_a_site_file_names_only_what_it_changes(tmp_path: Path) -> None:
    """An override of one severity keeps every other default (and the packaged bands are not needed)."""
    custom = load_with(tmp_path, {"flags": {"negative_feedback": {"severity": "critical"}}})
    flags = custom.evaluate(assess(feedback={"rating": "negative"}), None)
    assert [(f.reason, f.severity) for f in flags] == [("negative_feedback", "critical")]
    assert custom.enabled("judge_error") and not custom.enabled("low_faithfulness")  # no bands given


def test_custom_bands_and_severities(tmp_path: Path) -> None:
    """Bands may be given in any order and severities changed; the lowest matching band wins."""
    data = packaged()
    data["flags"]["low_faithfulness"]["bands"] = [
        {"below": 0.9, "severity": "info"},
        {"below": 0.5, "severity": "critical"},
    ]
    custom = load_with(tmp_path, data)
    severities = [
        only(custom.evaluate(assess(), judged(scores(faithfulness=s))), "low_faithfulness")
        for s in (0.95, 0.8, 0.4)
    ]
    assert [None if f is None else f.severity for f in severities] == [None, "info", "critical"]


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d["flags"].update(low_faithfulnes={"enabled": True}), "flags: unknown flag reason"),
        (
            lambda d: d["flags"].update(negative_feedback={"severity": "urgent"}),
            "flags.negative_feedback.severity",
        ),
        (lambda d: d["flags"].update(negative_feedback={"bands": []}), "flags.negative_feedback.bands"),
        (
            lambda d: d["flags"]["low_faithfulness"].update(severity="info"),
            "flags: low_faithfulness: a score",
        ),
        (lambda d: d["flags"]["low_faithfulness"].update(bands=[]), "flags.low_faithfulness.bands"),
        (
            lambda d: d["flags"]["low_faithfulness"].update(
                bands=[{"below": 0.7, "severity": "warning"}, {"below": 0.7, "severity": "critical"}]
            ),
            "flags.low_faithfulness.bands",
        ),
        (
            lambda d: d["flags"]["low_context_relevance"]["bands"][0].update(below=1.5),
            "flags.low_context_relevance.bands.0.below",
        ),
    ],
)
def test_bad_rules_name_file_and_field(tmp_path: Path, mutate: Any, field: str) -> None:
    """A bad flags.yaml raises ConfigError naming the file and the offending field."""
    data = packaged()
    mutate(data)
    with pytest.raises(ConfigError, match=rf"flags.yaml: {field}"):
        load_with(tmp_path, data)


def test_an_answer_with_nothing_retrieved_is_ungrounded(rules: FlagRules) -> None:
    """Without chunks every score is undefined: only ``ungrounded_answer`` sees a made-up answer."""
    claim = ClaimVerdict("Đổi trả trong 30 ngày", supported=False)
    empty = assess(retrieved_chunks=[])
    flags = rules.evaluate(empty, judged(scores(), claims=(claim, claim)))
    flag = only(flags, "ungrounded_answer")
    assert flag is not None and flag.severity == "warning"
    assert flag.detail == "answered with 2 claims and no retrieved chunk"
    assert [f.reason for f in flags] == ["ungrounded_answer"]  # no score could flag it
    # an honest abstention, an answer without claims, an unjudged trace, a trace with chunks: no flag
    assert (
        only(rules.evaluate(empty, judged(scores(), claims=(claim,), abstained=True)), "ungrounded_answer")
        is None
    )
    assert only(rules.evaluate(empty, judged(scores())), "ungrounded_answer") is None
    assert only(rules.evaluate(empty, None), "ungrounded_answer") is None
    grounded = assess(retrieved_chunks=[{"chunk_id": "c1", "text": "Đổi trả trong 7 ngày."}])
    assert only(rules.evaluate(grounded, judged(scores(0.0), claims=(claim,))), "ungrounded_answer") is None


@pytest.mark.parametrize(
    "trace",
    [
        {},
        {"retrieved_chunks": [{"chunk_id": "c1", "text": "x"}], "citations": ["c2"]},
        {"citations": ["c1"], "feedback": {"rating": "negative", "reason": "wrong"}},
        {"retrieved_chunks": [], "latency_ms": 10},
    ],
)
def test_a_trace_with_nothing_but_signals_raises_only_what_plain_reasons_read(trace: dict[str, Any]) -> None:
    """Without judgement or findings, every reason not marked plain reads nothing (they are skipped)."""
    a = assess(**trace)
    assert not a.has_findings
    for reason in FlagRules().reasons:
        if not reason.plain and reason.metric is None:
            assert reason.read(a, None) is None, reason.name
