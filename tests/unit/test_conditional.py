"""Conditional-value check: every train and dev case as data, figures on test, packs, flag and wiring."""

from __future__ import annotations

import shutil
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from monitor.assessment import Assessment, Evaluation
from monitor.conditional import ConditionalReport, ConditionalRules
from monitor.conditional.packs import ConditionalPack, load_packs
from monitor.exceptions import ConfigError
from monitor.feedback_window import FeedbackWindow
from monitor.flags import FLAG_REASONS, FlagRules
from monitor.message import Origin
from monitor.metrics import Versions
from monitor.numeric import NumericRules
from monitor.rulepacks import RulePacks
from monitor.sampler import Sampler
from monitor.sampling import NOT_SAMPLED, SamplingPolicy
from monitor.signals import compute_signals
from monitor.trace import validate_trace

ROOT = Path(__file__).parents[2]
CASES = ROOT / "tests" / "data" / "conditional"
RULES = ROOT / "rules"
sys.path.insert(0, str(ROOT / "scripts"))
from measure_conditional import load_cases, measure  # noqa: E402 - the script is the one measurement

# Measured on the test split (docs/conditional.md): first run, rules of train and dev only, recall 0.66
# and false-flag rate 0.068; second run, after train_more.yaml, 0.75 and 0.091; third run (commit
# 899c6ee, after train3.yaml), 0.79 and 0.091. test3.yaml, written before that round's changes, scored
# once at the same commit: 0.68 and 0.061; train3.yaml (developed on): 0.86 and 0.0. The fourth round
# (commit 8f668e3): train4.yaml (developed on) 0.90 and 0.056; test4.yaml (held out, scored once at
# that commit) 0.60 and 0.051. test5.yaml (165 cases, vi/en/zh/fa, thirteen kinds of business, written by
# a helper that read neither the checker nor the earlier cases; held out, scored once at 7fd27cc):
# 0.69 and 0.099. The fifth round's ";" rule (a ";" part with no case of its own speaks of who its
# sentence opened with) costs one of test5's 91 negatives (0.110 -> 0.121, recall 0.743 unchanged),
# measured by toggling the rule, the case not read; on the simulator's train wordings it finds 50 more
# stated-as-general answers (streaming) and no more false flags, so it stays and the floor moves.
# Reading two tier words in a row as one name ("黄金VIP" carried by "黄金会员") costs one of test5's 74
# bound cases (recall 0.743 -> 0.730) and removes 34 of 189 false flags on the train wordings.
# The sixth round (answers that list the cases or name their own case in another writing) took
# test5's false-flag rate from 0.121 to 0.099 (recall 0.743 -> 0.757): the floor follows.
# The floors sit a little under the measured figures, so a regression fails and noise does not.
TEST_FLOORS = {"recall": 0.76, "false_flag_rate": 0.11}
HELD_OUT_FLOORS = {
    "test3": {"recall": 0.65, "false_flag_rate": 0.09},
    "train3": {"recall": 0.83, "false_flag_rate": 0.04},
    "test4": {"recall": 0.57, "false_flag_rate": 0.08},
    "train4": {"recall": 0.87, "false_flag_rate": 0.07},
    "test5": {"recall": 0.66, "false_flag_rate": 0.105},
}

PLUS = "Hàng thời trang do thành viên BanHang Plus mua được đổi hoặc trả trong 30 ngày."
GENERAL = "Trong vòng 7 ngày kể từ ngày nhận hàng, khách có thể đổi hoặc trả sản phẩm."


def _cases(*splits: str) -> list[Any]:
    return [pytest.param(case, id=case["id"]) for split in splits for case in load_cases(split)]


@pytest.mark.parametrize("case", _cases("train", "train_more", "dev"))
def test_train_and_dev_cases(rules: ConditionalRules, case: dict[str, Any]) -> None:
    """Each case gets the expected verdict: critical, warning or nothing."""
    report = rules.check(case["question"], case["answer"], case["chunks"])
    assert (report.severity or "none") == case["expect"], case["why"]


def test_figures_on_the_test_split(rules: ConditionalRules) -> None:
    """On the held-out split, recall and the false-flag rate stay at what was measured."""
    figures, _ = measure(rules, load_cases("test"))
    assert figures["recall"] >= TEST_FLOORS["recall"]
    assert figures["false_flag_rate"] <= TEST_FLOORS["false_flag_rate"]


