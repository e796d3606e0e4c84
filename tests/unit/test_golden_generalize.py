"""Golden matching across scripts, languages and writers: each behaviour with its hard negative.

Traditional characters fold to simplified ones (the zh pack's ``characters``), shared concepts read as
one token whichever language wrote them, qualifiers survive the other languages' stopwords, and the
dev splits are each held within the false-match budget when a threshold is chosen.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from monitor.exceptions import ConfigError
from monitor.golden import GoldenMatcher, GoldenSet, Vocabulary
from monitor.golden.fitting import Outcome, Paraphrase, best_threshold, load_domains

DATA = Path(__file__).parents[1] / "data"
PARAPHRASES = DATA / "golden_match" / "paraphrases"


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return Vocabulary.load()


@pytest.fixture(scope="module")
def golden() -> dict[str, GoldenSet]:
    return load_domains(PARAPHRASES, DATA)


def matched(golden: dict[str, GoldenSet], domain: str, text: str) -> str | None:
    found = GoldenMatcher(golden[domain]).match(text)
    return found.entry.id if found else None


def test_traditional_characters_fold_to_simplified(vocab: Vocabulary, golden: dict[str, GoldenSet]) -> None:
    """Traditional spelling reads as simplified; the exchange (換貨), not the return, stays apart."""
    assert vocab.tokens("會員退貨運費誰付") == vocab.tokens("会员退货运费谁付")
    assert vocab.tokens("電子發票怎麼開") == vocab.tokens("电子发票怎么开")
    assert matched(golden, "shop_zh", "會員退貨運費誰付") == "z02"
    assert matched(golden, "shop_zh", "換貨運費誰付") is None


def test_character_map_is_one_character_each() -> None:
    """A ``characters`` entry that is not one character onto one is a ConfigError naming it."""
    with pytest.raises(ConfigError, match=r"'characters\.會員' must map one character"):
        Vocabulary.from_mapping({"characters": {"會員": "会员"}})
    assert Vocabulary.from_mapping({"characters": {"會": "会"}, "words": ["會员"]}).tokens("會员") == (
        "会员",
    )


def test_vietnamese_reads_onto_chinese_and_english_sets(golden: dict[str, GoldenSet]) -> None:
    """Members, addresses, cancelling and fees written in Vietnamese match; the sibling intents do not."""
    assert matched(golden, "shop_zh", "thanh vien tra hang phi ship ai chiu") == "z02"
    assert matched(golden, "shop_zh", "doi hang thi phi ship ai chiu") is None  # an exchange
    assert matched(golden, "telecom_en", "huy hop dong som co mat phi ko") == "t03"
    assert matched(golden, "telecom_en", "huy goi data co mat phi ko") is None  # an add-on, not the contract


def test_chinese_reads_onto_the_english_set(golden: dict[str, GoldenSet]) -> None:
    """Leftover data rolled to next month, in Chinese, is t04; leftover call minutes are not."""
    assert matched(golden, "telecom_en", "剩余流量可以结转到下月吗") == "t04"
    assert matched(golden, "telecom_en", "剩余通话分钟可以结转吗") is None


def test_english_reads_onto_the_vietnamese_set(vocab: Vocabulary, golden: dict[str, GoldenSet]) -> None:
    """A phone, days and 'like clothes' in English are q05's words; a warranty question is not q05."""
    assert vocab.tokens("mobile phone") == vocab.tokens("điện thoại") == vocab.tokens("手机")
    assert matched(golden, "banhang", "mobile phone return 30 days like clothes") == "q05"
    assert matched(golden, "banhang", "mobile phone warranty 30 days") is None


def test_doubled_l_forms_of_cancel(vocab: Vocabulary) -> None:
    """Cancelled and cancelling read as cancel (the stemmer keeps 'll'), call and fill keep theirs."""
    assert vocab.tokens("cancelled") == vocab.tokens("cancelling") == vocab.tokens("cancel") == ("cancel",)
    assert vocab.tokens("calling") == ("call",)


def test_qualifiers_survive_other_languages_stopwords(
    vocab: Vocabulary, golden: dict[str, GoldenSet]
) -> None:
    """'đồ lót' is underwear, not English 'a lot'; underwear that does not fit is not q01."""
    assert vocab.qualifiers(vocab.tokens("đồ lót")) == {("underwear",)}
    assert vocab.qualifiers(vocab.tokens("i travel abroad a lot")) == frozenset()
    assert (
        vocab.qualifiers(vocab.tokens("đồ ăn")) == vocab.qualifiers(vocab.tokens("thực phẩm")) == {("food",)}
    )
    assert matched(golden, "banhang", "áo mặc không vừa trả mấy ngày") == "q01"
    assert matched(golden, "banhang", "quần lót mặc không vừa trả mấy ngày") is None


def test_colour_is_a_qualifier(vocab: Vocabulary) -> None:
    """Changing the colour is another intent than changing the size, in every pack's words."""
    assert (
        vocab.qualifiers(vocab.tokens("đổi màu áo")) == vocab.qualifiers(vocab.tokens("颜色")) == {("mau",)}
    )
    question = "đổi size áo được trong bao lâu"
    plain = GoldenSet.load([DATA / "banhang" / "golden.json"])
    entries = tuple(replace(e, variants=(question,)) if e.id == "q01" else e for e in plain)
    matcher = GoldenMatcher(GoldenSet("v", entries))
    found = matcher.match("đổi size áo trong bao lâu vậy")
    assert found is not None and found.entry.id == "q01"
    assert matcher.match("đổi màu áo được trong bao lâu") is None


