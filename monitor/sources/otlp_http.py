"""``--source otlp://HOST:PORT``: an OTLP/HTTP receiver, ``POST /v1/traces`` in protobuf or JSON, gzip or not.

Exporters (the OpenTelemetry SDKs, the Collector's ``otlphttp`` exporter, Phoenix and Langfuse
clients) send ``ExportTraceServiceRequest``s here. Each request waits in a bounded queue until the loop
polls it; the reply goes out once its spans are read into the assembler (``monitor.assembly``), so a
client hears 200 only for spans ragmon holds, 400 with the reason for a request it cannot read (also
dead-lettered), and 503 with ``Retry-After`` when the loop is behind (queue full, or not polled within
the server's request deadline). What a crash loses: traces answered but not yet handled, that is traces
waiting for their root span or the settle timeout and traces in flight (up to ``max_inflight``). The
exporter's retry covers everything refused before it was answered.

An optional bearer token (``RAGMON_OTLP_TOKEN``) guards the receiver; request bodies are capped
(``otlp.max_request_bytes``, and a gzip body may not inflate past ``monitor.otlp.MAX_INFLATED_BYTES``).
The server is ``monitor.http.BoundedServer``: connections, deadlines and header sizes are bounded there.
"""

from __future__ import annotations

import asyncio
import hmac
import itertools
import queue
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import structlog

from monitor.assembly import Assembled
from monitor.config import OtlpSettings
from monitor.exceptions import ConfigError, TraceError
from monitor.http import BoundedServer, Limits, Receive, Scope, Send
from monitor.otlp import gunzip
from monitor.sources.base import Message, Origin, Unpositioned

log = structlog.get_logger(__name__)
PATH = "/v1/traces"
DEFAULT_PORT = 4318  # the OTLP/HTTP port every exporter defaults to
PROTOBUF = b"application/x-protobuf"
JSON = b"application/json"
_HANDED = 200


@dataclass(eq=False, slots=True)
class _Request:
    """One request waiting for the loop, and the reply its connection waits for."""

    body: bytes
    json: bool
    loop: asyncio.AbstractEventLoop
    reply: asyncio.Future[tuple[int, str]]
    taken: bool = False
    abandoned: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, status: int, detail: str = "") -> None:
        self.loop.call_soon_threadsafe(_settle, self.reply, (status, detail))


def _settle(future: asyncio.Future[tuple[int, str]], value: tuple[int, str]) -> None:
    if not future.done():
        future.set_result(value)


def parse_address(spec: str) -> tuple[str, int]:
    """``otlp://HOST:PORT`` -> (host, port); every mistake is a ConfigError naming ``source``."""
    parts = urlsplit(spec)
    if parts.scheme != "otlp" or not parts.hostname or parts.path not in ("", "/", PATH):
        example = f"otlp://0.0.0.0:{DEFAULT_PORT}"
        raise ConfigError(f"source: expected otlp://HOST:PORT (e.g. {example}), got {spec!r}")
    if parts.query:
        raise ConfigError(f"source: {spec!r} takes no options; the receiver's settings are otlp.*")
    try:
        port = parts.port if parts.port is not None else DEFAULT_PORT
    except ValueError as exc:
        raise ConfigError(f"source: the port in {spec!r} is not a number from 0 to 65535") from exc
    return parts.hostname, port