@pytest.mark.parametrize("split", sorted(HELD_OUT_FLOORS))
def test_figures_on_the_later_round_splits(rules: ConditionalRules, split: str) -> None:
    """On test3 and test4 (held out) and train3 and train4 (developed on), recall and the false-flag rate
    stay as measured."""
    figures, _ = measure(rules, load_cases(split))
    assert figures["recall"] >= HELD_OUT_FLOORS[split]["recall"]
    assert figures["false_flag_rate"] <= HELD_OUT_FLOORS[split]["false_flag_rate"]


def test_the_seed_incident_is_critical_with_its_general_value(rules: ConditionalRules) -> None:
    """Seed 000: "30 ngày" for everyone, from the Plus sentence, beside the general 7 ngày."""
    report = rules.check(
        "Áo mua về không vừa thì trả trong bao lâu?", "Bạn có 30 ngày để đổi trả.", [GENERAL, PLUS]
    )
    (finding,) = report.findings
    assert (finding.text, finding.unit, finding.severity) == ("30 ngày", "day", "critical")
    assert [q.text for q in finding.general] == ["7 ngày"]
    assert "Plus" in finding.condition
    assert report.critical and list(report.kinds()) == [("unqualified_condition", "day")]
    record = report.as_dict()[0]
    assert record["value"] == 30 and record["general"][0]["value"] == 7 and record["severity"] == "critical"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Mình là thành viên Plus, áo mua về trả trong bao lâu?", "Bạn có 30 ngày để đổi trả."),
        ("Áo mua về không vừa thì trả trong bao lâu?", "Thành viên Plus có 30 ngày; khách khác 7 ngày."),
        ("mk la thanh vien plus, ao tra dc may ngay", "30 ngay ban nhe"),  # no accents
    ],
)
def test_condition_carried_by_question_or_answer_passes(
    rules: ConditionalRules, question: str, answer: str
) -> None:
    """The hard negatives: the question or the answer carries the condition (accents or not)."""
    assert rules.check(question, answer, [GENERAL, PLUS]).findings == ()


def test_general_value_and_unsupported_values_are_not_its_business(rules: ConditionalRules) -> None:
    """The general value passes; a value no chunk states is numeric_unsupported's, not this check's."""
    assert rules.check("?", "Bạn có 7 ngày.", [GENERAL, PLUS]).findings == ()
    assert rules.check("?", "Bạn có 45 ngày.", [GENERAL, PLUS]).findings == ()
    assert rules.check("?", "Không có số nào.", [GENERAL, PLUS]).findings == ()
    assert rules.check("?", "Bạn có 30 ngày.", []).findings == ()


def test_without_a_general_value_it_is_a_warning(rules: ConditionalRules) -> None:
    """A value bound to a condition with no general counterpart in the context is a warning."""
    report = rules.check(
        "How many lounge visits?", "Up to 6 visits a year.", ["Gold cardholders get 6 visits a year."]
    )
    assert report.severity == "warning" and not report.critical


def _copy_rules(tmp_path: Path) -> Path:
    target = tmp_path / "rules"
    shutil.copytree(RULES, target)
    return target


def test_rules_dir_is_honoured(tmp_path: Path) -> None:
    """A --rules-dir copy with one more tier word binds a sentence the packaged packs read as general."""
    root = _copy_rules(tmp_path)
    vi = root / "conditional" / "vi.yaml"
    vi.write_text(
        vi.read_text(encoding="utf-8").replace("tiers: [plus, ", "tiers: [zephyr, plus, "), encoding="utf-8"
    )
    custom = ConditionalRules.load(NumericRules.load(root / "numeric"), RulePacks(root))
    chunks = [GENERAL, "Gói Zephyr: đổi trả trong 30 ngày."]
    packaged = ConditionalRules.load(NumericRules.load())
    assert packaged.check("Trả trong bao lâu?", "Bạn có 30 ngày.", chunks).findings == ()
    assert custom.check("Trả trong bao lâu?", "Bạn có 30 ngày.", chunks).severity == "critical"
    assert custom.check("Mình dùng gói Zephyr, trả trong bao lâu?", "Bạn có 30 ngày.", chunks).findings == ()


