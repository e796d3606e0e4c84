"""The review web app over the shared PostgreSQL store: queue, case, label and promote, over real HTTP."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from monitor.http import BoundedServer
from monitor.review import open_store
from monitor.web.app import WebOptions, create_app
from monitor.web.security import Guard
from tests.support.banhang import GOLDEN

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

TOKEN = "pg-web-token"  # noqa: S105 - a test secret


def _csrf(html: str) -> str:
    match = re.search(r'name="csrf" value="([^"]+)"', html)
    assert match is not None
    return match.group(1)


def test_the_web_app_reviews_a_postgres_queue(pg_url: str, tmp_path: Path) -> None:
    """Filter the queue, open the case, label it and promote it, all against PostgreSQL."""
    golden = tmp_path / "golden.json"
    shutil.copy(GOLDEN, golden)
    trace = {
        "trace_id": "pg-1",
        "question": "Phí đổi size là bao nhiêu?",
        "answer": "Phí đổi size là 50.000đ.",
        "retrieved_chunks": [{"chunk_id": "c1", "sections": ["DT-5"], "text": "Đổi size miễn phí lần đầu."}],
        "index_version": "kb-pg",
    }
    result = {"trace_id": "pg-1", "flags": [{"reason": "numeric_unsupported", "severity": "critical"}]}
    with open_store(pg_url) as store:
        store.upsert_case(trace, result, ["numeric_unsupported"])
        store.upsert_case(
            {**trace, "trace_id": "pg-2", "index_version": "kb-other"}, result, ["numeric_unsupported"]
        )
        app = create_app(store, Guard(SecretStr(TOKEN)), WebOptions(golden=golden))
        with (
            BoundedServer(app, "127.0.0.1", 0, setting="review") as server,
            httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=10) as client,
        ):
            login = client.get("/login")
            form = {"csrf": _csrf(login.text), "token": TOKEN, "reviewer": "Hoa", "next": "/cases"}
            assert client.post("/login", data=form).status_code == 303
            queue = client.get("/cases", params={"reason": "numeric_unsupported", "index_version": "kb-pg"})
            assert re.findall(r'data-trace="([^"]+)"', queue.text) == ["pg-1"]
            case = client.get("/cases/pg-1")
            assert 'data-kind="unsupported"' in case.text and "50.000đ" in case.text
            label = {
                "csrf": _csrf(case.text),
                "verdict": "bad",
                "expected_answer": "Đổi size miễn phí lần đầu.",
                "sections": "DT-5",
            }
            assert client.post("/cases/pg-1/label", data=label).status_code == 303
            promoted = client.post(
                "/cases/pg-1/promote", data={"csrf": label["csrf"], "source": "pg-incident"}
            )
            assert promoted.status_code == 303
        stored = store.require("pg-1")
    assert stored.label is not None and stored.label.reviewer == "Hoa"
    assert stored.promotion is not None and stored.promotion.source == "pg-incident"
    entry = next(
        e for e in json.loads(golden.read_text(encoding="utf-8"))["entries"] if e.get("trace_id") == "pg-1"
    )
    assert (
        entry["expected_sections"] == ["DT-5"] and entry["reference_answer"] == "Đổi size miễn phí lần đầu."
    )
