"""Bytes to a JSON value: the one place a message is decoded, with a precise reason for each way it fails.

orjson decodes almost every message (it is several times faster than the standard library and
validates UTF-8 itself). When it refuses one, the standard library decodes it again, to accept what
is accepted on purpose and to name what is not. Each case is decided here, once:

| input                                             | outcome                                          |
|---------------------------------------------------|--------------------------------------------------|
| a UTF-8 byte order mark before the JSON           | stripped, accepted (Windows tools write one)     |
| bytes that are not UTF-8                          | ``not_utf8``                                     |
| a syntax error, truncated JSON, a raw control     | ``invalid_json``, with line and column           |
| character inside a string                         |                                                  |
| an integer of over 4,300 digits, or beyond the    | ``number_too_large``                             |
| range of a double                                 |                                                  |
| ``NaN``, ``Infinity``, ``1e400`` (not JSON, or    | accepted here; a score that is not finite is     |
| infinite as a double)                             | ``non_finite_score`` (``monitor.trace``); in      |
|                                                   | free-form fields it is written out as ``null``   |
| nesting deeper than ``MAX_DEPTH``                 | ``nested_too_deep``                              |
| a lone surrogate escape (``"\\ud800"``)           | replaced by U+FFFD, accepted: it is no character |
| ``\\u0000``                                       | kept; a store that cannot hold NUL replaces it   |
| a key given twice                                 | the last value wins, as in most JSON parsers     |
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

from monitor.exceptions import TraceError

MAX_DEPTH = 64  # real traces nest 4-5 levels; recursive consumers (scrubbing, serializers) stay safe
MAX_INT_DIGITS = 4300  # the interpreter's own limit for int(str)
BOM = b"\xef\xbb\xbf"
REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")


def decode_json(raw: bytes) -> Any:
    """Decode one message's bytes; raise ``TraceError`` with a bounded reason when they are not JSON."""
    if raw.startswith(BOM):
        raw = raw[len(BOM) :]
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _decode_slowly(raw)
    # Fewer opening brackets than the limit (counted in C, strings included) cannot nest deeper.
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and exceeds_depth(value, MAX_DEPTH):
        raise TraceError("nested_too_deep", f"nested more than {MAX_DEPTH} levels deep")
    return value


def _decode_slowly(raw: bytes) -> Any:
    """The standard library's reading of what orjson refused: a precise reason, or an accepted value."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceError("not_utf8", f"byte {exc.start} is not valid UTF-8") from exc
    try:
        value = json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        raise TraceError("invalid_json", f"{exc.msg} at line {exc.lineno} column {exc.colno}") from exc
    except RecursionError as exc:
        raise TraceError("nested_too_deep", f"nested more than {MAX_DEPTH} levels deep") from exc
    if exceeds_depth(value, MAX_DEPTH):
        raise TraceError("nested_too_deep", f"nested more than {MAX_DEPTH} levels deep")
    return _replace_surrogates(value)


def _parse_int(digits: str) -> int | float:
    """Integers as orjson reads them: exact within 64 bits, a float beyond, refused past a double."""
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise TraceError("number_too_large", f"an integer of {len(digits)} digits")
    number = int(digits)
    if -(2**63) <= number < 2**64:
        return number
    try:
        return float(number)
    except OverflowError as exc:
        raise TraceError("number_too_large", f"an integer of {len(digits)} digits") from exc


def exceeds_depth(value: Any, limit: int) -> bool:
    """Whether containers nest more than ``limit`` levels; iterative, so depth cannot exhaust the stack."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _replace_surrogates(value: Any) -> Any:
    """Replace lone surrogates (valid JSON escapes, but no characters) in every string and key."""
    if isinstance(value, str):
        return _SURROGATE.sub(REPLACEMENT, value)
    if isinstance(value, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_surrogates(item) for item in value]
    return value