def test_a_new_language_is_data_only(tmp_path: Path) -> None:
    """A German pack in a rules directory is picked up with no code change."""
    root = _copy_rules(tmp_path)
    (root / "conditional" / "de.yaml").write_text(
        "language: de\nqualifier_side: before\ngroups: [Mitglieder]\ntiers: [Gold]\n"
        "general: [alle]\nstopwords: [die, der, haben]\n",
        encoding="utf-8",
    )
    (root / "numeric" / "de.yaml").write_text("language: de\nunits:\n  day: [Tage, Tag]\n", encoding="utf-8")
    rules = ConditionalRules.load(NumericRules.load(root / "numeric"), RulePacks(root))
    assert "de" in rules.languages
    chunks = ["Alle Kunden haben 14 Tage.", "Gold Mitglieder haben 30 Tage."]
    assert rules.check("Wie lange?", "Sie haben 30 Tage.", chunks).severity == "critical"
    assert rules.check("Ich bin Gold Mitglied, wie lange?", "Sie haben 30 Tage.", chunks).findings == ()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("language: xx\ntierz: [a]\n", "tierz"),
        ("language: xx\nqualifier_side: above\n", "qualifier_side"),
        ("groups: [a]\n", "language"),
        ("language: xx\ngroups: ['']\n", "groups.0"),
    ],
)
def test_bad_pack_names_file_and_field(tmp_path: Path, content: str, expected: str) -> None:
    """A broken pack fails the load with a ConfigError naming the file and the field."""
    root = _copy_rules(tmp_path)
    (root / "conditional" / "xx.yaml").write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_packs(RulePacks(root))
    assert "conditional/xx.yaml" in str(caught.value) and expected in str(caught.value)


def test_missing_pack_directory_is_a_config_error(tmp_path: Path) -> None:
    """A rules directory without conditional/ fails at start, naming it."""
    root = _copy_rules(tmp_path)
    shutil.rmtree(root / "conditional")
    with pytest.raises(ConfigError, match="conditional"):
        load_packs(RulePacks(root))


def test_every_packaged_pack_validates() -> None:
    """The four language packs and the common one load; each language has the vocabulary kinds."""
    packs = {pack.language: pack for pack in load_packs(RulePacks())}
    assert set(packs) == {"common", "en", "fa", "vi", "zh"}
    for language in ("en", "fa", "vi", "zh"):
        pack: ConditionalPack = packs[language]
        assert pack.groups and pack.tiers and pack.if_markers and pack.except_markers and pack.general


# --- the flag, the record and the sampler ------------------------------------------------------------


def _assessment(rules: ConditionalRules, question: str, answer: str) -> Assessment:
    trace = validate_trace(
        {
            "trace_id": "t1",
            "question": question,
            "answer": answer,
            "retrieved_chunks": [{"chunk_id": "c1", "text": PLUS}, {"chunk_id": "c2", "text": GENERAL}],
            "citations": ["c1"],
        }
    )
    report = rules.check(trace.question, trace.answer, [c.text for c in trace.retrieved_chunks])
    return Assessment(
        trace, Origin(path="x"), compute_signals(trace), Versions("m", "p", "i"), None, None, NOT_SAMPLED,
        conditional=report,
    )  # fmt: skip


def test_flag_is_in_the_catalog_and_graded(rules: ConditionalRules, tmp_path: Path) -> None:
    """unqualified_condition is critical beside a general value, a warning alone, fixed by an override."""
    assert "unqualified_condition" in FLAG_REASONS
    flags = FlagRules.load()
    critical = _assessment(rules, "Trả trong bao lâu?", "Bạn có 30 ngày để đổi trả.")
    (flag,) = [f for f in flags.evaluate(critical, None) if f.reason == "unqualified_condition"]
    assert flag.severity == "critical" and "30 ngày" in flag.detail and "7 ngày" in flag.detail
    alone = Assessment(
        critical.trace, critical.origin, critical.signals, critical.versions, None, None, NOT_SAMPLED,
        conditional=rules.check("Trả trong bao lâu?", "Bạn có 30 ngày.", [PLUS]),
    )  # fmt: skip
    assert [f.severity for f in flags.evaluate(alone, None) if f.reason == "unqualified_condition"] == [
        "warning"
    ]
    (tmp_path / "flags.yaml").write_text(
        "flags:\n  unqualified_condition: {severity: warning}\n", encoding="utf-8"
    )
    fixed = FlagRules.load(RulePacks(tmp_path))
    assert [f.severity for f in fixed.evaluate(critical, None) if f.reason == "unqualified_condition"] == [
        "warning"
    ]
    (tmp_path / "flags.yaml").write_text(
        "flags:\n  unqualified_condition: {enabled: false}\n", encoding="utf-8"
    )
    off = FlagRules.load(RulePacks(tmp_path))
    assert not off.enabled("unqualified_condition")
    assert [f for f in off.evaluate(critical, None) if f.reason == "unqualified_condition"] == []