class OtlpHttpSource(Unpositioned):
    """Requests as raw messages; wrapped in an ``AssembledSource`` whose ``on_read`` is ``answer``."""

    batch_size = 500
    commit_interval_s = 1.0  # nothing to commit: the reply is the acknowledgement

    def __init__(self, host: str, port: int, settings: OtlpSettings, request_deadline_s: float = 5.0) -> None:
        self.host, self._port = host, port
        self._settings = settings
        self._token = settings.token.get_secret_value().encode() if settings.token else None
        self._queue: queue.Queue[_Request] = queue.Queue(maxsize=settings.queue_requests)
        self._deadline_s = request_deadline_s
        self._limits = Limits(
            max_body_bytes=settings.max_request_bytes, request_deadline_s=request_deadline_s
        )
        self._server: BoundedServer | None = None
        self._waiting: dict[int, _Request] = {}  # id(raw message) -> its request, until answered
        self._numbers = itertools.count(1)
        self.received = 0

    @property
    def name(self) -> str:
        return f"otlp:{self.host}:{self.port}"

    @property
    def port(self) -> int:
        return self._server.port if self._server is not None else self._port

    @property
    def ready(self) -> bool:
        return self._server is not None

    @property
    def exhausted(self) -> bool:
        return False

    def open(self) -> None:
        server = BoundedServer(self._app, self.host, self._port, limits=self._limits, name="ragmon-otlp")
        try:
            server.__enter__()
        except ConfigError as exc:
            raise ConfigError(f"source: {exc}".replace("metrics_", "otlp receiver ")) from exc
        self._server = server
        endpoint = f"http://{self.host}:{self.port}{PATH}"
        log.info("otlp_listening", endpoint=endpoint, token=self._token is not None)

    async def _app(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope["headers"])
        status, detail, as_json = await self._take(scope, headers, receive)
        await _reply(send, status, detail, as_json)

    async def _take(
        self, scope: Scope, headers: Mapping[bytes, bytes], receive: Receive
    ) -> tuple[int, str, bool]:
        kind = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
        as_json = kind == JSON
        if scope["path"] != PATH:
            return 404, f"not found: OTLP/HTTP traces go to POST {PATH}", as_json
        if scope["method"] != "POST":
            return 405, f"only POST {PATH}", as_json
        if self._token is not None and not _authorized(headers.get(b"authorization", b""), self._token):
            return 401, "a bearer token is required (Authorization: Bearer <RAGMON_OTLP_TOKEN>)", as_json
        if kind not in (PROTOBUF, JSON):
            return 415, "content-type must be application/x-protobuf or application/json", as_json
        body = (await receive()).get("body", b"")
        encoding = headers.get(b"content-encoding", b"identity").strip().lower()
        if encoding == b"gzip":
            try:
                body = gunzip(body)
            except TraceError as exc:
                return 400, exc.detail, as_json
        elif encoding not in (b"identity", b""):
            return 415, "content-encoding must be gzip or none", as_json
        loop = asyncio.get_running_loop()
        request = _Request(body, as_json, loop, loop.create_future())
        try:
            self._queue.put_nowait(request)
        except queue.Full:
            return 503, "the monitor is behind; retry later", as_json
        try:
            status, detail = await asyncio.wait_for(asyncio.shield(request.reply), self._deadline_s)
        except TimeoutError:
            with request.lock:
                if not request.taken:
                    request.abandoned = True  # never read: the client's retry brings it again
                    return 503, "the monitor is behind; retry later", as_json
            status, detail = await request.reply
        return status, detail, as_json

    def poll(self, max_records: int, timeout_s: float) -> list[Message]:
        out: list[Message] = []
        wait: float | None = timeout_s
        while len(out) < max_records:
            try:
                request = self._queue.get(timeout=wait) if wait else self._queue.get_nowait()
            except queue.Empty:
                break
            wait = None
            with request.lock:
                if request.abandoned:
                    continue
                request.taken = True
            self.received += 1
            message = Message(
                value=request.body,
                origin=Origin(path=self.name, line=next(self._numbers)),
                encoding="otlp_json" if request.json else "otlp_proto",
            )
            self._waiting[id(message)] = request
            out.append(message)
        return out

    def answer(self, raw: Message, built: list[Assembled]) -> None:
        """The request behind ``raw`` was read: 400 naming why if it could not be, else 200."""
        request = self._waiting.pop(id(raw), None)
        if request is None:
            return
        refused = next(
            (b.message.rejected for b in built if b.message.rejected and b.message.value == raw.value), None
        )
        if refused is not None:
            request.answer(400, f"{refused[0]}: {refused[1]}")
        else:
            request.answer(_HANDED)

    def pause(self) -> None:
        return None  # the bounded queue pushes back: 503 and the exporter retries

    def resume(self) -> None:
        return None

    def progress(self) -> tuple[int, int | None]:
        return self.received, None

    def close(self) -> None:
        for request in self._waiting.values():
            request.answer(503, "the monitor is stopping")
        self._waiting.clear()
        while True:
            try:
                self._queue.get_nowait().answer(503, "the monitor is stopping")
            except queue.Empty:
                break
        if self._server is not None:
            self._server.__exit__(None, None, None)
            self._server = None


def _authorized(header: bytes, token: bytes) -> bool:
    scheme, _, given = header.partition(b" ")
    return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), token)


async def _reply(send: Send, status: int, detail: str, as_json: bool) -> None:
    """An ``ExportTraceServiceResponse`` (200) or a ``google.rpc.Status``, in the request's encoding."""
    headers: list[tuple[bytes, bytes]] = [(b"content-type", JSON if as_json else PROTOBUF)]
    if status in (429, 503):
        headers.append((b"retry-after", b"1"))
    if status == _HANDED:
        body = b"{}" if as_json else b""
    elif as_json:
        import orjson

        body = orjson.dumps({"code": _GRPC_CODES.get(status, 2), "message": detail})
    else:
        body = _status_protobuf(_GRPC_CODES.get(status, 2), detail)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


_GRPC_CODES = {400: 3, 401: 16, 404: 5, 405: 12, 413: 8, 415: 3, 503: 14}  # google.rpc.Code


def _status_protobuf(code: int, message: str) -> bytes:
    """``google.rpc.Status{code, message}`` by hand: two fields are not worth another dependency."""
    text = message.encode()
    return b"\x08" + _varint(code) + b"\x12" + _varint(len(text)) + text


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)
