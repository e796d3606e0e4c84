"""Conditional check: cases a sentence names by where it stands (a leading preposition, a "for" after
each value, a scope before a colon or opening the sentence) and ranges that are no conditions.

The policies here are written for these tests (a telecom's roaming, an insurer's claims, a ferry's
fares, a clinic's children): not the simulator's domains, so the mechanisms, not its wordings, are
what passes.
"""

from __future__ import annotations

import pytest

from monitor.conditional import ConditionalRules

ROAMING = (
    "Cước gọi về Việt Nam là 1.500 đồng mỗi phút. "
    "Khi chuyển vùng quốc tế, cước gọi về Việt Nam là 12.000 đồng mỗi phút."
)
ROAMING_NETWORK = (
    "Cước gọi về Việt Nam là 1.500 đồng mỗi phút. "
    "Trên mạng chuyển vùng quốc tế, cước gọi về Việt Nam là 12.000 đồng mỗi phút."
)
ROAMING_LEAD = (
    "Gọi trong nước tính 1.500 đồng mỗi phút. Tại các nước châu Âu, cuộc gọi tính 9.000 đồng mỗi phút."
)
WHERE_ONLY = "Tại cửa hàng Quận 1, chúng tôi mở cửa lúc 8 giờ sáng và nhận bảo hành trong 30 ngày."
FERRY_EN = (
    "Adults pay $12 per crossing. On night sailings, adults pay $18 per crossing. "
    "Children under 12 travel free."
)
FARES_VI = "Phí hủy là 200.000 đồng mỗi lần đối với vé Tiết Kiệm và 50.000 đồng đối với vé Linh Hoạt."
FARES_EN = "A change costs $30 for Basic Saver fares and $10 for Basic Flex fares."
ONE_FOR = "A change costs $30 for every booking made through the app."
CLAIMS_VI = (
    "Bồi thường tiền mặt chỉ áp dụng khi hồ sơ nộp trong 30 ngày và bệnh viện thuộc mạng lưới (nội trú, "
    "ngoại trú, nha khoa): 2.000.000 đồng mỗi lần nằm viện trong nước, 500 USD ở nước ngoài."
)
OPENING_SCOPE = "Phí giữ chỗ là 100.000 đồng. Chỉ tại quầy sân bay, phí giữ chỗ là 250.000 đồng mỗi khách."
CHILDREN = "Trẻ từ 6 tuổi đến dưới 16 tuổi được giảm 50% giá vé người lớn."
CHILDREN_ZH = "6岁至未满16岁儿童享成人票价的50%。"


# a leading preposition names a case beside another value
LEADING = [
    # "Tại các nước châu Âu," opens a case: the sentence before gives the minute another price
    ("gọi về nhà giá bao nhiêu", "Cuộc gọi tính 9.000 đồng mỗi phút.", ROAMING_LEAD, True),
    ("sang châu Âu gọi về giá bao nhiêu", "Ở châu Âu cuộc gọi tính 9.000 đồng mỗi phút.", ROAMING_LEAD,
     False),
    ("gọi trong nước giá bao nhiêu", "Gọi trong nước 1.500 đồng mỗi phút.", ROAMING_LEAD, False),
    # a preposition where no other value stands says where, not which case
    ("bảo hành bao lâu", "Bảo hành trong 30 ngày.", WHERE_ONLY, False),
    ("what do adults pay", "Adults pay $18 per crossing.", FERRY_EN, True),
    ("night ferry adult price", "Adults pay $18 per crossing at night sailings.", FERRY_EN, False),
]  # fmt: skip

# "A for X and B for Y": each value is bound to the words that set its case apart
POSTPOSED = [
    ("phí hủy vé bao nhiêu", "Phí hủy vé là 50.000 đồng mỗi lần.", FARES_VI, True),
    ("vé Linh Hoạt hủy mất phí bao nhiêu", "Vé Linh Hoạt hủy mất 50.000 đồng.", FARES_VI, False),
    # the words both cases share ("vé", "Basic") do not carry either
    ("vé tiết kiệm hủy bao nhiêu", "Phí hủy 50.000 đồng mỗi lần.", FARES_VI, True),
    ("how much is a change", "A change is $10.", FARES_EN, True),
    ("basic flex change fee", "Changing a Basic Flex fare costs $10.", FARES_EN, False),
    # a single "for" after a value says what it is for, no case
    ("how much is a change", "A change costs $30.", ONE_FOR, False),
]  # fmt: skip

