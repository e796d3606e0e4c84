"""examples/gate_harness.py against a real RAG-like HTTP server on loopback, then ``ragmon gate`` on its run.

The server answers each golden question the way seed 000's configuration did (the committed fixture
runs), so the harness's run must gate exactly like the fixture: chunk-200 passes, chunk-800 fails.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.support.daemon import ragmon_executable

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data"
GOLDEN = DATA / "banhang" / "golden.json"
POLICY = DATA / "banhang" / "policy.json"

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


def replies(config: str) -> dict[str, dict[str, Any]]:
    """Question -> what the configuration's endpoint answers (no golden id: the harness adds it)."""
    out = {}
    for line in (DATA / "gate" / f"run-{config}.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        keep = ("answer", "retrieved_chunks", "model_id", "prompt_version")
        out[record["question"]] = {k: record[k] for k in keep}
    return out


class RagServer(ThreadingHTTPServer):
    answers: dict[str, dict[str, Any]]
    requests: list[dict[str, Any]]
    fail_first: int


class Handler(BaseHTTPRequestHandler):
    server: RagServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"body": body, "auth": self.headers.get("Authorization")})
        if self.server.fail_first > 0:  # a flaky upstream: the harness must retry
            self.server.fail_first -= 1
            self._send(503, {"error": "warming up"})
            return
        self._send(200, self.server.answers[body["question"]])

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture
def server() -> Iterator[RagServer]:
    httpd = RagServer(("127.0.0.1", 0), Handler)
    httpd.requests, httpd.fail_first = [], 2
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


def harness(url: str, out: Path, index: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / "gate_harness.py"), "--golden", str(GOLDEN),
         "--endpoint", url, "--out", str(out), "--header", "Authorization: Bearer t0ken",
         "--set", f"index_version={index}", "--run-id", "ci-42", "--concurrency", "2"],
        capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(("config", "code"), [("chunk-200", 0), ("chunk-800", 1)])
def test_harness_run_gates_like_the_fixture(
    tmp_path: Path, server: RagServer, config: str, code: int
) -> None:
    """Every golden question is asked (with retries past two 503s); the gate verdict is the fixture's."""
    server.answers = replies(config)
    out = tmp_path / "run.jsonl"
    done = harness(f"http://127.0.0.1:{server.server_port}/ask", out, f"kb-{config}")
    assert done.returncode == 0, done.stderr
    asked = [r["body"]["question"] for r in server.requests]
    assert sorted(set(asked)) == sorted(server.answers) and len(asked) == 5 + 2
    assert {r["auth"] for r in server.requests} == {"Bearer t0ken"}
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["golden_id"] for r in records] == ["q01", "q02", "q03", "q04", "q05"]
    assert {r["index_version"] for r in records} == {f"kb-{config}"}
    assert all(r["metadata"]["golden_version"].startswith("sha256:") for r in records)
    gate = subprocess.run(
        [ragmon_executable(), "gate", str(out), "--golden", str(GOLDEN), "--golden-sections", str(POLICY)],
        capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip
    assert gate.returncode == code, gate.stdout + gate.stderr
    if code:
        assert (
            "MRR@5 0.63 < 0.85" in gate.stdout and "q01: answer says 30 ngày; expected 7 ngày" in gate.stdout
        )


def test_harness_reports_unanswered_questions(tmp_path: Path, server: RagServer) -> None:
    """An endpoint that keeps failing: the harness exits 1 naming the entries, and the gate fails them."""
    server.answers, server.fail_first = replies("chunk-200"), 1000
    out = tmp_path / "run.jsonl"
    done = harness(f"http://127.0.0.1:{server.server_port}/ask", out, "kb-x")
    assert done.returncode == 1
    assert "gate_harness: q01: HTTPStatusError" in done.stderr
    assert "0 of 5 answers written" in done.stderr


def test_harness_piped_into_the_gate(tmp_path: Path, server: RagServer) -> None:
    """``--out -`` writes the run to stdout, which ``ragmon gate -`` reads: the chunk-800 answers fail."""
    server.answers = replies("chunk-800")
    url = f"http://127.0.0.1:{server.server_port}/ask"
    harness_cmd = [sys.executable, str(ROOT / "examples" / "gate_harness.py"), "--golden", str(GOLDEN),
                   "--endpoint", url, "--out", "-"]  # fmt: skip
    gate_cmd = [ragmon_executable(), "gate", "-", "--golden", str(GOLDEN), "--golden-sections", str(POLICY)]
    with subprocess.Popen(harness_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as harness_proc:
        gate = subprocess.run(gate_cmd, stdin=harness_proc.stdout, capture_output=True, text=True, timeout=90)
        harness_proc.wait(timeout=90)
    assert harness_proc.returncode == 0
    assert gate.returncode == 1 and "q01: answer says 30 ngày; expected 7 ngày" in gate.stdout, gate.stderr
