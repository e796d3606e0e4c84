"""The review web app over a 10,000-case SQLite queue: how long each page takes to render.

Prints one JSON line: the median and max wall time (ms, 10 requests each, over real HTTP on loopback)
of the queue unfiltered, filtered by reason and index, deep in its pages, by severity and time range,
of one case page and of the agreement page. Reported, never asserted.
"""

from __future__ import annotations

import json
import random
import re
import statistics
import time
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from monitor.http import BoundedServer
from monitor.review import ReviewStore, open_store
from monitor.web.app import WebOptions, create_app
from monitor.web.security import Guard

pytestmark = [pytest.mark.bench, pytest.mark.timeout(600)]
CASES = 10_000
REASONS = (
    "numeric_unsupported",
    "numeric_out_of_source",
    "low_faithfulness",
    "negative_feedback",
    "invalid_citation",
)
PAGES = {
    "queue": "/cases",
    "queue_reason_index": "/cases?reason=numeric_out_of_source&index_version=kb-3",
    "queue_page_200": "/cases?page=200",
    "queue_severity_since": "/cases?severity=critical&since=7d",
    "case": "/cases/t-04242",
    "agreement": "/agreement",
}


def _seed(store: ReviewStore) -> None:
    rnd = random.Random(1)
    chunk = {"chunk_id": "c1", "sections": ["DT-1"], "text": "Khách được đổi trả trong 7 ngày."}
    for i in range(CASES):
        reasons = rnd.sample(REASONS, rnd.randint(1, 3))
        trace = {
            "trace_id": f"t-{i:05d}",
            "question": f"question {i}",
            "answer": f"Bạn được trả trong {i % 40} ngày.",
            "retrieved_chunks": [chunk] * 5,
            "model_id": "m",
            "prompt_version": f"p{i % 3}",
            "index_version": f"kb-{i % 7}",
        }
        flags = [
            {"reason": r, "severity": "critical" if r.startswith("numeric") else "warning"} for r in reasons
        ]
        store.upsert_case(trace, {"trace_id": trace["trace_id"], "flags": flags}, reasons)


def test_bench_review_pages(tmp_path: Path) -> None:
    """Render times of the review pages over 10,000 cases."""
    with open_store(str(tmp_path / "review.db")) as store:
        _seed(store)
        app = create_app(store, Guard(SecretStr("t")), WebOptions())
        with (
            BoundedServer(app, "127.0.0.1", 0) as server,
            httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=60) as client,
        ):
            csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text)
            assert csrf is not None
            client.post("/login", data={"csrf": csrf.group(1), "token": "t", "reviewer": "bench"})
            out: dict[str, object] = {"bench": "review_web", "cases": CASES}
            for name, url in PAGES.items():
                times = []
                for _ in range(10):
                    started = time.perf_counter()
                    assert client.get(url).status_code == 200
                    times.append((time.perf_counter() - started) * 1000)
                out[f"{name}_ms_median"] = round(statistics.median(times), 1)
                out[f"{name}_ms_max"] = round(max(times), 1)
    print(json.dumps(out))