def test_result_record_and_counts_carry_the_finding(rules: ConditionalRules) -> None:
    """The record's conditional list names the value and condition; findings count it by unit."""
    a = _assessment(rules, "Trả trong bao lâu?", "Bạn có 30 ngày để đổi trả.")
    record = Evaluation(a, None, FlagRules.load().evaluate(a, None)).record()
    assert [item["text"] for item in record["conditional"]] == ["30 ngày"]
    assert {"reason": "unqualified_condition", "severity": "critical"}.items() <= record["flags"][0].items()
    assert list(a.findings()) == [("unqualified_condition", "day")]
    carried = _assessment(rules, "Mình là thành viên Plus, trả trong bao lâu?", "Bạn có 30 ngày.")
    assert Evaluation(carried, None, FlagRules.load().evaluate(carried, None)).record()["conditional"] == []


def test_sampler_treats_a_critical_finding_as_numeric(rules: ConditionalRules) -> None:
    """A critical unqualified_condition sends the trace to review like a numeric finding."""
    sampler = Sampler(SamplingPolicy.load(sample_all=False), FeedbackWindow(0))
    a = _assessment(rules, "Trả trong bao lâu?", "Bạn có 30 ngày để đổi trả.")
    admitted = sampler.decide(a.trace, a.signals, None, None, None, None, a.conditional)
    assert "numeric_finding" in admitted.reasons
    warning = rules.check("Trả trong bao lâu?", "Bạn có 30 ngày.", [PLUS])
    assert warning.severity == "warning"
    quiet = sampler.decide(a.trace, a.signals, None, None, None, None, warning)
    assert "numeric_finding" not in quiet.reasons
    assert "numeric_finding" not in sampler.decide(a.trace, a.signals, None, None).reasons


def test_empty_report_is_falsy_everywhere() -> None:
    """A report without findings has no severity, no kinds and an empty record list."""
    report = ConditionalReport()
    assert report.severity is None and not report.critical and list(report.kinds()) == []
    assert report.as_dict() == []


def test_packaged_flags_file_still_overrides_only() -> None:
    """rules/flags.yaml documents the reason without overriding it (the catalog gives its default)."""
    data = yaml.safe_load((RULES / "flags.yaml").read_text(encoding="utf-8"))
    assert "unqualified_condition" not in data["flags"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "chunk",
    [
        "Phí dịch vụ: 20.000đ " * 1000,  # a flattened price table: no sentence end, no pipe
        "Adult: $16.50 Child: $11 Senior: $9 " * 700,
        "Phí dịch vụ, 20.000đ, " * 1000,
    ],
)
def test_a_long_unpunctuated_chunk_is_checked_in_linear_time(chunk: str) -> None:
    """A 20,000-character chunk without sentence ends is checked in about a second: a comma part
    reaches at most a few hundred characters from its value, and no pattern backtracks over the line
    (the row pattern took 16 s on 4,000 characters, the part search 117 s on 10,500)."""
    rules = ConditionalRules.load(NumericRules.load())
    report = rules.check("phí bao nhiêu", "Phí dịch vụ là 20.000đ, vé $11", [chunk])
    assert isinstance(report, ConditionalReport)
    assert rules.check("vé bao nhiêu", "Vé là $11", ["Adult: $16.50 | Child: $11"]).findings


FA_ELDERLY = "اعضای سالمند ماهانه ۲۰۰ هزار تومان می‌پردازند؛ سایر اعضا ماهانه ۴۰۰ هزار تومان می‌پردازند."