# a scope governs its colon list and the sentence it opens
SCOPED = [
    # the scope before the colon governs every value it lists, past the bracket's commas
    ("nằm viện ở nước ngoài được bồi thường bao nhiêu", "Được bồi thường 500 USD mỗi lần.", CLAIMS_VI,
     True),
    ("nằm viện được bồi thường bao nhiêu", "Mỗi lần nằm viện được 2.000.000 đồng.", CLAIMS_VI, True),
    ("hồ sơ nộp trong 30 ngày, bệnh viện thuộc mạng lưới thì bồi thường bao nhiêu",
     "Nằm viện trong nước được 2.000.000 đồng mỗi lần.", CLAIMS_VI, False),
    # a sentence opening with "chỉ tại" is under that scope to its end
    ("phí giữ chỗ bao nhiêu", "Phí giữ chỗ là 250.000 đồng mỗi khách.", OPENING_SCOPE, True),
    ("giữ chỗ tại quầy sân bay bao nhiêu", "Tại quầy sân bay phí giữ chỗ 250.000 đồng.", OPENING_SCOPE,
     False),
]  # fmt: skip


@pytest.mark.parametrize(("question", "answer", "chunk", "flagged"), [*LEADING, *POSTPOSED, *SCOPED])
def test_a_case_binds_the_values_where_it_stands(
    rules: ConditionalRules, question: str, answer: str, chunk: str, flagged: bool
) -> None:
    """A leading preposition, a case after each value and a scope bind by where they stand."""
    assert bool(rules.check(question, answer, [chunk]).findings) is flagged


@pytest.mark.parametrize(
    ("answer", "chunk"),
    [
        ("Trẻ em được giảm 50% giá vé.", CHILDREN),
        ("Trẻ em từ 6 tuổi được giảm 50%.", CHILDREN),
        ("儿童票为成人票价的50%。", CHILDREN_ZH),
    ],
)
def test_the_ends_of_a_range_are_no_conditions(rules: ConditionalRules, answer: str, chunk: str) -> None:
    """ "từ 6 tuổi đến dưới 16 tuổi", "6岁至未满16岁": who the sentence speaks of, asked about by the
    question; neither end is a threshold on the other or on the discount."""
    assert not rules.check("giá vé trẻ em", answer, [chunk]).findings


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("international roaming call home price", "Roaming abroad, a call home costs 12.000 đồng a minute."),
        ("国际漫游打回越南多少钱", "国际漫游每分钟12.000越南盾。"),
    ],
)
@pytest.mark.parametrize("chunk", [ROAMING, ROAMING_NETWORK])
def test_a_route_condition_is_carried_in_another_language(
    rules: ConditionalRules, question: str, answer: str, chunk: str
) -> None:
    """ "quốc tế" is "international", "国际": an answer in another language carries it, and one that
    drops it is a finding."""
    assert not rules.check(question, answer, [chunk]).findings
    assert rules.check(
        "gọi về việt nam bao nhiêu", "Cước gọi về Việt Nam 12.000 đồng mỗi phút.", [chunk]
    ).findings


def test_a_section_id_is_no_key_of_a_heading_row(rules: ConditionalRules) -> None:
    """ "TE-2 Trẻ em:" names the case "Trẻ em" (a child's fare), not a count "2 trẻ"."""
    chunk = (
        "TE-1 Em bé: em bé dưới 2 tuổi trả 10% giá vé người lớn. "
        "TE-2 Trẻ em: trẻ từ 2 tuổi đến dưới 12 tuổi trả 90% giá vé người lớn."
    )
    assert not rules.check("vé trẻ em tính sao", "Vé trẻ em bằng 90% giá người lớn.", [chunk]).findings


def test_an_answer_in_another_writing_that_gives_every_case_carries_them(rules: ConditionalRules) -> None:
    """A Persian answer cannot quote "Tiết Kiệm"; giving both fares sets the cases apart, giving one
    as the price does not."""
    chunk = "Phí hủy là 20 USD mỗi lần đối với vé Tiết Kiệm và 5 USD đối với vé Linh Hoạt."
    assert not rules.check(
        "هزینه لغو چقدر است", "لغو برای بلیط ارزان ۲۰ دلار و منعطف ۵ دلار است.", [chunk]
    ).findings
    assert rules.check("هزینه لغو چقدر است", "هزینه لغو ۵ دلار است.", [chunk]).findings


def test_a_question_typed_without_accents_states_its_hours(rules: ConditionalRules) -> None:
    """ "cham 6 tieng" is a delay of 6 hours: it stands on the side of "trên 4 giờ"."""
    chunk = "Chuyến bay chậm trên 4 giờ được bồi thường 400.000 đồng; chậm dưới 4 giờ được phục vụ đồ ăn nhẹ."
    answer = "Chuyến bay chậm được bồi thường 400.000 đồng."
    assert not rules.check("chuyen bay cham 6 tieng duoc boi thuong bn", answer, [chunk]).findings
    assert rules.check("chuyen bay cham 2 tieng duoc boi thuong bn", answer, [chunk]).findings
