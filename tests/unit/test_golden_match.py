"""Matching live questions to golden questions: paraphrases match, different questions do not.

Cases are data in tests/data/golden_match/*.yaml: q01..q05 hold paraphrases (accented, unaccented,
abbreviated), negatives.yaml holds hard negatives, holdout.yaml was never used to fit the threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
import yaml

from monitor.embeddings import Kind, LocalE5Embedder, Vectors
from monitor.exceptions import ConfigError
from monitor.golden import GoldenEntry, GoldenMatcher, GoldenSet, Vocabulary, fold
from monitor.golden.match import lossless_prefilter
from monitor.golden.text import stem
from monitor.rulepacks import RulePacks

DATA = Path(__file__).parents[1] / "data"
CASE_DIR = DATA / "golden_match"


@dataclass(frozen=True)
class Case:
    file: str
    expect: str | None
    text: str
    form: str | None
    known_miss: bool


def load_cases(path: Path) -> list[Case]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [
        Case(
            path.stem,
            c.get("expect", data.get("expect")),
            c["text"],
            c.get("form"),
            bool(c.get("known_miss")),
        )
        for c in data["cases"]
    ]


FIT_FILES = sorted(p for p in CASE_DIR.glob("*.yaml") if p.stem != "holdout")
FIT_CASES = [case for path in FIT_FILES for case in load_cases(path)]
HOLDOUT_CASES = load_cases(CASE_DIR / "holdout.yaml")


class CountingEmbedder:
    """The real local embedder, counting the calls made after construction (to see the prefilter work)."""

    def __init__(self, inner: LocalE5Embedder) -> None:
        self.inner = inner
        self.calls = 0

    @property
    def name(self) -> str:
        return self.inner.name

    def embed(self, texts: Sequence[str], kind: Kind) -> Vectors:
        self.calls += 1
        return self.inner.embed(texts, kind)


@pytest.fixture(scope="module")
def embedder() -> LocalE5Embedder:
    return LocalE5Embedder()


@pytest.fixture(scope="module")
def golden() -> GoldenSet:
    return GoldenSet.load([DATA / "banhang" / "golden.json"])


@pytest.fixture(scope="module")
def matcher(golden: GoldenSet, embedder: LocalE5Embedder) -> GoldenMatcher:
    return GoldenMatcher(golden, embedder)


def matched_id(matcher: GoldenMatcher, text: str) -> str | None:
    found = matcher.match(text)
    return found.entry.id if found else None


@pytest.mark.parametrize("case", FIT_CASES + HOLDOUT_CASES, ids=lambda c: f"{c.file}:{c.text[:40]}")
def test_case(matcher: GoldenMatcher, case: Case) -> None:
    """A paraphrase matches its entry; a different question matches nothing; a known miss is never wrong."""
    got = matched_id(matcher, case.text)
    if case.known_miss:
        assert got in (None, case.expect)
    else:
        assert got == case.expect


@pytest.fixture(scope="module")
def lexical(golden: GoldenSet) -> GoldenMatcher:
    return GoldenMatcher(golden)


@pytest.mark.parametrize("case", FIT_CASES + HOLDOUT_CASES, ids=lambda c: f"{c.file}:{c.text[:40]}")
def test_case_lexical_alone(lexical: GoldenMatcher, case: Case) -> None:
    """Offline, with no embedder, the lexical matcher gives the same answers on the case files."""
    got = matched_id(lexical, case.text)
    if case.known_miss:
        assert got in (None, case.expect)
    else:
        assert got == case.expect


@pytest.mark.parametrize(
    ("cases", "min_recall"), [(FIT_CASES, 0.95), (HOLDOUT_CASES, 0.9)], ids=["fit", "holdout"]
)
def test_precision_and_recall(matcher: GoldenMatcher, cases: list[Case], min_recall: float) -> None:
    """On the case files no question matches a wrong entry (precision 1.0), and recall stays high."""
    results = [(case.expect, matched_id(matcher, case.text)) for case in cases]
    matched = [(want, got) for want, got in results if got is not None]
    positives = [(want, got) for want, got in results if want is not None]
    precision = sum(want == got for want, got in matched) / len(matched)
    recall = sum(want == got for want, got in positives) / len(positives)
    assert precision == 1.0
    assert recall >= min_recall


def test_case_files_cover_the_forms() -> None:
    """Each seed question has at least 6 paraphrases across all three forms; at least 10 hard negatives."""
    for entry_id in ("q01", "q02", "q03", "q04", "q05"):
        cases = [c for c in FIT_CASES if c.expect == entry_id]
        assert len(cases) >= 6
        assert {c.form for c in cases} == {"accented", "unaccented", "abbreviated"}
    assert sum(c.expect is None for c in FIT_CASES) >= 10


def test_prefilter_is_lossless(golden: GoldenSet, embedder: LocalE5Embedder, matcher: GoldenMatcher) -> None:
    """Skipping the embedding below the lexical bound never changes a match."""
    always_embed = GoldenMatcher(golden, embedder, prefilter=0.0)
    for case in FIT_CASES + HOLDOUT_CASES:
        assert matched_id(matcher, case.text) == matched_id(always_embed, case.text)


def test_prefilter_skips_the_embedding(golden: GoldenSet, embedder: LocalE5Embedder) -> None:
    """A question sharing no intent word with any golden question is rejected without embedding it."""
    counting = CountingEmbedder(embedder)
    matcher = GoldenMatcher(golden, counting)
    after_load = counting.calls
    assert matcher.match("Hôm nay shop mở cửa đến mấy giờ?") is None
    assert counting.calls == after_load
    assert matcher.match("ao ko vua dc tra trong bn ngay") is not None
    assert counting.calls == after_load + 1


def test_lossless_bound() -> None:
    """The bound is the lexical score a perfect semantic score would need to reach the threshold."""
    assert lossless_prefilter(0.58, 0.5) == pytest.approx(0.16)
    assert lossless_prefilter(0.3, 0.5) == 0.0
    assert lossless_prefilter(0.5, 0.0) == 0.0


def test_margin_rejects_an_ambiguous_question(embedder: LocalE5Embedder) -> None:
    """Two entries asking the same thing leave no margin, so neither is matched, even with no margin
    asked for (an exact tie); an entry ahead of its neighbour by a little is matched with none asked."""
    question = "Trả hàng rồi bao lâu thì nhận lại tiền?"
    twins = GoldenSet("t", (GoldenEntry("a", question), GoldenEntry("b", question + " ạ")))
    assert GoldenMatcher(twins, embedder).match(question) is None
    assert GoldenMatcher(twins, embedder, margin=0.0).match(question) is None
    near = GoldenSet(
        "t", (GoldenEntry("a", question), GoldenEntry("b", "Đổi hàng rồi bao lâu thì nhận lại hàng?"))
    )
    found = GoldenMatcher(near, embedder, margin=0.0).match(question)
    assert found is not None and found.entry.id == "a"
    assert GoldenMatcher(near, embedder, margin=0.99).match(question) is None


def test_threshold_is_configurable(golden: GoldenSet, embedder: LocalE5Embedder) -> None:
    """A stricter threshold turns a matched paraphrase away; the match reports its scores."""
    text = "Nếu mình đổi ý không mua nữa thì có bị tính phí giao hàng không?"
    found = GoldenMatcher(golden, embedder).match(text)
    assert found is not None and found.entry.id == "q04"
    assert (
        found.similarity < 0.9 and 0.0 < found.lexical < 1.0 and found.semantic > 0.9 and found.margin > 0.1
    )
    assert GoldenMatcher(golden, embedder, threshold=0.9).match(text) is None


def test_fold_and_abbreviations() -> None:
    """Accents, case and chat abbreviations disappear: the written forms give the same intent words."""
    vocab = Vocabulary.load()
    assert fold("ĐỔI Ý Không") == "doi y khong"
    assert vocab.tokens("đc ko") == vocab.tokens("được không") == vocab.tokens("dc k")
    assert vocab.tokens("phí ship") == vocab.tokens("phí vận chuyển") == vocab.tokens("phi giao hang")
    assert vocab.tokens("bn ngày") == vocab.tokens("bao nhiêu ngày")
    assert vocab.tokens("sp j") == ("san", "pham", "gi")


@pytest.mark.parametrize(
    ("pack", "message"),
    [
        ([], "expected a mapping"),
        ({"abbreviations": ["ko"]}, "'abbreviations' must map strings to strings"),
        ({"stopwords": "thi"}, "'stopwords' must be a list of strings"),
    ],
)
def test_bad_abbreviation_pack(pack: object, message: str) -> None:
    """A malformed pack is a ConfigError naming the field."""
    with pytest.raises(ConfigError, match=message):
        Vocabulary.from_mapping(pack)


def test_abbreviation_pack_from_path(tmp_path: Path) -> None:
    """A pack given by path replaces the shipped one; an unreadable one is a ConfigError."""
    path = tmp_path / "abbr.yaml"
    path.write_text("abbreviations: {ntn: nhu the nao}\nstopwords: [thi]\n", encoding="utf-8")
    assert Vocabulary.load(path).tokens("Thì ntn") == ("nhu", "the", "nao")
    with pytest.raises(ConfigError, match="cannot read"):
        Vocabulary.load(tmp_path / "absent.yaml")


def test_no_diacritics_and_teen_code() -> None:
    """Vietnamese typed without accents or in teen-code reads like the accented sentence."""
    vocab = Vocabulary.load()
    accented = vocab.tokens("Hàng quần áo nhận rồi trả lại được mấy hôm?")
    assert vocab.tokens("hang quan ao nhan roi tra lai duoc may hom") == accented
    assert vocab.tokens("hàng quần áo nhận r trả lại đc mấy hôm") == accented
    assert vocab.tokens("bn ngày") == vocab.tokens("mấy ngày") == vocab.tokens("may hom")
    assert vocab.tokens("sp ship ko") == vocab.tokens("sản phẩm vận chuyển không")


def test_mixed_language_tokens_share_one_spelling() -> None:
    """English words mixed into Vietnamese or Chinese map onto the same canonical token."""
    vocab = Vocabulary.load()
    assert vocab.tokens("refund sau khi tra hang") == vocab.tokens("hoàn tiền sau khi trả hàng")
    assert vocab.tokens("refund多久到账") == vocab.tokens("退款多久到账")
    assert vocab.tokens("vip member退货运费谁出") == vocab.tokens("会员会员退货邮费谁付")


def test_chinese_words_and_bigrams() -> None:
    """Known Chinese words are cut out whole, stop strings dropped, the rest read as bigrams."""
    vocab = Vocabulary.load()
    # 退货: the return concept; 运费: the shipping fee of vi.yaml and en.yaml
    assert vocab.tokens("请问退货的运费谁出？") == ("tra", "phi", "van", "chuyen", "谁承担")
    assert vocab.tokens("生鲜可以退货吗") == ("生鲜", "tra")
    assert vocab.tokens("支持花呗分期") == ("支持", "持花", "花呗", "呗分", "分期")
    assert vocab.tokens("退貨怎麼申請") == vocab.tokens("退货怎么申请")
    assert vocab.tokens("７天") == vocab.tokens("7天")  # full-width digits fold


def test_english_light_stemming() -> None:
    """Inflections meet: charges, charged and charging; plurals; a doubled consonant."""
    assert {stem(w) for w in ("charge", "charges", "charged", "charging")} == {"charg"}
    assert stem("plans") == stem("plan") == "plan"
    assert stem("stopped") == "stop" and stem("rolls") == stem("rolled") == "roll"
    assert stem("ngay") == "ngay" and stem("khoe") == "khoe"  # Vietnamese syllables stay
    vocab = Vocabulary.load()
    assert vocab.tokens("Roaming charges abroad?") == vocab.tokens("roaming charged overseas")


def test_packs_merge_and_refuse_conflicts(tmp_path: Path) -> None:
    """Every golden/*.yaml of a rules dir is merged; one key defined two ways names both files."""
    rules = tmp_path / "rules"
    (rules / "golden").mkdir(parents=True)
    (rules / "golden" / "a.yaml").write_text("abbreviations: {ko: khong}\n", encoding="utf-8")
    (rules / "golden" / "b.yaml").write_text("synonyms: {退钱: refund}\nstopwords: [吗]\n", encoding="utf-8")
    vocab = Vocabulary.from_packs(RulePacks(rules))
    assert vocab.tokens("ko 退钱吗") == ("khong", "refund")
    (rules / "golden" / "c.yaml").write_text("abbreviations: {ko: co}\n", encoding="utf-8")
    with pytest.raises(
        ConfigError, match=r"c\.yaml: 'abbreviations\.ko' is 'co' here but 'khong' in .*a\.yaml"
    ):
        Vocabulary.from_packs(RulePacks(rules))
    with pytest.raises(ConfigError, match="not a directory of golden text packs"):
        Vocabulary.from_packs(RulePacks(tmp_path))


def test_qualifiers_change_the_intent(lexical: GoldenMatcher) -> None:
    """A qualifier the golden wording lacks (membership, an excluded class) discounts it below the bar."""
    vocab = Vocabulary.load()
    key = vocab.tokens("Tôi là thành viên BanHang Plus, áo mặc không vừa")
    assert vocab.qualifiers(key) == {("会员",), ("plus",)}  # thành viên: the member concept of zh.yaml
    assert matched_id(lexical, "Áo mặc không vừa thì trả trong mấy ngày?") == "q01"
    assert matched_id(lexical, "Tôi là thành viên Plus, áo mặc không vừa thì trả trong mấy ngày?") is None
    assert matched_id(lexical, "đồ lót mặc không vừa thì trả trong mấy ngày") is None
    no_penalty = GoldenMatcher(lexical.golden, qualifier_penalty=1.0)
    assert matched_id(no_penalty, "Tôi là thành viên Plus, áo mặc không vừa thì trả trong mấy ngày?") == "q01"


def test_variants_are_matched(golden: GoldenSet) -> None:
    """A wording far from the golden question matches once it is one of the entry's variants."""
    question = "hang quan ao nhan roi tra lai duoc may hom"
    q01 = golden.get("q01")
    assert q01 is not None
    grown = GoldenSet("v", tuple(replace(e, variants=(question,)) if e.id == "q01" else e for e in golden))
    found = GoldenMatcher(grown).match("hàng quần áo nhận rồi trả lại được mấy hôm vậy shop")
    assert found is not None and found.entry.id == "q01" and found.semantic is None


def test_concepts_share_one_token_across_languages() -> None:
    """A concept written in English, Vietnamese or Chinese reads as one token, so scores cross languages."""
    vocab = Vocabulary.load()
    assert vocab.tokens("roaming data") == vocab.tokens("data chuyển vùng")[::-1] == ("roam", "data")
    assert vocab.tokens("漫游流量") == ("roam", "data")
    assert vocab.tokens("customer service hours") == vocab.tokens("客服几点") == ("support", "hour")
    assert vocab.tokens("多久") == vocab.tokens("bao lâu") == vocab.tokens("how long") == ("baolau",)
    assert vocab.tokens("hủy hợp đồng") == ("cancel", "contract") and vocab.tokens("解约") == ("cancel",)


def test_english_paraphrase_vocabulary() -> None:
    """Gigs are data; burning through, running out of and using up the allowance are one phrase."""
    vocab = Vocabulary.load()
    used_up = vocab.tokens("use up data")
    assert vocab.tokens("burn through my data") == vocab.tokens("my plan ran out of data")[1:] == used_up
    assert vocab.tokens("when my gigs are gone") == ("data", "use")
    assert vocab.tokens("do my plans get it") == ("plan",)  # "plane" -> flight must not take "plan"
    assert vocab.tokens("do all plans get it") == vocab.tokens("is it for everyone") == ("everyon",)


def test_figures_glued_to_units_split() -> None:
    """ "50gb" reads as "50 gb", so the unit word maps ("gb" -> data) and the figure counts."""
    vocab = Vocabulary.load()
    assert vocab.tokens("50gb roaming") == vocab.tokens("50 GB roaming") == ("50", "data", "roam")


def _with_negative(golden: GoldenSet, entry_id: str, negative: str) -> GoldenSet:
    return GoldenSet("n", tuple(replace(e, negatives=(negative,)) if e.id == entry_id else e for e in golden))


def test_negatives_veto_their_entry(golden: GoldenSet) -> None:
    """A question nearer a known "not this" of an entry than to its wordings does not match it."""
    question = "thành viên mua áo mặc không vừa thì được trả trong mấy ngày"
    plain = GoldenMatcher(golden, qualifier_penalty=1.0)
    assert matched_id(plain, question) == "q01"
    vetoed = GoldenMatcher(_with_negative(golden, "q01", question), qualifier_penalty=1.0)
    assert matched_id(vetoed, question) is None
    assert matched_id(vetoed, "Mua áo mặc không vừa thì được trả trong mấy ngày?") == "q01"
    assert vetoed.lexical_scores(question)[0] == 0.0


def test_negative_margin_widens_the_veto(golden: GoldenSet) -> None:
    """With a negative margin, a negative a little farther than the best wording still vetoes."""
    negative = "thành viên Plus mua áo mặc không vừa được trả trong bao nhiêu ngày"
    question = "áo mặc không vừa thì trả trong mấy ngày vậy"
    sets = _with_negative(golden, "q01", negative)
    assert matched_id(GoldenMatcher(sets, qualifier_penalty=1.0), question) == "q01"
    assert matched_id(GoldenMatcher(sets, qualifier_penalty=1.0, negative_margin=1.0), question) is None


def test_negatives_load_from_the_golden_file(tmp_path: Path) -> None:
    """An entry's ``negatives`` list is read with it; a malformed one is a ConfigError."""
    path = tmp_path / "g.json"
    path.write_text('[{"id": "a", "question": "q", "negatives": ["not this"]}]', encoding="utf-8")
    assert GoldenSet.load([path]).entries[0].negatives == ("not this",)
    path.write_text('[{"id": "a", "question": "q", "negatives": "not this"}]', encoding="utf-8")
    with pytest.raises(ConfigError, match="negatives"):
        GoldenSet.load([path])


def test_persian_pack_reads_onto_the_shared_concepts() -> None:
    """A Persian question reads onto the same concept words as its Vietnamese and English wordings."""
    vocab = Vocabulary.load()
    persian = set(vocab.tokens("پیراهنی که خریدم گشاد است؛ چند روز برای پس دادنش وقت دارم؟"))
    assert persian == {"quan", "ao", "khongvua", "baolau", "tra"}
    assert persian <= set(vocab.tokens("Mua áo mặc không vừa thì được trả trong mấy ngày?"))
    assert vocab.tokens("لپ‌تاپ") == vocab.tokens("لپ تاپ") == ("laptop",)  # a zero-width non-joiner splits


def test_customer_tiers_are_qualifiers() -> None:
    """Premium, seniors and VIP members change the answer: they are qualifiers in every language."""
    vocab = Vocabulary.load()
    assert vocab.qualifiers(vocab.tokens("premium eu data allowance")) == {("premium",)}
    assert vocab.qualifiers(vocab.tokens("basic plan price for over 65s")) == {("senior",)}
    assert vocab.qualifiers(vocab.tokens("VIP客户等待期")) == {("会员",)}


def test_negative_bar_lifts_the_entry_over_its_negatives(golden: GoldenSet) -> None:
    """With the bar, an entry must outscore what its closest known negative scores on it, even far from it."""
    negative = "thành viên Plus mua áo mặc không vừa thì được trả trong mấy ngày"
    sets = _with_negative(golden, "q01", negative)
    barred = GoldenMatcher(sets, qualifier_penalty=1.0, negative_bar=0.0)
    unbarred = GoldenMatcher(sets, qualifier_penalty=1.0, negative_bar=None)
    index = [e.id for e in golden].index("q01")
    bar = GoldenMatcher(golden, qualifier_penalty=1.0).lexical_scores(negative)[index]
    weaker = "áo không vừa trả được không"  # nearer q01 than the negative, but under the negative's score
    score = unbarred.lexical_scores(weaker)[index]
    assert unbarred.threshold <= score < bar
    assert matched_id(unbarred, weaker) == "q01" and matched_id(barred, weaker) is None
    assert matched_id(barred, "Mua áo mặc không vừa thì được trả trong mấy ngày?") == "q01"
    slack = GoldenMatcher(sets, qualifier_penalty=1.0, negative_bar=bar - score + 0.01)
    assert matched_id(slack, weaker) == "q01"  # the slack lowers the bar under the question's score