@pytest.mark.parametrize(
    ("question", "flagged"),
    [
        ("من سالم هستم، حق عضویت ماهانه چقدر است؟", True),  # healthy: not "elderly" less "ند"
        ("حق عضویت ماهانه چقدر است؟", True),
        ("من سالمندم، حق عضویت ماهانه چقدر است؟", False),  # "I am elderly": the enclitic comes off
        ("سالمندان چقدر می‌پردازند؟", False),  # the plural comes off
    ],
)
def test_persian_key_sheds_only_plurals(rules: ConditionalRules, question: str, flagged: bool) -> None:
    """A condition key sheds plurals only: "سالم" (healthy) does not carry "سالمند" (elderly)."""
    report = rules.check(question, "حق عضویت ماهانه ۲۰۰ هزار تومان است.", [FA_ELDERLY])
    assert bool(report.findings) is flagged


def test_plurals_default_to_every_ending() -> None:
    """A pack without ``plurals`` lets a key shed any of its endings, as before the field existed."""
    pack = ConditionalPack(language="xx", endings=["en", "s"])
    rules = ConditionalRules([pack], NumericRules.load())
    assert set(rules.vocabulary.plurals) == {"en", "s"}
    fa = ConditionalPack(language="fa", endings=["ان", "م"], plurals=["ان"])
    assert ConditionalRules([fa], NumericRules.load()).vocabulary.plurals == ("ان",)


@pytest.mark.parametrize(
    ("question", "answer", "chunk", "flagged"),
    [
        # a cap conditions nothing: the refund time holds for every refund
        ("hoàn tiền bao lâu", "Bạn được hoàn tiền trong vòng 30 ngày.",
         "Đơn hàng được hoàn tiền tối đa 5 triệu đồng trong vòng 30 ngày.", []),
        ("How fast is the refund?", "Refunds arrive within 10 days.",
         "Refunds of up to $500 arrive within 10 days.", []),
        ("بازپرداخت کی انجام میشه؟", "بازپرداخت ظرف ۳۰ روز انجام می‌شود.",
         "بازپرداخت حداکثر ۵ میلیون تومان ظرف ۳۰ روز انجام می‌شود.", []),
        # a cap is a value: the members' cap stated as general is a finding, another value after it or not
        ("hoàn tối đa bao nhiêu", "Bạn được hoàn tối đa 5 triệu đồng trong 30 ngày.",
         "Thành viên Plus được hoàn tối đa 5 triệu đồng trong 30 ngày; khách thường được hoàn tối đa 2 "
         "triệu đồng trong 30 ngày.", ["5 triệu đồng"]),
        ("How much can I get back?", "You can get up to $500 back within 10 days.",
         "Premium subscribers get up to $500 back within 10 days; other plans get up to $200 back "
         "within 10 days.", ["$500"]),
        ("最多赔多少", "最多赔付5,000元，30天内到账。",
         "VIP会员每次最多赔付5,000元，30天内到账；普通会员每次最多赔付2,000元，30天内到账。", ["5,000元"]),
        # inside a marker's own words a limit still names the condition ("only for claims up to $500")
        ("only claims", "Claims up to $500 are reviewed in 2 days.",
         "Fast review applies only to claims up to $500: they are reviewed in 2 days.", []),
    ],
)  # fmt: skip
def test_an_upper_limit_is_a_value_not_a_condition(
    rules: ConditionalRules, question: str, answer: str, chunk: str, flagged: list[str]
) -> None:
    """A cap ("up to", "tối đa", "最多", "حداکثر") stated is a value; in a policy it conditions nothing."""
    report = rules.check(question, answer, [chunk])
    assert [f.text for f in report.findings] == flagged


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        ("热线随时都有人接听。", True),
        ("热线随时都有人值班。", True),
        ("热线每天上午9点至下午6点有人接听。", False),
    ],
)
def test_an_all_day_phrase_is_read_by_its_construction(
    rules: ConditionalRules, answer: str, flagged: bool
) -> None:
    """An all-day phrase ("随时都有人", someone is there at any time) holds whatever verb follows."""
    chunk = "热线服务时间为每天上午9点至下午6点。VIP会员专线全天24小时有人接听。"
    assert bool(rules.check("热线几点有人", answer, [chunk]).findings) is flagged


FA_FIBRE = (
    "سرعت فیبر نوری ۱۰۰ مگابیت بر ثانیه فقط در تهران، مشهد و اصفهان ارائه می‌شود. در سایر شهرها سرعت ۱۶ "
    "مگابیت بر ثانیه است."
)


