"""Text and number normalization for the numeric rules: same quantity, same digits, same letters."""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, InvalidOperation

# Length-preserving map (one character to one character), so match offsets stay valid on the input.
_CHAR_MAP: dict[int, str] = {
    **{0x06F0 + i: str(i) for i in range(10)},  # Persian digits ۰-۹
    **{0x0660 + i: str(i) for i in range(10)},  # Arabic-Indic digits ٠-٩
    **{0xFF10 + i: str(i) for i in range(10)},  # full-width digits ０-９
    0x066B: ".",  # Arabic decimal separator
    0x066C: ",",  # Arabic thousands separator
    0x066A: "%",  # Arabic percent sign
    0xFF05: "%",  # full-width percent
    # not the full-width comma "，": Chinese writes it between clauses, never inside a number
    # ("10公斤以下$320，10至25公斤$410" is $320, not $320.10)
    0xFF0E: ".",  # full-width full stop
    0xFF04: "$",  # full-width dollar
    0xFFE5: "¥",  # full-width yen/yuan
    0x064A: "ی",  # Arabic yeh -> Persian yeh (seed 001)
    0x0649: "ی",  # Arabic alef maksura
    0x0643: "ک",  # Arabic kaf -> Persian keheh (seed 001)
    0x06C0: "ه",  # heh with yeh above
    0x0629: "ه",  # teh marbuta
    0x200C: " ",  # ZWNJ: "روز‌کاری" and "روز کاری" are one unit
    0x200B: " ",  # zero-width space
    0x00A0: " ",  # no-break space, used as a thousands separator
    0x202F: " ",  # narrow no-break space
    0x2009: " ",  # thin space
    0x3000: " ",  # ideographic space
}
_NEEDS_MAP = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(_CHAR_MAP)) + "]")


def nfc(text: str) -> str:
    """Return ``text`` in NFC, so decomposed Vietnamese marks match the packs' forms."""
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return text
    return unicodedata.normalize("NFC", text)


def fold(text: str) -> str:
    """Map Persian, Arabic-Indic and full-width digits, Arabic letter variants and odd spaces.

    The map is one character to one character, so offsets found in the result are valid in ``text``.
    """
    if text.isascii() or _NEEDS_MAP.search(text) is None:
        return text
    return text.translate(_CHAR_MAP)


def canonical(value: Decimal) -> Decimal:
    """Return ``value`` without trailing zeros or exponent, so equal numbers also print alike."""
    if value == value.to_integral_value():
        return Decimal(int(value))
    return value.normalize()


def parse_number(digits: str) -> Decimal:
    """Parse a written number: "30.000", "30,000", "30 000", "1,5", "1.500.000,5", "2.5".

    A separator followed by exactly three digits groups thousands unless the other separator
    already appeared or the integer part is "0"; otherwise it marks the decimals.
    """
    if digits.isdigit():
        return Decimal(digits)
    compact = digits.replace(" ", "")
    last = max(compact.rfind("."), compact.rfind(","))
    if last < 0:
        return Decimal(compact)
    head, tail = compact[:last], compact[last + 1 :]
    other = "," if compact[last] == "." else "."
    grouped = len(tail) == 3 and other not in head and head not in ("0", "") and _grouped(head, compact[last])
    try:
        if grouped:
            return Decimal(head.replace(compact[last], "") + tail)
        return canonical(Decimal(head.replace(".", "").replace(",", "") + "." + tail))
    except InvalidOperation as exc:
        raise ValueError(f"not a number: {digits!r}") from exc


def _grouped(head: str, sep: str) -> bool:
    """Tell whether ``head`` reads as thousands groups: 1-3 leading digits, then groups of three."""
    groups = head.split(sep)
    return len(groups[0]) <= 3 and all(len(group) == 3 for group in groups[1:])
