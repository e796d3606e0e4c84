"""No PII in anything ragmon writes: results, store, ``review show``, promoted entries, dead letters, logs.

Traces and malformed messages carry phone numbers, emails, cards, CCCD numbers and IBANs in free text,
in identifiers (``conversation_id``), in metadata keys and as integer metadata values. Each artifact is
searched for every raw value, and for its bare digits.
"""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.daemon import ragmon_executable

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

PII = {
    "phone": "0912 345 678",
    "phone_e164": "+84 987 654 321",
    "email": "nguyen.van.a@gmail.com",
    "card": "4111 1111 1111 1111",
    "cccd": "001099012345",
    "iban": "DE89 3704 0044 0532 0130 00",
    "iban_plain": "GB82WEST12345698765432",
}
CHUNK = {"chunk_id": "c01", "sections": ["DT-1"], "text": "Khách được đổi trả trong 7 ngày."}


def _needles() -> list[str]:
    """Each value as written, and its digits alone (a scrubber that only drops the spaces leaks)."""
    out = []
    for value in PII.values():
        out.append(value)
        digits = "".join(ch for ch in value if ch.isalnum())
        if digits != value:
            out.append(digits)
    return out


def _traces() -> list[dict[str, Any]]:
    base: dict[str, Any] = {"answer": "Bạn có 45 ngày để đổi trả.", "retrieved_chunks": [CHUNK]}
    traces = [
        {**base, "trace_id": f"pii-{kind}", "question": f"em ở số {value}, áo trả mấy ngày?"}
        for kind, value in PII.items()
    ]
    traces += [
        {**base, "trace_id": "pii-conv", "conversation_id": "0912345678", "question": "áo trả mấy ngày?"},
        {**base, "trace_id": "pii-key", "question": "q", "metadata": {"nguyen.van.a@gmail.com": "x"}},
        {
            **base,
            "trace_id": "pii-int",
            "question": "q",
            "metadata": {"phone": 84987654321, "card": 4111111111111111},
        },
        {
            **base,
            "trace_id": "pii-feedback",
            "question": "q",
            "feedback": {"rating": "negative", "reason": PII["cccd"]},
        },
        {
            **base,
            "trace_id": "pii-chunk",
            "question": "q",
            "retrieved_chunks": [{**CHUNK, "text": PII["iban"]}],
        },
        {**base, "trace_id": "pii-answer", "question": "q", "answer": f"45 ngày, gọi {PII['phone_e164']}"},
    ]
    return traces


def _malformed() -> list[str]:
    return [
        json.dumps({"trace_id": "bad-1", "question": f"gọi {PII['phone']}"}),  # no answer
        json.dumps({"trace_id": "bad-2", "question": PII["email"], "answer": 5}),  # wrong type
        f'{{"trace_id": "bad-3", "question": "{PII["card"]}", "answer": ',  # truncated
    ]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ragmon_executable(), *args], capture_output=True, text=True, timeout=120, cwd=cwd, check=False
    )


def test_no_pii_in_any_artifact(tmp_path: Path) -> None:
    """Results, store, review show, a promoted golden entry, dead letters and debug logs hold no PII."""
    lines = [json.dumps(t, ensure_ascii=False) for t in _traces()] + _malformed()
    traces = tmp_path / "pii.jsonl"
    traces.write_text("\n".join(lines) + "\n", encoding="utf-8")
    store = tmp_path / "review.db"
    replay = _run(
        [
            "replay",
            str(traces),
            "--results",
            "results.jsonl",
            "--dlq",
            "dlq.jsonl",
            "--store",
            str(store),
            "--log-level",
            "debug",
            "--log-format",
            "json",
        ],
        tmp_path,
    )
    assert replay.returncode == 0, replay.stderr
    artifacts = {
        "results": (tmp_path / "results.jsonl").read_text(encoding="utf-8"),
        "dead letters": (tmp_path / "dlq.jsonl").read_text(encoding="utf-8"),
        "logs": replay.stderr,
    }
    assert len(artifacts["dead letters"].splitlines()) == 3
    listed = _run(["review", "list", "--store", str(store), "--format", "json"], tmp_path)
    ids = [case["trace_id"] for case in json.loads(listed.stdout)]
    assert len(ids) == len(_traces())  # every trace is flagged (45 ngày is in no chunk)
    shows = [_run(["review", "show", trace_id, "--store", str(store)], tmp_path) for trace_id in ids]
    artifacts["review show"] = "\n".join(done.stdout + done.stderr for done in shows)
    artifacts["review list"] = listed.stdout
    first = ids[0]
    labelled = _run(
        [
            "review",
            "label",
            first,
            "bad",
            "--store",
            str(store),
            "--expected-answer",
            f"7 ngày; gọi {PII['phone']}",
            "--note",
            PII["email"],
        ],
        tmp_path,
    )
    assert labelled.returncode == 0, labelled.stderr
    golden = tmp_path / "golden.json"
    promoted = _run(["review", "promote", first, "--golden", str(golden), "--store", str(store)], tmp_path)
    assert promoted.returncode == 0, promoted.stderr
    artifacts["golden"] = golden.read_text(encoding="utf-8")
    artifacts["store"] = store.read_bytes().decode("utf-8", errors="replace")
    leaks = [(where, needle) for where, text in artifacts.items() for needle in _needles() if needle in text]
    assert not leaks
    assert "[PHONE#" in artifacts["store"]  # the phone-number conversation id became a pseudonym


def test_dead_letter_raw_bytes_only_when_asked(tmp_path: Path) -> None:
    """``RAGMON_DEAD_LETTER_RAW=true`` keeps the exact bytes (base64), for replaying bad messages as sent."""
    traces = tmp_path / "bad.jsonl"
    traces.write_text(_malformed()[0] + "\n", encoding="utf-8")
    done = subprocess.run(
        [ragmon_executable(), "replay", str(traces), "--dlq", "dlq.jsonl", "--store", "r.db"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        check=False,
        env={"PATH": "/usr/bin:/bin", "RAGMON_DEAD_LETTER_RAW": "true"},
    )
    assert done.returncode == 1, done.stderr  # nothing was accepted
    record = json.loads((tmp_path / "dlq.jsonl").read_text(encoding="utf-8"))
    assert base64.b64decode(record["raw_b64"]).decode("utf-8") == _malformed()[0]
    assert PII["phone"] not in record["value"]