@pytest.mark.parametrize(
    ("question", "answer", "flagged"),
    [
        ("fibre speed in Mashhad?", "In Mashhad, fibre runs at 100 Mbps.", False),  # مشهد in Latin letters
        ("fibre speed in Shiraz?", "Fibre runs at 100 Mbps.", True),  # another city, named in equivalents
        ("fibre speed?", "Fibre runs at 100 Mbps.", True),
    ],
)
def test_a_city_is_carried_in_another_writing(
    rules: ConditionalRules, question: str, answer: str, flagged: bool
) -> None:
    """A large city named in Latin letters carries the policy's Persian case (common.yaml equivalents)."""
    assert bool(rules.check(question, answer, [FA_FIBRE]).findings) is flagged


VI_RETURN = (
    "Khách đổi ý thì tự chịu phí vận chuyển 30.000 đồng. "
    "Đơn từ 300.000 đồng trở lên được miễn phí vận chuyển."
)


@pytest.mark.parametrize(
    ("question", "answer", "flagged"),
    [
        ("اگر پشیمان شوم، هزینه ارسال برگشت با من است؟", "بله، سی هزار دونگ.", False),  # regretting
        ("个人原因退货要付多少运费", "要的，三万越南盾运费。", False),  # personal reasons
        ("退货运费多少", "三万越南盾运费。", True),  # no change of mind said
        # the asker's own case is not the policy's other case: free is for the shop's error only
        ("who pays shipping if I just don't want it anymore", "No, returns are always shipped free.", True),
    ],
)
def test_a_change_of_mind_is_said_in_every_language(
    rules: ConditionalRules, question: str, answer: str, flagged: bool
) -> None:
    """The customer's own choice ("پشیمان", "个人原因") carries "Khách đổi ý thì" (common.yaml
    equivalents); a question with a condition of its own carries no other condition of the policy."""
    chunks = [VI_RETURN, "Đổi trả vì lỗi của BanHang thì khách không mất phí vận chuyển."]
    assert bool(rules.check(question, answer, chunks).findings) is flagged


@pytest.mark.parametrize(
    ("question", "flagged"),
    [
        ("我奶奶73岁出国 能保多少医疗", False),
        ("出国能保多少医疗", True),
        ("年满七十的旅行医疗额度", False),
        ("我妈妈45岁出国 能保多少医疗", True),
    ],
)
def test_an_age_in_the_question_carries_a_marker_named_by_an_age(
    rules: ConditionalRules, question: str, flagged: bool
) -> None:
    """ "年满70周岁" is named by its age: a question stating an age on its side ("73岁", "年满七十" without
    a unit) says where the asker stands, as for a threshold; one below it ("45岁") does not."""
    chunks = [
        "LX-4. 年满70周岁的被保险人仍可投保旅行险，但境外医疗保额为每次旅行15万元，"
        "且不承保潜水、滑雪等高风险运动。",
        "LX-1. 境外旅行医疗保额为每人每次旅行人民币30万元，涵盖急诊、住院和紧急医疗转运。",
    ]
    assert bool(rules.check(question, "十五万元/次，潜水、滑雪等除外。", chunks).findings) is flagged


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("年满七十的旅行医疗额度", 70),
        ("trên sáu mươi tuổi", 60),
        ("người từ 60 tuổi trở lên", 60),
        ("aged 65 and over", 65),
        ("aged over sixty-five", 65),
        ("سن بالای ۶۵", 65),
    ],
)
def test_a_bare_number_beside_an_age_word_is_an_age(rules: ConditionalRules, text: str, value: int) -> None:
    """A number without a unit is an age in years beside the packs' age words ("年满", "tuổi", "aged",
    "سن"), in digits or words, so a question's "75 years" meets a policy's "aged 65 and over"."""
    assert [(q.value, q.unit) for q in rules._quantities(text)] == [(Decimal(value), "year")]


def test_a_bare_number_without_an_age_word_stays_unread(rules: ConditionalRules) -> None:
    """Hard negative: "满3件" counts goods (满 alone is no age word) and "65 and over" alone is no age."""
    assert [(q.value, q.unit) for q in rules._quantities("满3件")] == [(Decimal(3), "count:件")]
    assert rules._quantities("65 and over") == []


