"""Property tests of the numeric normalizer: writings of one quantity agree, different ones never do."""

from __future__ import annotations

import unicodedata
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.numeric import NumericRules, Quantity
from monitor.numeric.text import parse_number

RULES = NumericRules.load()
PROPERTY = settings(max_examples=150, deadline=None)

# Unit forms per language, written after the number; zh has no space before its unit.
DURATION_FORMS: dict[str, list[str]] = {
    "day": [" ngày", " days", " روز", "天"],
    "business_day": [" ngày làm việc", " business days", " روز کاری", "个工作日"],
    "week": [" tuần", " weeks", " هفته", "周"],
    "month": [" tháng", " months", " ماه", "个月"],
    "year": [" năm", " years", " سال", "年"],
    "hour": [" giờ", " hours", " ساعت", "小时"],
}
DIGITS = {
    "ascii": "0123456789",
    "persian": "۰۱۲۳۴۵۶۷۸۹",
    "arabic_indic": "٠١٢٣٤٥٦٧٨٩",
    "full_width": "０１２３４５６７８９",
}
TOKENS = [
    "7", "30", "30.000", "1,5", "2026", "ngày", "ngày làm việc", "tháng", "đồng", "đ", "k", "nghìn", "triệu",
    "bảy", "thứ", "hai", "năm", "days", "seven", "$", "USD", "%", "روز", "کاری", "۷", "天", "七", "月", "日",
    "第", "年", "-", ",", ".", "\u200c", "Tháng", "VND",
]  # fmt: skip


def _grouped(n: int, sep: str) -> str:
    return f"{n:,}".replace(",", sep)


def _in_digits(written: str, style: str) -> str:
    return written.translate(str.maketrans("0123456789", DIGITS[style]))


def _vnd_writings(n: int) -> list[str]:
    """Ways to write n dong: separators, symbols, codes, and the k / nghìn / triệu shorthands."""
    writings = [f"{_grouped(n, '.')}đ", f"{_grouped(n, '.')} đồng", f"{_grouped(n, ',')} VND"]
    writings += [f"{_grouped(n, ' ')} ₫", f"{n} vnđ", f"{_grouped(n, '.')} VNĐ"]
    if n % 1000 == 0:
        writings += [f"{_grouped(n // 1000, '.')}k", f"{n // 1000} nghìn đồng", f"{n // 1000} ngàn"]
    if n % 100_000 == 0:
        millions = format(Decimal(n).scaleb(-6).normalize(), "f").replace(".", ",")
        writings.append(f"{millions} triệu")
    return writings


def _only(text: str) -> Quantity:
    quantities = RULES.extract(text)
    assert len(quantities) == 1, (text, quantities)
    return quantities[0]


@PROPERTY
@given(st.integers(min_value=1, max_value=10**9))
def test_vnd_writings_compare_equal(n: int) -> None:
    """30.000đ, 30.000 đồng, 30,000 VND, 30k, 30 nghìn... all read as the same amount of VND."""
    assert {_only(text) for text in _vnd_writings(n)} == {Quantity(Decimal(n), "VND")}


@PROPERTY
@given(
    st.integers(min_value=1, max_value=100_000),
    st.sampled_from(sorted(DURATION_FORMS)),
    st.sampled_from(sorted(DIGITS)),
    st.sampled_from([".", ",", " ", ""]),
)
def test_duration_writings_compare_equal(n: int, unit: str, digits: str, sep: str) -> None:
    """A duration reads the same in vi, en, fa and zh, in any digit script, with any grouping."""
    number = _in_digits(_grouped(n, sep) if sep else str(n), digits)
    forms = DURATION_FORMS[unit]
    if unit == "year" and 1900 <= n < 2100:
        forms = forms[:-1]  # zh.yaml reads "2026年" as a calendar year, not a duration
    assert {_only(number + form) for form in forms} == {Quantity(Decimal(n), unit)}


@PROPERTY
@given(
    # Below 1900: zh.yaml reads "1900年".."2099年" as calendar years, not durations (see above).
    st.tuples(st.integers(min_value=1, max_value=1_899), st.sampled_from(sorted(DURATION_FORMS))),
    st.tuples(st.integers(min_value=1, max_value=1_899), st.sampled_from(sorted(DURATION_FORMS))),
    st.integers(min_value=0, max_value=3),
)
def test_different_quantities_never_compare_equal(
    a: tuple[int, str], b: tuple[int, str], language: int
) -> None:
    """Different values or different units ("5 ngày" vs "5 ngày làm việc") never compare equal."""
    first = _only(f"{a[0]}{DURATION_FORMS[a[1]][language]}")
    second = _only(f"{b[0]}{DURATION_FORMS[b[1]][language]}")
    assert (first == second) is (a == b)


@PROPERTY
@given(st.integers(min_value=1, max_value=10**6), st.integers(min_value=1, max_value=10**6))
def test_different_money_never_compares_equal(n: int, m: int) -> None:
    """Two amounts of dong compare equal exactly when they are the same number (30.000đ is not 300.000đ)."""
    assert (_only(f"{_grouped(n, '.')}đ") == _only(f"{m}k")) is (n == m * 1000)


@PROPERTY
@given(st.integers(min_value=0, max_value=10**12), st.sampled_from([".", ",", " "]))
def test_grouped_integers_parse_back(n: int, sep: str) -> None:
    """An integer written with any thousands separator parses back to itself."""
    assert parse_number(_grouped(n, sep)) == n


@PROPERTY
@given(
    st.integers(min_value=0, max_value=10**9),
    st.integers(min_value=1, max_value=99),
    st.sampled_from([(".", ","), (",", "."), ("", ","), ("", ".")]),
)
def test_decimals_parse_back(whole: int, cents: int, separators: tuple[str, str]) -> None:
    """1.234,5 / 1,234.5 / 1234,5 parse as decimals whatever the convention (one or two decimals)."""
    group, point = separators
    digits = f"{cents:02d}".rstrip("0")
    written = f"{_grouped(whole, group) if group else whole}{point}{digits}"
    assert parse_number(written) == Decimal(f"{whole}.{digits}")


@PROPERTY
@given(st.one_of(st.text(max_size=200), st.lists(st.sampled_from(TOKENS), max_size=30).map(" ".join)))
def test_any_text_is_read_without_error_and_supports_itself(text: str) -> None:
    """Any text reads without error, quantities quote the text, and a text always supports itself."""
    quantities = RULES.extract(text)
    assert all(quantity.text in unicodedata.normalize("NFC", text) for quantity in quantities)
    assert RULES.check(text, [text]).unsupported == ()
