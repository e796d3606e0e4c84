"""A scripted OpenAI-compatible Chat Completions server on loopback, for judge protocol tests and benches.

Real HTTP (stdlib ``ThreadingHTTPServer`` in a background thread), canned replies per request, and
knobs for latency, 429 with Retry-After, 5xx, timeouts, dropped connections and malformed output. It
tests the protocol and the failure handling; it is not a stand-in for judge quality.

Replies are chosen in this order: a per-route queue (``script``), a persistent route (``on``), then
the default. A route matches when its text occurs in the request's system message, so scripting the
grounding call and the relevance call apart is race-free even when they run concurrently.

``usage`` is estimated, not measured with a real tokenizer: one token per CJK character and one per
four other characters (close to cl100k/o200k for English, low for Vietnamese and Persian), summed over
message contents and the ``response_format`` schema, plus 4 tokens per message and 3 for the reply.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
MESSAGE_OVERHEAD_TOKENS = 4
REPLY_PRIMING_TOKENS = 3


def estimate_tokens(text: str) -> int:
    """Approximate tokenizer: 1 token per CJK character, 1 per 4 other characters (rounded up)."""
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    received_at: float

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    @property
    def system(self) -> str:
        return next((str(m.get("content", "")) for m in self.messages if m.get("role") == "system"), "")

    @property
    def user(self) -> str:
        return "\n".join(str(m.get("content", "")) for m in self.messages if m.get("role") == "user")


@dataclass
class Reply:
    """One scripted response; ``content`` is wrapped in a chat completion unless ``raw`` is given."""

    content: str | None = None
    status: int = 200
    raw: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    drop: bool = False
    usage: dict[str, int] | None = None

    @classmethod
    def json(cls, obj: Any, **kwargs: Any) -> Reply:
        """A successful reply whose assistant content is ``obj`` as JSON."""
        return cls(content=json.dumps(obj, ensure_ascii=False), **kwargs)

    @classmethod
    def rate_limited(cls, retry_after_s: float) -> Reply:
        return cls(status=429, headers={"Retry-After": f"{retry_after_s:g}"}, raw=_error_body("rate limited"))

    @classmethod
    def server_error(cls, status: int = 500) -> Reply:
        return cls(status=status, raw=_error_body("internal error"))

    @classmethod
    def malformed(cls) -> Reply:
        """Prose with a truncated JSON object: what a small model produces on a bad day."""
        return cls(content='Sure! Here is the JSON: {"claims": [{"text": "unfinished')


Responder = Callable[[Recorded], Reply]


class ScriptedLLM:
    """Use as a context manager; ``base_url`` ends in ``/v1`` like every OpenAI-compatible server."""

    def __init__(self, default: Reply | Responder | None = None, latency_s: float = 0.0) -> None:
        self.default = default
        self.latency_s = latency_s
        self.requests: list[Recorded] = []
        self._queues: dict[str, deque[Reply]] = {}
        self._routes: list[tuple[str, Reply | Responder]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(target=self._server.serve_forever, name="scripted-llm", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def script(self, match: str, *replies: Reply) -> None:
        """Queue replies, used once each in order, for requests whose system message contains ``match``."""
        with self._lock:
            self._queues.setdefault(match, deque()).extend(replies)

    def on(self, match: str, reply: Reply | Responder) -> None:
        """Answer every request whose system message contains ``match`` (after its queue is empty)."""
        with self._lock:
            self._routes.append((match, reply))

    def calls(self, match: str = "") -> list[Recorded]:
        """Recorded requests whose system message contains ``match``."""
        with self._lock:
            return [r for r in self.requests if match in r.system]

    def _choose(self, request: Recorded) -> Reply:
        with self._lock:
            self.requests.append(request)
            for match, queue in self._queues.items():
                if queue and match in request.system:
                    return queue.popleft()
            chosen = next((r for m, r in self._routes if m in request.system), self.default)
        if chosen is None:
            return Reply(status=500, raw=_error_body("no scripted reply for this request"))
        return chosen if isinstance(chosen, Reply) else chosen(request)

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._stop.wait(seconds)


def prompt_tokens(request: Recorded) -> int:
    """Estimated prompt tokens: message contents plus the ``response_format`` schema the server must read."""
    contents = [str(m.get("content", "")) for m in request.messages]
    total = sum(estimate_tokens(c) + MESSAGE_OVERHEAD_TOKENS for c in contents)
    schema = request.body.get("response_format")
    if schema:
        total += estimate_tokens(json.dumps(schema, ensure_ascii=False, separators=(",", ":")))
    return total + REPLY_PRIMING_TOKENS


def completion_body(request: Recorded, reply: Reply) -> bytes:
    """A chat.completion JSON body with ``usage`` estimated from the request and the reply."""
    content = reply.content or ""
    usage = dict(reply.usage or {})
    usage.setdefault("prompt_tokens", prompt_tokens(request))
    usage.setdefault("completion_tokens", estimate_tokens(content))
    usage.setdefault("total_tokens", usage["prompt_tokens"] + usage["completion_tokens"])
    body = {
        "id": f"chatcmpl-{len(content)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.body.get("model", "scripted"),
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": usage,
    }
    return json.dumps(body, ensure_ascii=False).encode()


def _error_body(message: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "scripted"}}).encode()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512
    owner: ScriptedLLM

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that time out and hang up mid-reply are expected here, not errors."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Quiet: the tests read ``ScriptedLLM.requests`` instead of an access log."""

    def do_POST(self) -> None:
        owner = self.server.owner  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        request = Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic())
        reply = owner._choose(request)
        owner._sleep(owner.latency_s + reply.delay_s)
        if reply.drop:
            self.close_connection = True
            return
        payload = reply.raw if reply.raw is not None else completion_body(request, reply)
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)


def grounding_json(
    claims: Sequence[tuple[str, bool, Sequence[int]]], useful: Sequence[int], abstained: bool = False
) -> dict[str, Any]:
    """The grounding verdicts (``monitor.judge.prompts.GroundingOut``) as a model would write them."""
    return {
        "claims": [{"text": t, "supported": s, "chunks": list(c)} for t, s, c in claims],
        "useful": list(useful),
        "abstained": abstained,
    }


def relevance_json(questions: Sequence[str], noncommittal: Sequence[bool] | None = None) -> dict[str, Any]:
    """Reverse questions (``monitor.judge.prompts.RelevanceOut``) as a model would write them."""
    flags = list(noncommittal) if noncommittal is not None else [False] * len(questions)
    return {"questions": [{"question": q, "noncommittal": f} for q, f in zip(questions, flags, strict=True)]}