_BOUNDS = [
    # (question, answer, chunk, flagged): the asker's stated value on each side of the bound
    ("My father is 75 years old, is the gym free for him?", "Yes, membership is free.", "en65", False),
    ("I'm 30 years old, is the gym free for me?", "Yes, membership is free.", "en65", True),
    ("My order is $80, is shipping free?", "Yes, shipping is free.", "en50", False),
    ("My order is $30, is shipping free?", "Yes, shipping is free.", "en50", True),
    ("Bé nhà em 4 tuổi đi xe buýt mất bao nhiêu?", "Miễn phí ạ.", "vi6", False),
    ("Bé nhà em 8 tuổi đi xe buýt mất bao nhiêu?", "Miễn phí ạ.", "vi6", True),
    ("Bố tôi bảy mươi hai tuổi đi xe buýt mất bao nhiêu?", "Miễn phí ạ.", "vi60", False),
    ("Tôi 40 tuổi đi xe buýt mất bao nhiêu?", "Miễn phí ạ.", "vi60", True),
    ("我的理赔4000元，多久到账？", "3天到账。", "zh5000", False),
    ("我的理赔8000元，多久到账？", "3天到账。", "zh5000", True),
    ("پدرم ۷۰ سال دارد، بلیت مترو چند است؟", "بلیت مترو رایگان است.", "fa65", False),
    ("من ۳۰ سال دارم، بلیت مترو چند است؟", "بلیت مترو رایگان است.", "fa65", True),
]
_BOUND_CHUNKS = {
    "en65": "Members 65 years or older get free membership. The standard membership is $30 per month.",
    "en50": "Shipping is free on orders over $50. Other orders ship for $6.",
    "vi6": "Khách dưới 6 tuổi được đi xe buýt miễn phí. Vé thường 7.000đ.",
    "vi60": "Người từ 60 tuổi trở lên được đi xe buýt miễn phí. Vé thường 7.000đ.",
    "zh5000": "理赔金额不超过5,000元的，3天内到账；其他理赔10天内到账。",
    "fa65": "سفر با مترو برای افراد بالای ۶۵ سال رایگان است. بلیت عادی ۳۰ هزار تومان است.",
}


@pytest.mark.parametrize(("question", "answer", "chunk", "flagged"), _BOUNDS)
def test_a_stated_value_carries_a_threshold_only_on_its_side(
    rules: ConditionalRules, question: str, answer: str, chunk: str, flagged: bool
) -> None:
    """A question's age or amount carries a threshold only on the bound's side ("75" for "65 or
    older", "4 tuổi" for "dưới 6 tuổi"); on the other side ("I'm 30", "8000元" for "不超过5,000元")
    the condition is not the asker's, and the value given as general is a finding."""
    assert bool(rules.check(question, answer, [_BOUND_CHUNKS[chunk]]).findings) is flagged


REFUND_DAYS = "Refunds are processed within 7 business days of receiving the returned item."
FASTING_HOURS = "Bệnh nhân cần nhịn ăn 8 tiếng trước khi lấy máu."
LAB_HOURS = "Phòng xét nghiệm làm việc 8 giờ làm việc mỗi ngày, từ thứ Hai đến thứ Bảy."


@pytest.mark.parametrize(
    ("question", "answer", "chunks", "flagged"),
    [
        # the refund sentence states 7 business days: "7 days" drops the qualifier
        ("how long does a refund take", "Your refund is processed within 7 days.", [REFUND_DAYS], True),
        # a plain 8 tiếng stands in an unrelated sentence; the best-matching one says 8 giờ làm việc
        ("phòng xét nghiệm làm việc mấy giờ", "Phòng xét nghiệm làm việc 8 giờ mỗi ngày.",
         [FASTING_HOURS, LAB_HOURS], True),
        # the qualifier kept
        ("how long does a refund take", "Refunds take 7 business days.", [REFUND_DAYS], False),
        # no topic word in common with the qualified sentence: another sentence's value, not a dropped one
        ("how long does shipping take", "Shipping takes 7 days.", [REFUND_DAYS], False),
    ],
)  # fmt: skip
def test_a_dropped_unit_qualifier_is_a_finding(
    rules: ConditionalRules, question: str, answer: str, chunks: list[str], flagged: bool
) -> None:
    """A value the best-matching sentence states in a qualified unit ("business days", "giờ làm việc")
    is bound to the qualifier; a sentence sharing no topic word with the answer binds nothing."""
    report = rules.check(question, answer, chunks)
    assert bool(report.findings) is flagged