def test_screen_reads_as_one_concept(vocab: Vocabulary) -> None:
    """'màn hình' and the short 'màn' give the same tokens (no doubled 'hinh')."""
    assert vocab.tokens("màn hình") == vocab.tokens("màn") == ("man", "hinh")


def _outcome(text: str, expect: str | None, best: str, score: float) -> Outcome:
    return Outcome(Paraphrase("d", expect, text), best, score, score)


def test_threshold_keeps_every_dev_split_within_budget() -> None:
    """A threshold in budget on the pooled dev is refused when one split alone goes over it."""
    big = [_outcome(f"p{i}", "a", "a", 0.9) for i in range(40)]
    big += [_outcome(f"n{i}", None, "a", 0.1) for i in range(40)]
    small = [_outcome("m", None, "a", 0.6), _outcome("p", "a", "a", 0.6)] + [
        _outcome(f"s{i}", "a", "a", 0.9) for i in range(5)
    ]
    results = big + small
    pooled = best_threshold(results, 0.0, budget=0.05)
    assert pooled is not None and pooled[0] <= 0.6
    split = best_threshold(results, 0.0, budget=0.05, each=[{o.case for o in big}, {o.case for o in small}])
    assert split is not None and split[0] > 0.6


def test_after_shipment_and_courier_are_qualifiers(vocab: Vocabulary, golden: dict[str, GoldenSet]) -> None:
    """'发货后' stays whole ('还没发货', not yet shipped, is none); a courier's time is not a refund's."""
    assert vocab.qualifiers(vocab.tokens("发货后还能改地址吗")) == {("发货后",)}
    assert vocab.qualifiers(vocab.tokens("还没发货能改地址吗")) == frozenset()
    assert matched(golden, "shop_zh", "退款多久能到账") == "z03"
    assert matched(golden, "shop_zh", "快递多久能送到") is None


def test_synonyms_read_what_synonyms_produced(vocab: Vocabulary, golden: dict[str, GoldenSet]) -> None:
    """'switch my number' is moving the number, so porting it; switching the plan is not."""
    assert vocab.tokens("switch my number to you") == vocab.tokens("move my number") == ("port", "number")
    assert matched(golden, "telecom_en", "how do i switch my number over to you") == "t05"
    assert matched(golden, "telecom_en", "how do i switch my plan to premium") is None


def test_synonym_defined_twice_once_stemmed_is_refused() -> None:
    """Two synonym keys that stem to one phrase are a ConfigError naming the pack and both entries."""
    with pytest.raises(ConfigError, match=r"pack\.yaml: 'synonyms\.runs out' is 'synonyms\.run out'.*twice"):
        Vocabulary.merge([("pack.yaml", {"synonyms": {"run out": "use up", "runs out": "use up"}})])
    assert Vocabulary.merge([("pack.yaml", {"synonyms": {"run out": "use up"}})]).tokens("runs out") == (
        "use",
        "up",
    )


def test_synonym_key_repeated_in_one_yaml_file_is_refused(tmp_path: Path) -> None:
    """A key written twice in one pack file (YAML keeps the last silently) is a ConfigError with its line."""
    pack = tmp_path / "en.yaml"
    pack.write_text("synonyms:\n  run out: use up\n  roam: roaming\n  run out: finish\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"en\.yaml: key 'run out' is defined twice \(line 4\)"):
        Vocabulary.load(tmp_path)
    pack.write_text("synonyms:\n  run out: use up\n  roam: roaming\n", encoding="utf-8")
    assert Vocabulary.load(tmp_path).tokens("run out") == ("use", "up")


@pytest.mark.parametrize(
    ("synonyms", "kind"),
    [
        ({"reimbursement": "reimburse", "reimburse": "refund"}, "a chain"),
        ({"limit": "cover limit"}, "a cycle"),
        ({"lapse": "expire", "expire": "lapse"}, "a cycle"),
        ({"报销": "reimburse", "reimburse": "refund"}, "a chain"),
    ],
)
def test_synonym_chain_or_cycle_is_refused(synonyms: dict[str, str], kind: str) -> None:
    """A synonym whose canonical form another synonym rewrites is a ConfigError naming entry and kind."""
    with pytest.raises(ConfigError, match=rf"p\.yaml: 'synonyms\..+' -> .* \({kind}\)"):
        Vocabulary.merge([("p.yaml", {"synonyms": synonyms})])


def test_synonym_onto_itself_and_straight_onto_final_form_load() -> None:
    """A canonical form listed onto itself, and a key mapped straight onto the final form, are accepted."""
    synonyms = {"cover limit": "cover limit", "limit": "cover limit", "reimburse": "refund"}
    vocab = Vocabulary.merge([("p.yaml", {"synonyms": synonyms})])
    assert vocab.tokens("cover limit") == vocab.tokens("limit") == ("cover", "limit")


def test_packaged_golden_packs_load_without_duplicates_or_chains() -> None:
    """The packaged golden packs pass the synonym checks (they are refused at start otherwise)."""
    assert Vocabulary.load().synonyms
